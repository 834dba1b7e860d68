// One integer from a SQLite file, read through a connection of the test's
// own: how the tests check what a store or the shuffler really wrote (row
// counts, a drawn threshold) rather than what its API says.
#ifndef LDP_TESTS_TESTING_SQLITE_QUERY_H_
#define LDP_TESTS_TESTING_SQLITE_QUERY_H_

#include <sqlite3.h>

#include <cstdint>
#include <string>

#include "gtest/gtest.h"

namespace ldp::testing {

// The first column of the first row of `sql` on the file at `path`,
// opened read-only; -1 if there is no row. A file or statement that fails
// fails the test.
inline int64_t QuerySqliteInt(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr),
            SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr), SQLITE_OK)
      << sqlite3_errmsg(db);
  int64_t value = -1;
  if (stmt != nullptr && sqlite3_step(stmt) == SQLITE_ROW) {
    value = sqlite3_column_int64(stmt, 0);
  }
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return value;
}

}  // namespace ldp::testing

#endif  // LDP_TESTS_TESTING_SQLITE_QUERY_H_
