// Enrollment quotas: a token admits at most its quota of agents, in total,
// across restarts and under concurrency; a wrong token is UNAUTHENTICATED,
// an exhausted one RESOURCE_EXHAUSTED. Also the store upgrade that added
// the per-agent enrollment batch.
#include <sqlite3.h>
#include <stdlib.h>

#include <atomic>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/blocking_counter.h"
#include "absl/synchronization/notification.h"
#include "common/base/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/core/aggregator.h"
#include "server/store/sqlite/sqlite_store.h"
#include "tests/server/core/test_studies.h"
#include "tests/testing/fake_clock.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using testing::StatusIs;

constexpr char kAnalystToken[] = "analyst-secret-0123456789";

class EnrollmentQuotaTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = ::testing::TempDir() + "ldp_quota_XXXXXX";
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    aggregator_.reset();
    std::filesystem::remove_all(dir_);
  }

  absl::StatusOr<std::unique_ptr<Aggregator>> Make(
      std::vector<EnrollmentQuota> quotas, std::string single_token = "") {
    auto store = SqliteStore::Open({.path = dir_ + "/ldp.db"});
    if (!store.ok()) return store.status();
    return Aggregator::Create({.clock = &clock_,
                               .analyst_token = kAnalystToken,
                               .enrollment_token = std::move(single_token),
                               .enrollment_quotas = std::move(quotas)},
                              *std::move(store));
  }
  void Start(std::vector<EnrollmentQuota> quotas,
             std::string single_token = "") {
    aggregator_.reset();  // one writer per database at a time
    auto aggregator = Make(std::move(quotas), std::move(single_token));
    ASSERT_OK(aggregator);
    aggregator_ = *std::move(aggregator);
  }

  std::string dir_;
  FakeClock clock_;
  std::unique_ptr<Aggregator> aggregator_;
};

TEST_F(EnrollmentQuotaTest, ATokenAdmitsItsQuotaAndNoMore) {
  Start({{.token = "batch-a", .max_agents = 3},
         {.token = "batch-b", .max_agents = 1}});
  for (int i = 0; i < 3; ++i) EXPECT_OK(aggregator_->Enroll("batch-a")) << i;
  EXPECT_THAT(aggregator_->Enroll("batch-a"),
              StatusIs(absl::StatusCode::kResourceExhausted));
  // Another batch is unaffected; a wrong token is not a quota matter.
  EXPECT_OK(aggregator_->Enroll("batch-b"));
  EXPECT_THAT(aggregator_->Enroll("batch-b"),
              StatusIs(absl::StatusCode::kResourceExhausted));
  EXPECT_THAT(aggregator_->Enroll("batch-c"),
              StatusIs(absl::StatusCode::kUnauthenticated));
  EXPECT_THAT(aggregator_->Enroll(""),
              StatusIs(absl::StatusCode::kUnauthenticated));
}

