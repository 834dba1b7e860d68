// Retry-safe enrollment through the Aggregator on SQLite: a call that
// names a request id (agent_service.proto, EnrollRequest.request_id) and
// comes again, after a lost reply, a restart or at the same time, gets the
// agent and bearer token of the first, counted once against the token's
// quota; the same id with another count or CSR is FAILED_PRECONDITION, an
// id of the wrong length INVALID_ARGUMENT.
//
// Why a file of its own: these are the enrollment quota's rules seen from a
// retrying client, and "stored once" is checked on the database itself.
#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/notification.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/core/aggregator.h"
#include "server/store/sqlite/sqlite_store.h"
#include "tests/testing/fake_clock.h"
#include "tests/testing/sqlite_query.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using ::testing::HasSubstr;
using testing::IsOkAndHolds;
using testing::StatusIs;

constexpr char kRetryAnalystToken[] = "analyst-secret-0123456789";

// A 32-byte request id, `byte` repeated.
std::string RequestId(char byte) { return std::string(32, byte); }

class EnrollmentRetryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = ::testing::TempDir() + "ldp_retry_XXXXXX";
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    aggregator_.reset();
    std::filesystem::remove_all(dir_);
  }

  // (Re)starts the server on the same database: a restart.
  void Start(std::vector<EnrollmentQuota> quotas = {}) {
    aggregator_.reset();  // one writer per database at a time
    auto store = SqliteStore::Open({.path = db()});
    ASSERT_OK(store);
    auto aggregator = Aggregator::Create({.clock = &clock_,
                                          .analyst_token = kRetryAnalystToken,
                                          .enrollment_quotas = quotas},
                                         *std::move(store));
    ASSERT_OK(aggregator);
    aggregator_ = *std::move(aggregator);
  }

  absl::StatusOr<std::vector<Enrollment>> EnrollMany(const std::string& token,
                                                     int count,
                                                     const EnrollRetry& retry) {
    absl::StatusOr<std::vector<Enrollment>> result;
    absl::Notification done;
    aggregator_->EnrollManyAsync(
        token, count, retry, [&](absl::StatusOr<std::vector<Enrollment>> e) {
          result = std::move(e);
          done.Notify();
        });
    done.WaitForNotification();
    return result;
  }

  std::string db() const { return dir_ + "/ldp.db"; }
  // What the database holds, read on a connection of the test's own.
  int64_t StoredAgents() const {
    return testing::QuerySqliteInt(db(), "SELECT count(*) FROM agents");
  }

  std::string dir_;
  FakeClock clock_;
  std::unique_ptr<Aggregator> aggregator_;
};

// The first reply is dropped (a lost reply); the retry is answered with
// the same agent and token, and the quota counts one agent.
TEST_F(EnrollmentRetryTest, ARetryGetsTheSameAgentCountedOnce) {
  Start({{.token = "batch-a", .max_agents = 2}});
  const std::string id = RequestId('a');
  aggregator_->EnrollAsync("batch-a", {.request_id = id},
                           [](absl::StatusOr<Enrollment>) {});  // lost
  const absl::StatusOr<Enrollment> retry =
      aggregator_->Enroll("batch-a", {.request_id = id});
  ASSERT_OK(retry);
  const absl::StatusOr<Enrollment> again =
      aggregator_->Enroll("batch-a", {.request_id = id});
  ASSERT_OK(again);
  EXPECT_EQ(again->agent_id, retry->agent_id);
  EXPECT_EQ(again->bearer_token, retry->bearer_token);
  EXPECT_THAT(aggregator_->AuthenticateAgent(retry->bearer_token),
              IsOkAndHolds(retry->agent_id));
  EXPECT_EQ(StoredAgents(), 1);
  EXPECT_EQ(aggregator_->Stats().agents_enrolled, 1);
  // One slot is left, whatever the retries: a second enrollment takes it,
  // a third is refused, and the first is still answered (the quota is
  // full, but nothing new is asked of it).
  ASSERT_OK(aggregator_->Enroll("batch-a", {.request_id = RequestId('b')}));
  EXPECT_THAT(aggregator_->Enroll("batch-a", {.request_id = RequestId('c')}),
              StatusIs(absl::StatusCode::kResourceExhausted));
  EXPECT_THAT(
      aggregator_->Enroll("batch-a", {.request_id = id}),
      IsOkAndHolds(::testing::Field(&Enrollment::agent_id, retry->agent_id)));
  EXPECT_EQ(StoredAgents(), 2);
}

