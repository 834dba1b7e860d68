// The shuffler's own thin layer over SQLite: one connection opened the way
// every acknowledged submission needs it (WAL, synchronous=FULL, and
// secure_delete so that a released report's agent id does not linger in a
// freed page), prepared statements reset after every use, and SQLite result
// codes as absl errors.
//
// Why not server/store/sqlite: the shuffler is another operator's program
// and must not carry the aggregator's store; this is the little it needs.
#ifndef LDP_SERVER_SHUFFLER_CORE_SQLITE_DB_H_
#define LDP_SERVER_SHUFFLER_CORE_SQLITE_DB_H_

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace ldp::shuffler_internal {

// A failed SQLite call as an error naming what failed: a full disk is
// RESOURCE_EXHAUSTED, a busy or locked database UNAVAILABLE, the rest
// INTERNAL.
absl::Status SqliteError(sqlite3* db, absl::string_view what, int code);

// One prepared statement; Use's guard resets it after every use.
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
  // true: a row is available; false: done.
  absl::StatusOr<bool> Step();
  absl::Status Run();  // steps to completion, ignoring rows
  int64_t Int(int col) { return sqlite3_column_int64(stmt_, col); }
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

// Resets a statement when the use ends, whatever the outcome, so that no
// read snapshot outlives its use.
class Use {
 public:
  explicit Use(Statement& s) : s_(s) {}
  ~Use() { s_.Reset(); }
  Statement* operator->() { return &s_; }

 private:
  Statement& s_;
};

// An open database file. Thread-compatible: the caller serializes.
class SqliteDb {
 public:
  // Opens (creating if missing) `path` in WAL mode with synchronous=FULL
  // and secure_delete on. FAILED_PRECONDITION if the file cannot use WAL.
  static absl::StatusOr<std::unique_ptr<SqliteDb>> Open(
      const std::string& path);
  ~SqliteDb() { sqlite3_close_v2(db_); }
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;

  // Runs `sql` (may hold several statements), ignoring rows.
  absl::Status Exec(const char* sql);
  sqlite3* handle() { return db_; }

 private:
  explicit SqliteDb(sqlite3* db) : db_(db) {}
  sqlite3* db_;
};

// BEGIN IMMEDIATE at construction; ROLLBACK at destruction unless Commit
// succeeded, so an early return never leaves a transaction open.
class Transaction {
 public:
  static absl::StatusOr<std::unique_ptr<Transaction>> Begin(SqliteDb& db);
  ~Transaction();
  absl::Status Commit();

 private:
  explicit Transaction(SqliteDb& db) : db_(db) {}
  SqliteDb& db_;
  bool open_ = true;
};

}  // namespace ldp::shuffler_internal

#endif  // LDP_SERVER_SHUFFLER_CORE_SQLITE_DB_H_
