// The statement layer over SQLite that the server's embedded store and
// ldp-shuffler's database share: a prepared statement that is reset after
// every use, SQLite result codes as absl errors, the WAL check, and a
// transaction that rolls back unless committed.
//
// Why shared: both programs step statements the same way, and the
// reset-after-use guard is what releases a reader's snapshot, so it is
// written once. Why in common/: it holds no schema and no protocol, and
// the shuffler must not link the aggregator's store.
#ifndef LDP_COMMON_SQLITE_SQLITE_STATEMENT_H_
#define LDP_COMMON_SQLITE_SQLITE_STATEMENT_H_

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <string_view>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace ldp::sqlite {

// A failed SQLite call as an error that says what failed: full disk is
// ResourceExhausted, a busy or locked database Unavailable, the rest
// Internal.
absl::Status SqliteError(sqlite3* db, absl::string_view what, int code);

// Runs `sql` (may hold several statements), ignoring rows.
absl::Status Exec(sqlite3* db, const char* sql);

// PRAGMA journal_mode=WAL, checked: the pragma answers with the mode in
// force and does not fail when the file cannot use WAL, so the answer is
// what tells. FailedPrecondition when the file cannot use WAL.
absl::Status EnableWal(sqlite3* db);

// The first column of the first row of `sql`, 0 if it has no row.
absl::StatusOr<int64_t> QueryInt(sqlite3* db, const char* sql);

// One prepared statement, reset (and its read snapshot released) by Use's
// guard after every use.
class Statement {
 public:
  static absl::StatusOr<std::unique_ptr<Statement>> Prepare(sqlite3* db,
                                                            const char* sql);
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  void Bind(int i, int64_t v) { sqlite3_bind_int64(stmt_, i, v); }
  // The bytes must outlive the step: SQLITE_STATIC copies nothing.
  void BindBlob(int i, std::string_view v) {
    sqlite3_bind_blob(stmt_, i, v.data(), static_cast<int>(v.size()),
                      SQLITE_STATIC);
  }
  // Empty → NULL (a UNIQUE column's "none", which may repeat).
  void BindBlobOrNull(int i, std::string_view v) {
    if (v.empty()) {
      sqlite3_bind_null(stmt_, i);
    } else {
      BindBlob(i, v);
    }
  }
  void BindTextOrNull(int i, std::string_view v) {
    if (v.empty()) {
      sqlite3_bind_null(stmt_, i);
    } else {
      sqlite3_bind_text(stmt_, i, v.data(), static_cast<int>(v.size()),
                        SQLITE_STATIC);
    }
  }
  // true: a row is available; false: done.
  absl::StatusOr<bool> Step();
  absl::Status Run();  // steps to completion, ignoring rows
  int64_t Int(int col) { return sqlite3_column_int64(stmt_, col); }
  // Rows the last completed write changed.
  int Changes() { return sqlite3_changes(db_); }
  std::string_view Blob(int col) {
    const void* data = sqlite3_column_blob(stmt_, col);
    return {static_cast<const char*>(data),
            static_cast<size_t>(sqlite3_column_bytes(stmt_, col))};
  }
  void Reset() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }

 private:
  Statement(sqlite3* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}
  sqlite3* db_;
  sqlite3_stmt* stmt_;
};

// Runs `sql` and calls `row` on each result row, in order, stopping at
// the first error (SQLite's or `row`'s). For reads done once, such as a
// store's load at start; a read repeated per call keeps its Statement.
absl::Status ForEachRow(sqlite3* db, const char* sql,
                        absl::FunctionRef<absl::Status(Statement&)> row);

// Resets a statement when the use ends, whatever the outcome, so that no
// read snapshot outlives its use.
class Use {
 public:
  explicit Use(Statement& s) : s_(s) {}
  ~Use() { s_.Reset(); }
  Statement* operator->() { return &s_; }
  Statement& operator*() { return s_; }

 private:
  Statement& s_;
};

// BEGIN IMMEDIATE at construction; ROLLBACK at destruction unless Commit
// succeeded, so an early return never leaves a transaction open.
class Transaction {
 public:
  static absl::StatusOr<std::unique_ptr<Transaction>> Begin(sqlite3* db);
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

  absl::Status Commit();

 private:
  explicit Transaction(sqlite3* db) : db_(db) {}
  sqlite3* db_;
  bool open_ = true;
};

}  // namespace ldp::sqlite

#endif  // LDP_COMMON_SQLITE_SQLITE_STATEMENT_H_
