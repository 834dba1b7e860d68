// The SQLite store's statement layer: a prepared statement that is reset
// after every use, and SQLite result codes as absl errors.
//
// Why apart from the store: the schema code and the store's reads and
// writes all step statements the same way; the reset-after-use guard is
// what releases a reader's snapshot, so it is written once.
#ifndef LDP_SERVER_STORE_SQLITE_SQLITE_STATEMENT_H_
#define LDP_SERVER_STORE_SQLITE_SQLITE_STATEMENT_H_

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace ldp::sqlite_internal {

// A failed SQLite call as an error that says what failed: full disk is
// ResourceExhausted, a busy or locked database Unavailable, the rest
// Internal.
absl::Status SqliteError(sqlite3* db, const std::string& what, int code);

// Runs `sql` (may hold several statements), ignoring rows.
absl::Status Exec(sqlite3* db, const char* sql);

// One prepared statement, reset (and its read snapshot released) by Use's
// guard after every use.
class Statement {
 public:
  static absl::StatusOr<std::unique_ptr<Statement>> Prepare(sqlite3* db,
                                                            const char* sql);
  ~Statement() { sqlite3_finalize(stmt_); }

  void Bind(int i, int64_t v) { sqlite3_bind_int64(stmt_, i, v); }
  void BindBlob(int i, std::string_view v) {
    sqlite3_bind_blob(stmt_, i, v.data(), static_cast<int>(v.size()),
                      SQLITE_STATIC);
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

// Resets a statement when the use ends, whatever the outcome.
class Use {
 public:
  explicit Use(Statement& s) : s_(s) {}
  ~Use() { s_.Reset(); }
  Statement* operator->() { return &s_; }
  Statement& operator*() { return s_; }

 private:
  Statement& s_;
};

}  // namespace ldp::sqlite_internal

#endif  // LDP_SERVER_STORE_SQLITE_SQLITE_STATEMENT_H_