TEST_F(EnrollmentRetryTest, WithoutARequestIdEveryCallIsANewAgent) {
  Start();
  const absl::StatusOr<Enrollment> first = aggregator_->Enroll("");
  const absl::StatusOr<Enrollment> second = aggregator_->Enroll("");
  ASSERT_OK(first);
  ASSERT_OK(second);
  EXPECT_NE(first->agent_id, second->agent_id);
  EXPECT_EQ(StoredAgents(), 2);
}

// The server kept nothing of the reply: after a restart on the same
// database, the retry recomputes the same credential.
TEST_F(EnrollmentRetryTest, ARetryAfterARestartGetsTheSameAgent) {
  Start({{.token = "batch-a", .max_agents = 3}});
  const std::string id = RequestId('r');
  const absl::StatusOr<Enrollment> first =
      aggregator_->Enroll("batch-a", {.request_id = id});
  ASSERT_OK(first);
  Start({{.token = "batch-a", .max_agents = 3}});
  const absl::StatusOr<Enrollment> retry =
      aggregator_->Enroll("batch-a", {.request_id = id});
  ASSERT_OK(retry);
  EXPECT_EQ(retry->agent_id, first->agent_id);
  EXPECT_EQ(retry->bearer_token, first->bearer_token);
  EXPECT_THAT(aggregator_->AuthenticateAgent(first->bearer_token),
              IsOkAndHolds(first->agent_id));
  // Counted once: two more fit the quota of three.
  EXPECT_OK(aggregator_->Enroll("batch-a", {.request_id = RequestId('s')}));
  EXPECT_OK(aggregator_->Enroll("batch-a"));
  EXPECT_THAT(aggregator_->Enroll("batch-a"),
              StatusIs(absl::StatusCode::kResourceExhausted));
  EXPECT_EQ(StoredAgents(), 3);
}

TEST_F(EnrollmentRetryTest, ABatchRetryGetsTheSameAgentsInOrder) {
  Start({{.token = "relay", .max_agents = 10}});
  const std::string id = RequestId('m');
  const auto first = EnrollMany("relay", 5, {.request_id = id});
  ASSERT_OK(first);
  const auto retry = EnrollMany("relay", 5, {.request_id = id});
  ASSERT_OK(retry);
  ASSERT_EQ(retry->size(), 5u);
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ((*retry)[i].agent_id, (*first)[i].agent_id) << i;
    EXPECT_EQ((*retry)[i].bearer_token, (*first)[i].bearer_token) << i;
  }
  EXPECT_EQ(StoredAgents(), 5);
  // Another count under the same id was another request.
  for (int count : {1, 4, 6}) {
    EXPECT_THAT(EnrollMany("relay", count, {.request_id = id}),
                StatusIs(absl::StatusCode::kFailedPrecondition,
                         HasSubstr("another count or CSR")))
        << count;
  }
  EXPECT_THAT(aggregator_->Enroll("relay", {.request_id = id}),
              StatusIs(absl::StatusCode::kFailedPrecondition));
  EXPECT_EQ(StoredAgents(), 5);
  // Five slots are left: the retries took none.
  EXPECT_OK(EnrollMany("relay", 5, {}));
}

