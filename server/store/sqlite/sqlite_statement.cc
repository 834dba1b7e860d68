// The SQLite statement layer; see the header.
#include "server/store/sqlite/sqlite_statement.h"

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"

namespace ldp::sqlite_internal {

absl::Status SqliteError(sqlite3* db, const std::string& what, int code) {
  std::string message =
      absl::StrCat("sqlite ", what, ": ", sqlite3_errstr(code));
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

absl::Status Exec(sqlite3* db, const char* sql) {
  const int code = sqlite3_exec(db, sql, nullptr, nullptr, nullptr);
  if (code != SQLITE_OK) return SqliteError(db, sql, code);
  return absl::OkStatus();
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

}  // namespace ldp::sqlite_internal
