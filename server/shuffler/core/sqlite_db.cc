// The shuffler's database connection; see the header.
#include "server/shuffler/core/sqlite_db.h"

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"

namespace ldp::shuffler_internal {

absl::StatusOr<std::unique_ptr<SqliteDb>> SqliteDb::Open(
    const std::string& path) {
  sqlite3* handle = nullptr;
  const int code = sqlite3_open_v2(
      path.c_str(), &handle,
      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
      nullptr);
  auto db = std::unique_ptr<SqliteDb>(new SqliteDb(handle));
  if (code != SQLITE_OK) {
    return sqlite::SqliteError(handle, absl::StrCat("open ", path), code);
  }
  sqlite3_busy_timeout(handle, 10'000);
  if (absl::Status wal = sqlite::EnableWal(handle); !wal.ok()) {
    if (!absl::IsFailedPrecondition(wal)) return wal;
    return absl::FailedPreconditionError(
        "the shuffler database cannot use write-ahead logging (WAL); put "
        "--data_dir on a local file system");
  }
  // FULL: an acknowledged submission survives a power cut, not only a
  // crash. secure_delete: deleted rows (a pending report with its agent
  // id) are zeroed, not left in a free page beside the released payload.
  RETURN_IF_ERROR(
      db->Exec("PRAGMA synchronous=FULL; PRAGMA secure_delete=ON; "
               "PRAGMA foreign_keys=ON; PRAGMA journal_size_limit=16777216"));
  return db;
}

}  // namespace ldp::shuffler_internal