TEST_F(EnrollmentRetryTest, TheSameIdWithAnotherCsrIsRefused) {
  Start();
  const std::string id = RequestId('c');
  const absl::StatusOr<Enrollment> first =
      aggregator_->Enroll("", {.request_id = id, .csr_pem = "csr one"});
  ASSERT_OK(first);
  EXPECT_THAT(aggregator_->Enroll("", {.request_id = id, .csr_pem = "csr 2"}),
              StatusIs(absl::StatusCode::kFailedPrecondition));
  EXPECT_THAT(aggregator_->Enroll("", {.request_id = id}),
              StatusIs(absl::StatusCode::kFailedPrecondition));
  EXPECT_THAT(aggregator_->Enroll("", {.request_id = id, .csr_pem = "csr one"}),
              IsOkAndHolds(::testing::Field(&Enrollment::bearer_token,
                                            first->bearer_token)));
  EXPECT_EQ(StoredAgents(), 1);
}

// The id names an enrollment with its token: under another token it is
// another enrollment, and the two credentials differ.
TEST_F(EnrollmentRetryTest, TheSameIdUnderAnotherTokenIsAnotherAgent) {
  Start({{.token = "batch-a", .max_agents = 5},
         {.token = "batch-b", .max_agents = 5}});
  const std::string id = RequestId('t');
  const absl::StatusOr<Enrollment> a =
      aggregator_->Enroll("batch-a", {.request_id = id});
  const absl::StatusOr<Enrollment> b =
      aggregator_->Enroll("batch-b", {.request_id = id});
  ASSERT_OK(a);
  ASSERT_OK(b);
  EXPECT_NE(a->agent_id, b->agent_id);
  EXPECT_NE(a->bearer_token.substr(a->bearer_token.find('.')),
            b->bearer_token.substr(b->bearer_token.find('.')));
  EXPECT_THAT(aggregator_->Enroll("batch-c", {.request_id = id}),
              StatusIs(absl::StatusCode::kUnauthenticated));
}

TEST_F(EnrollmentRetryTest, AnIdOfTheWrongLengthIsInvalid) {
  Start();
  for (size_t size : {size_t{1}, size_t{15}, size_t{65}, size_t{1000}}) {
    EXPECT_THAT(aggregator_->Enroll("", {.request_id = std::string(size, 'x')}),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr("16 to 64 bytes")))
        << size;
    EXPECT_THAT(EnrollMany("", 2, {.request_id = std::string(size, 'x')}),
                StatusIs(absl::StatusCode::kInvalidArgument))
        << size;
  }
  EXPECT_EQ(StoredAgents(), 0);
  EXPECT_OK(aggregator_->Enroll("", {.request_id = std::string(16, 'x')}));
  EXPECT_OK(aggregator_->Enroll("", {.request_id = std::string(64, 'x')}));
  EXPECT_EQ(StoredAgents(), 2);
}

// Duplicates at the same moment (a client that timed out and tried again
// while its first call was queued) meet in one commit or in two: either
// way one agent, and every caller gets it.
TEST_F(EnrollmentRetryTest, ConcurrentDuplicatesEnrollOneAgent) {
  Start({{.token = "batch-a", .max_agents = 100}});
  constexpr int kCallers = 8;
  for (char round : {'1', '2', '3'}) {
    const std::string id = RequestId(round);
    std::vector<absl::StatusOr<Enrollment>> results(kCallers);
    std::vector<std::thread> callers;
    for (int c = 0; c < kCallers; ++c) {
      callers.emplace_back([&, c] {
        results[c] = aggregator_->Enroll("batch-a", {.request_id = id});
      });
    }
    for (std::thread& caller : callers) caller.join();
    for (const auto& result : results) {
      ASSERT_OK(result);
      EXPECT_EQ(result->agent_id, results[0]->agent_id);
      EXPECT_EQ(result->bearer_token, results[0]->bearer_token);
    }
  }
  EXPECT_EQ(StoredAgents(), 3);
  EXPECT_EQ(aggregator_->Stats().agents_enrolled, 3);
}

}  // namespace
}  // namespace ldp
