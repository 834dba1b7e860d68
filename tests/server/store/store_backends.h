// The stores the contract suite runs over, each a "backend" that gives a
// test a store of its own: SQLite in a fresh directory, PostgreSQL in a
// fresh database of the throwaway cluster (postgres_test_database.h); and
// the typed fixture every contract file shares.
//
// Why shared: the contract is split by subject over several files of one
// binary (store_contract_test.cc, enrollment_request_contract_test.cc),
// each a typed suite over the same backends.
#ifndef LDP_TESTS_SERVER_STORE_STORE_BACKENDS_H_
#define LDP_TESTS_SERVER_STORE_STORE_BACKENDS_H_

#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>
#include <type_traits>

#include "absl/status/statusor.h"
#include "common/base/status_macros.h"
#include "gtest/gtest.h"
#include "server/store/postgres/postgres_store.h"
#include "server/store/sqlite/sqlite_store.h"
#include "tests/server/store/postgres/postgres_test_database.h"
#include "tests/testing/status_matchers.h"

namespace ldp::store_testing {

// Where a SQLite store of one test lives: a file in a fresh directory.
class SqliteBackend {
 public:
  void SetUp() {
    std::string pattern = ::testing::TempDir() + "ldp_store_XXXXXX";
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() { std::filesystem::remove_all(dir_); }
  absl::StatusOr<std::unique_ptr<Store>> Open() {
    ASSIGN_OR_RETURN(std::unique_ptr<SqliteStore> store,
                     SqliteStore::Open({.path = dir_ + "/ldp.db"}));
    return store;
  }

 private:
  std::string dir_;
};

// Where a PostgreSQL store of one test lives: a fresh database.
class PostgresBackend {
 public:
  void SetUp() { db_.Create(); }
  void TearDown() {}
  absl::StatusOr<std::unique_ptr<Store>> Open() {
    ASSIGN_OR_RETURN(std::unique_ptr<PostgresStore> store,
                     PostgresStore::Open({.url = db_.url()}));
    return store;
  }

 private:
  store_testing::PostgresTestDatabase db_;
};

template <typename Backend>
class StoreContractTest : public ::testing::Test {
 protected:
  void SetUp() override { backend_.SetUp(); }
  void TearDown() override { backend_.TearDown(); }

  // A store on this test's database; the first one creates round 1, open
  // (a shared store takes reports only into an open round).
  std::unique_ptr<Store> Open() {
    absl::StatusOr<std::unique_ptr<Store>> store = backend_.Open();
    EXPECT_OK(store);
    if (!store.ok()) return nullptr;
    if (!round_created_) {
      EXPECT_OK((*store)->Transact([](StoreTransaction& t) {
        return t.InsertRound({.round_id = 1, .study_id = 1, .plan = "p"});
      }));
      round_created_ = true;
    }
    return *std::move(store);
  }

  Backend backend_;
  bool round_created_ = false;
};

struct BackendNames {
  template <typename Backend>
  static std::string GetName(int) {
    return std::is_same_v<Backend, SqliteBackend> ? "Sqlite" : "Postgres";
  }
};

using Backends = ::testing::Types<SqliteBackend, PostgresBackend>;
}  // namespace ldp::store_testing

#endif  // LDP_TESTS_SERVER_STORE_STORE_BACKENDS_H_
