// The shuffler's SQLite layer; see the header.
#include "server/shuffler/core/sqlite_db.h"

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"

namespace ldp::shuffler_internal {

absl::Status SqliteError(sqlite3* db, absl::string_view what, int code) {
  std::string message =
      absl::StrCat("shuffler database ", what, ": ", sqlite3_errstr(code));
  if (db != nullptr) absl::StrAppend(&message, " (", sqlite3_errmsg(db), ")");
  switch (code & 0xff) {
    case SQLITE_FULL:
      return absl::ResourceExhaustedError(message);
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return absl::UnavailableError(message);
    default:
      return absl::InternalError(message);
  }
}

absl::StatusOr<std::unique_ptr<Statement>> Statement::Prepare(sqlite3* db,
                                                              const char* sql) {
  sqlite3_stmt* stmt = nullptr;
  const int code = sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT,
                                      &stmt, nullptr);
  if (code != SQLITE_OK) return SqliteError(db, sql, code);
  return std::unique_ptr<Statement>(new Statement(db, stmt));
}

absl::StatusOr<bool> Statement::Step() {
  const int code = sqlite3_step(stmt_);
  if (code == SQLITE_ROW) return true;
  if (code == SQLITE_DONE) return false;
  return SqliteError(db_, sqlite3_sql(stmt_), code);
}

absl::Status Statement::Run() {
  for (;;) {
    ASSIGN_OR_RETURN(const bool row, Step());
    if (!row) return absl::OkStatus();
  }
}

namespace {

// The pragma answers with the mode in force and does not fail when the
// file cannot use WAL, so the answer is what must be checked.
absl::Status EnableWal(sqlite3* db) {
  ASSIGN_OR_RETURN(std::unique_ptr<Statement> pragma,
                   Statement::Prepare(db, "PRAGMA journal_mode=WAL"));
  ASSIGN_OR_RETURN(const bool row, pragma->Step());
  const bool wal = row && pragma->Blob(0) == "wal";
  pragma->Reset();
  if (!wal) {
    return absl::FailedPreconditionError(
        "the shuffler database cannot use write-ahead logging (WAL); put "
        "--data_dir on a local file system");
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<SqliteDb>> SqliteDb::Open(
    const std::string& path) {
  sqlite3* handle = nullptr;
  const int code = sqlite3_open_v2(
      path.c_str(), &handle,
      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
      nullptr);
  auto db = std::unique_ptr<SqliteDb>(new SqliteDb(handle));
  if (code != SQLITE_OK) {
    return SqliteError(handle, absl::StrCat("open ", path), code);
  }
  sqlite3_busy_timeout(handle, 10'000);
  RETURN_IF_ERROR(EnableWal(handle));
  // FULL: an acknowledged submission survives a power cut, not only a
  // crash. secure_delete: deleted rows (a pending report with its agent
  // id) are zeroed, not left in a free page beside the released payload.
  RETURN_IF_ERROR(
      db->Exec("PRAGMA synchronous=FULL; PRAGMA secure_delete=ON; "
               "PRAGMA foreign_keys=ON; PRAGMA journal_size_limit=16777216"));
  return db;
}

absl::Status SqliteDb::Exec(const char* sql) {
  const int code = sqlite3_exec(db_, sql, nullptr, nullptr, nullptr);
  if (code != SQLITE_OK) return SqliteError(db_, sql, code);
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Transaction>> Transaction::Begin(SqliteDb& db) {
  RETURN_IF_ERROR(db.Exec("BEGIN IMMEDIATE"));
  return std::unique_ptr<Transaction>(new Transaction(db));
}

Transaction::~Transaction() {
  if (open_) (void)db_.Exec("ROLLBACK");
}

absl::Status Transaction::Commit() {
  RETURN_IF_ERROR(db_.Exec("COMMIT"));
  open_ = false;
  return absl::OkStatus();
}

}  // namespace ldp::shuffler_internal
