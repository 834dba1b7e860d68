#include "server/core/agent_registry.h"

#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "absl/synchronization/notification.h"
#include "common/base/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/store/sqlite/sqlite_store.h"
#include "tests/server/core/test_studies.h"
#include "tests/testing/fake_clock.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using ::ldp::testing::StatusIs;
using ::testing::HasSubstr;

// An AgentRegistry over a SQLite store in a fresh directory, with its own
// writer queue; Restart() opens the same database again.
class AgentRegistryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = ::testing::TempDir() + "ldp_agents_XXXXXX";
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    options_ = {.clock = &clock_,
                .analyst_token = "analyst-secret-0123456789",
                .max_reports_per_call = 10};
  }
  void TearDown() override {
    Stop();
    std::filesystem::remove_all(dir_);
  }

  void Start(std::vector<EnrollmentQuota> quotas, std::string token = "") {
    Stop();
    options_.enrollment_quotas = std::move(quotas);
    options_.enrollment_token = std::move(token);
    auto store = SqliteStore::Open({.path = dir_ + "/ldp.db"});
    ASSERT_OK(store);
    store_ = *std::move(store);
    queue_ =
        std::make_unique<CommitLanes>(store_.get(), 100, nullptr, nullptr, 0);
    context_ = std::make_unique<AggregatorContext>(
        AggregatorContext{.options = options_,
                          .store = *store_,
                          .lanes = *queue_,
                          .stats = stats_});
    auto random = SecureRandom::Create();
    ASSERT_OK(random);
    registry_ = std::make_unique<AgentRegistry>(*context_, *std::move(random));
    ASSERT_OK(registry_->LoadFromStore());
  }
  void Stop() {
    if (queue_ != nullptr) queue_->Stop();
    registry_.reset();
    context_.reset();
    queue_.reset();
    store_.reset();
  }

  absl::StatusOr<std::vector<Enrollment>> EnrollMany(std::string_view token,
                                                     int count) {
    absl::StatusOr<std::vector<Enrollment>> result;
    absl::Notification done;
    registry_->EnrollManyAsync(
        token, count, [&](absl::StatusOr<std::vector<Enrollment>> enrolled) {
          result = std::move(enrolled);
          done.Notify();
        });
    done.WaitForNotification();
    return result;
  }
  absl::StatusOr<Enrollment> Enroll(std::string_view token) {
    absl::StatusOr<Enrollment> result;
    absl::Notification done;
    registry_->EnrollAsync(token, [&](absl::StatusOr<Enrollment> enrolled) {
      result = std::move(enrolled);
      done.Notify();
    });
    done.WaitForNotification();
    return result;
  }

  std::string dir_;
  FakeClock clock_;
  AggregatorOptions options_;
  ServerStats stats_;
  std::unique_ptr<SqliteStore> store_;
  std::unique_ptr<CommitLanes> queue_;
  std::unique_ptr<AggregatorContext> context_;
  std::unique_ptr<AgentRegistry> registry_;
};

TEST_F(AgentRegistryTest, AnEnrolledAgentAuthenticatesWithItsTokenOnly) {
  Start({});
  absl::StatusOr<Enrollment> agent = Enroll("anything: enrollment is open");
  ASSERT_OK(agent);
  EXPECT_TRUE(registry_->Contains(agent->agent_id));
  EXPECT_THAT(registry_->Authenticate(agent->bearer_token),
              ::ldp::testing::IsOkAndHolds(agent->agent_id));
  std::string forged = agent->bearer_token;
  forged.back() = forged.back() == '0' ? '1' : '0';
  EXPECT_THAT(registry_->Authenticate(forged),
              StatusIs(absl::StatusCode::kUnauthenticated));
  EXPECT_EQ(registry_->size(), 1);
}

TEST_F(AgentRegistryTest, AQuotaAdmitsItsAgentsAndNoMore) {
  Start({{.token = "batch-a", .max_agents = 3}});
  EXPECT_OK(EnrollMany("batch-a", 2));
  EXPECT_THAT(
      EnrollMany("batch-a", 2),
      StatusIs(absl::StatusCode::kResourceExhausted, HasSubstr("has 1 left")));
  EXPECT_OK(Enroll("batch-a"));
  EXPECT_THAT(Enroll("batch-a"),
              StatusIs(absl::StatusCode::kResourceExhausted));
  EXPECT_THAT(Enroll("batch-b"), StatusIs(absl::StatusCode::kUnauthenticated));
}

TEST_F(AgentRegistryTest, ABatchIsOneToMaxReportsPerCallAgents) {
  Start({});
  EXPECT_THAT(EnrollMany("", 0), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(EnrollMany("", 11), StatusIs(absl::StatusCode::kInvalidArgument));
  absl::StatusOr<std::vector<Enrollment>> agents = EnrollMany("", 10);
  ASSERT_OK(agents);
  for (size_t i = 1; i < agents->size(); ++i) {
    EXPECT_EQ((*agents)[i].agent_id, (*agents)[i - 1].agent_id + 1);
  }
}

// The quota counts what is stored, so a restart cannot reset it; ids and
// credentials survive too.
TEST_F(AgentRegistryTest, ARestartKeepsAgentsQuotasAndIds) {
  Start({{.token = "batch-a", .max_agents = 3}});
  absl::StatusOr<std::vector<Enrollment>> before = EnrollMany("batch-a", 2);
  ASSERT_OK(before);
  Start({{.token = "batch-a", .max_agents = 3}});
  EXPECT_THAT(registry_->Authenticate(before->front().bearer_token),
              ::ldp::testing::IsOkAndHolds(before->front().agent_id));
  absl::StatusOr<Enrollment> after = Enroll("batch-a");
  ASSERT_OK(after);
  EXPECT_EQ(after->agent_id, before->back().agent_id + 1);
  EXPECT_THAT(Enroll("batch-a"),
              StatusIs(absl::StatusCode::kResourceExhausted));
}

TEST_F(AgentRegistryTest, TheBudgetOfAnUnknownAgentIsNotFound) {
  Start({});
  EXPECT_THAT(registry_->GetBudget(12345, 0),
              StatusIs(absl::StatusCode::kNotFound));
  absl::StatusOr<Enrollment> agent = Enroll("");
  ASSERT_OK(agent);
  EXPECT_THAT(registry_->GetBudget(agent->agent_id, 0),
              ::ldp::testing::IsOkAndHolds(::testing::IsEmpty()));
  EXPECT_THAT(registry_->Knows(agent->agent_id),
              ::ldp::testing::IsOkAndHolds(true));
}

}  // namespace
}  // namespace ldp
