// The shared SQLite statement layer; see the header.
#include "common/sqlite/sqlite_statement.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"

namespace ldp::sqlite {

absl::Status SqliteError(sqlite3* db, absl::string_view what, int code) {
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

absl::Status EnableWal(sqlite3* db) {
  ASSIGN_OR_RETURN(std::unique_ptr<Statement> pragma,
                   Statement::Prepare(db, "PRAGMA journal_mode=WAL"));
  Use s(*pragma);
  ASSIGN_OR_RETURN(const bool row, s->Step());
  if (!row || s->Blob(0) != "wal") {
    return absl::FailedPreconditionError(
        "the database cannot use write-ahead logging (WAL)");
  }
  return absl::OkStatus();
}

absl::StatusOr<int64_t> QueryInt(sqlite3* db, const char* sql) {
  ASSIGN_OR_RETURN(std::unique_ptr<Statement> statement,
                   Statement::Prepare(db, sql));
  Use s(*statement);
  ASSIGN_OR_RETURN(const bool row, s->Step());
  return row ? s->Int(0) : 0;
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

absl::Status ForEachRow(sqlite3* db, const char* sql,
                        absl::FunctionRef<absl::Status(Statement&)> row) {
  ASSIGN_OR_RETURN(std::unique_ptr<Statement> statement,
                   Statement::Prepare(db, sql));
  Use s(*statement);
  for (;;) {
    ASSIGN_OR_RETURN(const bool more, s->Step());
    if (!more) return absl::OkStatus();
    RETURN_IF_ERROR(row(*s));
  }
}

absl::StatusOr<std::unique_ptr<Transaction>> Transaction::Begin(sqlite3* db) {
  RETURN_IF_ERROR(Exec(db, "BEGIN IMMEDIATE"));
  return std::unique_ptr<Transaction>(new Transaction(db));
}

Transaction::~Transaction() {
  if (open_) (void)Exec(db_, "ROLLBACK");
}

absl::Status Transaction::Commit() {
  RETURN_IF_ERROR(Exec(db_, "COMMIT"));
  open_ = false;
  return absl::OkStatus();
}

}  // namespace ldp::sqlite
