// A database of its own for each PostgreSQL test, on the throwaway cluster
// of tests/postgres/with_postgres.sh (ctest runs such binaries through it),
// and plain SQL on a connection of the test's own.
//
// Why shared: the store contract suite and the PostgreSQL store's own tests
// both need a fresh database per test and a way to look at it behind the
// store's back.
#ifndef LDP_TESTS_SERVER_STORE_POSTGRES_POSTGRES_TEST_DATABASE_H_
#define LDP_TESTS_SERVER_STORE_POSTGRES_POSTGRES_TEST_DATABASE_H_

#include <libpq-fe.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace ldp::store_testing {

// `url` with its database name replaced.
inline std::string WithDatabase(const std::string& url, const std::string& db) {
  const size_t query = std::min(url.find('?'), url.size());
  const size_t slash = url.rfind('/', query);
  return url.substr(0, slash + 1) + db + url.substr(query);
}

// Runs `sql` on a connection of its own; the rows as text.
inline std::vector<std::vector<std::string>> Sql(const std::string& url,
                                                 const std::string& sql) {
  std::vector<std::vector<std::string>> rows;
  PGconn* conn = PQconnectdb(url.c_str());
  if (PQstatus(conn) != CONNECTION_OK) {
    ADD_FAILURE() << "cannot connect to " << url << ": "
                  << PQerrorMessage(conn);
    PQfinish(conn);
    return rows;
  }
  PGresult* result = PQexec(conn, sql.c_str());
  const ExecStatusType status = PQresultStatus(result);
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
    ADD_FAILURE() << sql << ": " << PQresultErrorMessage(result);
  } else {
    for (int i = 0; i < PQntuples(result); ++i) {
      rows.emplace_back();
      for (int j = 0; j < PQnfields(result); ++j) {
        rows.back().emplace_back(PQgetvalue(result, i, j));
      }
    }
  }
  PQclear(result);
  PQfinish(conn);
  return rows;
}

inline std::string SqlValue(const std::string& url, const std::string& sql) {
  const auto rows = Sql(url, sql);
  return rows.empty() || rows[0].empty() ? "" : rows[0][0];
}

// Makes a migrated database one whose deltas never named their tasks
// (schema 8's): stores opened afterwards follow every report row, as they
// follow the rows stored before schema 9.
inline void FollowEveryReportRow(const std::string& url) {
  Sql(url, "UPDATE deltas_since SET tasks_xid = '18446744073709551615'");
}

// Creates a fresh database at Create() and drops it at destruction.
class PostgresTestDatabase {
 public:
  PostgresTestDatabase() = default;
  PostgresTestDatabase(const PostgresTestDatabase&) = delete;
  PostgresTestDatabase& operator=(const PostgresTestDatabase&) = delete;
  ~PostgresTestDatabase() {
    if (!db_.empty()) {
      Sql(admin_url_, "DROP DATABASE IF EXISTS " + db_ + " WITH (FORCE)");
    }
  }

  // Fails the test (fatally, in the caller's function) without a cluster.
  void Create() {
    const char* base = getenv("LDP_TEST_POSTGRES_URL");
    ASSERT_NE(base, nullptr)
        << "LDP_TEST_POSTGRES_URL is not set: run this test through "
           "tests/postgres/with_postgres.sh (ctest does), e.g. "
           "bash tests/postgres/with_postgres.sh "
           "build/tests/server_postgres_store_test";
    admin_url_ = base;
    static int counter = 0;
    db_ = absl::StrCat("ldp_test_", getpid(), "_", ++counter);
    Sql(admin_url_, "CREATE DATABASE " + db_);
    url_ = WithDatabase(admin_url_, db_);
  }

  // The cluster's maintenance database, to create or drop others.
  const std::string& admin_url() const { return admin_url_; }
  const std::string& name() const { return db_; }
  // This test's database.
  const std::string& url() const { return url_; }

 private:
  std::string admin_url_;
  std::string db_;
  std::string url_;
};

}  // namespace ldp::store_testing

#endif  // LDP_TESTS_SERVER_STORE_POSTGRES_POSTGRES_TEST_DATABASE_H_
