// The shuffler's database connection: one SQLite file opened the way every
// acknowledged submission needs it (WAL, synchronous=FULL, and
// secure_delete so that a released report's agent id does not linger in a
// freed page). Statements, errors and transactions are the shared layer's
// (common/sqlite/sqlite_statement.h).
//
// Why not server/store/sqlite: the shuffler is another operator's program
// and must not carry the aggregator's store; this is the little it needs.
#ifndef LDP_SERVER_SHUFFLER_CORE_SQLITE_DB_H_
#define LDP_SERVER_SHUFFLER_CORE_SQLITE_DB_H_

#include <sqlite3.h>

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/sqlite/sqlite_statement.h"

namespace ldp::shuffler_internal {

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
  absl::Status Exec(const char* sql) { return sqlite::Exec(db_, sql); }
  sqlite3* handle() { return db_; }

 private:
  explicit SqliteDb(sqlite3* db) : db_(db) {}
  sqlite3* db_;
};

}  // namespace ldp::shuffler_internal

#endif  // LDP_SERVER_SHUFFLER_CORE_SQLITE_DB_H_
