// What only the SQLite store does: its file format and migrations, its
// checkpoint thread, its options. The Store contract both stores keep is
// store_contract_test.cc.
#include "server/store/sqlite/sqlite_store.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/base/status_macros.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/server/store/store_testing.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using store_testing::CountReports;
using store_testing::Report;
using store_testing::Spent;
using testing::StatusIs;

class SqliteStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = ::testing::TempDir() + "ldp_store_XXXXXX";
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    path_ = dir_ + "/ldp.db";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::unique_ptr<SqliteStore> Open() {
    auto store = SqliteStore::Open({.path = path_});
    EXPECT_OK(store);
    return store.ok() ? *std::move(store) : nullptr;
  }

  std::string dir_;
  std::string path_;
};

TEST_F(SqliteStoreTest, RefusesDatabasesThatAreNotItsOwn) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path_.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(
      sqlite3_exec(db, "CREATE TABLE other(x)", nullptr, nullptr, nullptr),
      SQLITE_OK);
  sqlite3_close(db);
  EXPECT_THAT(SqliteStore::Open({.path = path_}),
              StatusIs(absl::StatusCode::kFailedPrecondition));

  const std::string newer = dir_ + "/newer.db";
  ASSERT_EQ(sqlite3_open(newer.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(
      sqlite3_exec(db, "PRAGMA user_version=99", nullptr, nullptr, nullptr),
      SQLITE_OK);
  sqlite3_close(db);
  EXPECT_THAT(SqliteStore::Open({.path = newer}),
              StatusIs(absl::StatusCode::kFailedPrecondition));
}

// A file written by the first release (schema version 1: no enrollment
// batch column) is migrated at open, its rows kept.
TEST_F(SqliteStoreTest, MigratesAVersionOneDatabaseInPlace) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path_.c_str(), &db), SQLITE_OK);
  const char* v1 =
      "CREATE TABLE agents(agent_id INTEGER PRIMARY KEY, credential_hash BLOB "
      "NOT NULL, enrolled_at INTEGER NOT NULL);"
      "CREATE TABLE studies(study_id INTEGER PRIMARY KEY, spec BLOB NOT NULL, "
      "request_id TEXT UNIQUE, state INTEGER NOT NULL, created_at INTEGER NOT "
      "NULL);"
      "CREATE TABLE rounds(round_id INTEGER PRIMARY KEY, study_id INTEGER NOT "
      "NULL, state INTEGER NOT NULL, start_time INTEGER NOT NULL, deadline "
      "INTEGER NOT NULL, plan BLOB NOT NULL);"
      "CREATE TABLE reports(task_id INTEGER PRIMARY KEY, round_id INTEGER NOT "
      "NULL, agent_id INTEGER NOT NULL, report_id BLOB NOT NULL, payload BLOB "
      "NOT NULL, received_at INTEGER NOT NULL);"
      "CREATE TABLE ledger(agent_id INTEGER NOT NULL, study_id INTEGER NOT "
      "NULL, spent_nanos INTEGER NOT NULL, cap_nanos INTEGER NOT NULL, "
      "PRIMARY KEY(agent_id, study_id)) WITHOUT ROWID;"
      "INSERT INTO agents VALUES(7, zeroblob(32), 5);"
      "PRAGMA user_version=1;";
  ASSERT_EQ(sqlite3_exec(db, v1, nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  auto store = Open();
  std::vector<AgentRow> agents;
  ASSERT_OK(store->ForEachAgent([&](const AgentRow& row) {
    agents.push_back(row);
    return absl::OkStatus();
  }));
  ASSERT_EQ(agents.size(), 1u);
  EXPECT_EQ(agents[0].agent_id, 7u);
  EXPECT_EQ(agents[0].enrollment_batch, "");
  // Migrated once: the new columns take writes (an enrollment request
  // unique, version 5), and reopening is a no-op.
  const std::string request(32, 'r');
  ASSERT_OK(store->Transact([&](StoreTransaction& t) {
    return t.InsertAgent({.agent_id = 8,
                          .enrollment_batch = "batch",
                          .enrollment_request = request});
  }));
  EXPECT_FALSE(store
                   ->Transact([&](StoreTransaction& t) {
                     return t.InsertAgent(
                         {.agent_id = 9, .enrollment_request = request});
                   })
                   .ok());
  store.reset();
  EXPECT_OK(SqliteStore::Open({.path = path_}));
  sqlite3* check = nullptr;
  ASSERT_EQ(sqlite3_open(path_.c_str(), &check), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(check,
                               "SELECT count(*) FROM agents WHERE "
                               "enrollment_request IS NULL",
                               -1, &s, nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_step(s), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int64(s, 0), 1);  // agent 7, from version 1
  sqlite3_finalize(s);
  sqlite3_close(check);
}

// A commit that leaves more than checkpoint_pages in the log wakes the
// store's checkpoint thread (the writer no longer checkpoints inside a
// commit), and what it copies is the committed data.
TEST_F(SqliteStoreTest, CheckpointsRunOnTheirOwnThread) {
  constexpr int kReports = 400;
  {
    auto store = SqliteStore::Open({.path = path_, .checkpoint_pages = 8});
    ASSERT_OK(store);
    for (int i = 1; i <= kReports; i += 4) {
      ASSERT_OK((*store)->Transact([&](StoreTransaction& t) -> absl::Status {
        for (int j = i; j < i + 4; ++j) {
          // 2 KiB each: about 200 pages of log in all.
          RETURN_IF_ERROR(
              t.AppendReport(Report(j, 1, 1, std::string(2048, 'p'))).status());
        }
        return absl::OkStatus();
      }));
    }
    const absl::Time deadline = absl::Now() + absl::Seconds(60);
    while ((*store)->checkpoints() == 0 && absl::Now() < deadline) {
      absl::SleepFor(absl::Milliseconds(10));
    }
    EXPECT_GE((*store)->checkpoints(), 1);
    EXPECT_EQ(CountReports(**store), kReports);
  }
  auto unthreaded = SqliteStore::Open({.path = path_, .checkpoint_pages = 0});
  ASSERT_OK(unthreaded);
  EXPECT_EQ(CountReports(**unthreaded), kReports);
  EXPECT_EQ(Spent(**unthreaded), kReports);
  EXPECT_EQ((*unthreaded)->checkpoints(), 0);
}

TEST_F(SqliteStoreTest, RejectsBadOptions) {
  EXPECT_THAT(SqliteStore::Open({.path = path_, .checkpoint_pages = -1}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(SqliteStore::Open({.path = ""}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(SqliteStore::Open({.path = path_, .cache_kib = 1}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(SqliteStore::Open({.path = dir_ + "/missing/dir/x.db"}),
              StatusIs(absl::StatusCode::kInternal));
}

}  // namespace
}  // namespace ldp