// A relay's batch enrollment takes its whole count from the quota, all or
// none, and the agents it creates survive a restart like single ones.
TEST_F(EnrollmentQuotaTest, BatchEnrollmentTakesItsCountAllOrNone) {
  Start({{.token = "batch-a", .max_agents = 10}});
  const auto enroll_many = [&](int count) {
    absl::StatusOr<std::vector<Enrollment>> result;
    absl::Notification done;
    aggregator_->EnrollManyAsync(
        "batch-a", count, [&](absl::StatusOr<std::vector<Enrollment>> e) {
          result = std::move(e);
          done.Notify();
        });
    done.WaitForNotification();
    return result;
  };
  absl::StatusOr<std::vector<Enrollment>> first = enroll_many(8);
  ASSERT_OK(first);
  ASSERT_EQ(first->size(), 8u);
  for (const Enrollment& e : *first) {
    EXPECT_THAT(aggregator_->AuthenticateAgent(e.bearer_token),
                testing::IsOkAndHolds(e.agent_id));
  }
  EXPECT_THAT(enroll_many(3), StatusIs(absl::StatusCode::kResourceExhausted));
  EXPECT_THAT(enroll_many(0), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(enroll_many(1001), StatusIs(absl::StatusCode::kInvalidArgument));
  ASSERT_OK(enroll_many(2));
  EXPECT_THAT(aggregator_->Enroll("batch-a"),
              StatusIs(absl::StatusCode::kResourceExhausted));
  Start({{.token = "batch-a", .max_agents = 10}});
  EXPECT_THAT(aggregator_->Enroll("batch-a"),
              StatusIs(absl::StatusCode::kResourceExhausted));
  EXPECT_OK(aggregator_->AuthenticateAgent(first->back().bearer_token));
}

TEST_F(EnrollmentQuotaTest, CountsSurviveARestart) {
  Start({{.token = "batch-a", .max_agents = 3}});
  EXPECT_OK(aggregator_->Enroll("batch-a"));
  EXPECT_OK(aggregator_->Enroll("batch-a"));
  Start({{.token = "batch-a", .max_agents = 3}});
  EXPECT_OK(aggregator_->Enroll("batch-a"));
  EXPECT_THAT(aggregator_->Enroll("batch-a"),
              StatusIs(absl::StatusCode::kResourceExhausted));
  // Raising the quota in the configuration admits exactly the difference.
  Start({{.token = "batch-a", .max_agents = 4}});
  EXPECT_OK(aggregator_->Enroll("batch-a"));
  EXPECT_THAT(aggregator_->Enroll("batch-a"),
              StatusIs(absl::StatusCode::kResourceExhausted));
}

TEST_F(EnrollmentQuotaTest, ConcurrentEnrollmentsNeverOvershoot) {
  constexpr int kQuota = 50;
  constexpr int kAttempts = 200;
  Start({{.token = "batch", .max_agents = kQuota}});
  std::atomic<int> admitted{0}, exhausted{0}, other{0};
  absl::BlockingCounter pending(kAttempts);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kAttempts / 4; ++i) {
        aggregator_->EnrollAsync("batch", [&](absl::StatusOr<Enrollment> e) {
          if (e.ok()) {
            ++admitted;
          } else if (e.status().code() ==
                     absl::StatusCode::kResourceExhausted) {
            ++exhausted;
          } else {
            ++other;
          }
          pending.DecrementCount();
        });
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  pending.Wait();
  EXPECT_EQ(admitted.load(), kQuota);
  EXPECT_EQ(exhausted.load(), kAttempts - kQuota);
  EXPECT_EQ(other.load(), 0);
  Start({{.token = "batch", .max_agents = kQuota}});
  EXPECT_THAT(aggregator_->Enroll("batch"),
              StatusIs(absl::StatusCode::kResourceExhausted));
}

TEST_F(EnrollmentQuotaTest, TheSingleTokenStaysUnlimitedBesideQuotas) {
  Start({{.token = "batch", .max_agents = 1}}, "shared-token");
  for (int i = 0; i < 20; ++i) EXPECT_OK(aggregator_->Enroll("shared-token"));
  EXPECT_OK(aggregator_->Enroll("batch"));
  EXPECT_THAT(aggregator_->Enroll("batch"),
              StatusIs(absl::StatusCode::kResourceExhausted));
}

TEST_F(EnrollmentQuotaTest, UnusableQuotasAreRefused) {
  EXPECT_THAT(Make({{.token = "a", .max_agents = 0}}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(Make({{.token = "", .max_agents = 5}}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(
      Make({{.token = "a", .max_agents = 1}, {.token = "a", .max_agents = 2}}),
      StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(Make({{.token = "a", .max_agents = 1}}, "a"),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

// A database written before enrollment batches existed (schema version 1)
// opens, keeps its agents (as openly enrolled), and takes new ones.
TEST_F(EnrollmentQuotaTest, AVersionOneStoreIsUpgraded) {
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open((dir_ + "/ldp.db").c_str(), &db), SQLITE_OK);
    const char* v1 = R"sql(
      CREATE TABLE agents(agent_id INTEGER PRIMARY KEY,
        credential_hash BLOB NOT NULL, enrolled_at INTEGER NOT NULL);
      CREATE TABLE studies(study_id INTEGER PRIMARY KEY, spec BLOB NOT NULL,
        request_id TEXT UNIQUE, state INTEGER NOT NULL, created_at INTEGER NOT NULL);
      CREATE TABLE rounds(round_id INTEGER PRIMARY KEY, study_id INTEGER NOT NULL,
        state INTEGER NOT NULL, start_time INTEGER NOT NULL,
        deadline INTEGER NOT NULL, plan BLOB NOT NULL);
      CREATE TABLE reports(task_id INTEGER PRIMARY KEY, round_id INTEGER NOT NULL,
        agent_id INTEGER NOT NULL, report_id BLOB NOT NULL, payload BLOB NOT NULL,
        received_at INTEGER NOT NULL);
      CREATE TABLE ledger(agent_id INTEGER NOT NULL, study_id INTEGER NOT NULL,
        spent_nanos INTEGER NOT NULL, cap_nanos INTEGER NOT NULL,
        PRIMARY KEY(agent_id, study_id)) WITHOUT ROWID;
      INSERT INTO agents VALUES(1, zeroblob(32), 0);
      PRAGMA user_version=1;)sql";
    ASSERT_EQ(sqlite3_exec(db, v1, nullptr, nullptr, nullptr), SQLITE_OK)
        << sqlite3_errmsg(db);
    sqlite3_close(db);
  }
  auto store = SqliteStore::Open({.path = dir_ + "/ldp.db"});
  ASSERT_OK(store);
  std::vector<AgentRow> agents;
  ASSERT_OK((*store)->ForEachAgent([&](const AgentRow& row) {
    agents.push_back(row);
    return absl::OkStatus();
  }));
  ASSERT_EQ(agents.size(), 1u);
  EXPECT_EQ(agents[0].agent_id, 1u);
  EXPECT_EQ(agents[0].enrollment_batch, "");
  store->reset();
  Start({{.token = "batch", .max_agents = 1}});
  absl::StatusOr<Enrollment> fresh = aggregator_->Enroll("batch");
  ASSERT_OK(fresh);
  EXPECT_EQ(fresh->agent_id, 2u);
}

}  // namespace
}  // namespace ldp
