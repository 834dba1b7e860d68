// What survives: a restart loses no acknowledged report and delivers each
// once; a failed delivery is retried with the same batch_id, a final
// refusal drops the batch; and once a batch left, nothing in the database
// ties an agent to a payload.
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <set>
#include <vector>

#include "absl/strings/match.h"
#include "common/crypto/sha256.h"
#include "gtest/gtest.h"
#include "server/shuffler/core/batch_key.h"
#include "server/shuffler/core/shuffler.h"
#include "tests/server/shuffler/shuffler_test_support.h"
#include "tests/testing/sqlite_query.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using ::ldp::shuffler_testing::AgentOf;
using ::ldp::shuffler_testing::FakeBatchSink;
using ::ldp::shuffler_testing::ShufflerFixture;
using ::ldp::testing::IsOkAndHolds;
using ::ldp::testing::QuerySqliteInt;
using ::ldp::testing::StatusIs;

class ShufflerDeliveryTest : public ShufflerFixture {
 protected:
  ShufflerDeliveryTest() : ShufflerFixture(/*seed=*/11) {}

  // (task, agent) of every delivered payload, with its count.
  std::map<std::pair<uint64_t, uint64_t>, int> Delivered() const {
    std::map<std::pair<uint64_t, uint64_t>, int> seen;
    for (const FakeBatchSink::Batch& batch : sink_.batches()) {
      for (const v1::SealedPayload& payload : batch.payloads) {
        ++seen[{batch.header.shuffled_task_id(), AgentOf(payload)}];
      }
    }
    return seen;
  }
};

TEST_F(ShufflerDeliveryTest, RestartLosesNoAcknowledgedReport) {
  SubmitOk(Agents(1, 5, /*task=*/11));  // released, not yet delivered
  SubmitOk(Agents(1, 3, /*task=*/12));  // pending
  Reopen();
  EXPECT_EQ(shuffler_->Stats().pending_reports, 3u);
  EXPECT_EQ(shuffler_->Stats().outbox_batches, 1u);
  // Still held: the same report is a retry, another is refused.
  EXPECT_OK(shuffler_->Submit({tickets_.Submission(2, 12, 5)})[0]);
  EXPECT_THAT(shuffler_->Submit({tickets_.Submission(2, 12, 5, "x")})[0],
              StatusIs(absl::StatusCode::kAlreadyExists));
  SubmitOk(Agents(4, 5, /*task=*/12));
  Reopen();
  while (*shuffler_->DeliverOldest() == DeliveryOutcome::kDelivered) {
  }
  std::map<std::pair<uint64_t, uint64_t>, int> expected;
  for (uint64_t task : {11, 12}) {
    for (uint64_t agent = 1; agent <= 5; ++agent) expected[{task, agent}] = 1;
  }
  EXPECT_EQ(Delivered(), expected);
}

TEST_F(ShufflerDeliveryTest, RetriesAFailedDeliveryWithTheSameBatchId) {
  SubmitOk(Agents(1, 5));
  sink_.FailNext(absl::UnavailableError("server down"), 2);
  EXPECT_THAT(shuffler_->DeliverOldest(),
              StatusIs(absl::StatusCode::kUnavailable));
  Reopen();  // the batch_id is stored, not drawn per attempt
  sink_.FailNext(absl::PermissionDeniedError("not a trusted shuffler yet"));
  EXPECT_THAT(shuffler_->DeliverOldest(),
              StatusIs(absl::StatusCode::kUnavailable));
  EXPECT_THAT(shuffler_->DeliverOldest(),
              StatusIs(absl::StatusCode::kPermissionDenied));
  EXPECT_THAT(shuffler_->DeliverOldest(),
              IsOkAndHolds(DeliveryOutcome::kDelivered));
  const std::vector<std::string> attempts = sink_.attempts();
  ASSERT_EQ(attempts.size(), 4u);
  EXPECT_EQ(std::set<std::string>(attempts.begin(), attempts.end()).size(), 1u);
  EXPECT_EQ(sink_.batches().size(), 1u);
  EXPECT_EQ(shuffler_->Stats().delivery_failures, 2u);  // since the reopen
}

TEST_F(ShufflerDeliveryTest, DropsABatchTheServerRefusesForGood) {
  SubmitOk(Agents(1, 5, 11));
  SubmitOk(Agents(1, 5, 12));
  sink_.FailNext(absl::FailedPreconditionError("round closed"));
  EXPECT_THAT(shuffler_->DeliverOldest(),
              IsOkAndHolds(DeliveryOutcome::kDropped));
  EXPECT_THAT(shuffler_->DeliverOldest(),
              IsOkAndHolds(DeliveryOutcome::kDelivered));
  EXPECT_THAT(shuffler_->DeliverOldest(), IsOkAndHolds(DeliveryOutcome::kIdle));
  ASSERT_EQ(sink_.batches().size(), 1u);
  EXPECT_EQ(sink_.batches()[0].header.shuffled_task_id(), 12u);
  EXPECT_EQ(shuffler_->Stats().batches_dropped, 1u);
}

TEST_F(ShufflerDeliveryTest, SenderThreadRetriesUntilDelivered) {
  config_.run_sender = true;
  config_.retry_initial_backoff = absl::Milliseconds(1);
  config_.retry_max_backoff = absl::Milliseconds(4);
  config_.sweep_interval = absl::Milliseconds(5);
  Reopen();
  sink_.FailNext(absl::UnavailableError("server down"), 3);
  SubmitOk(Agents(1, 5));
  // No bound on speed: wait (up to a generous minute) for the outcome.
  for (int i = 0; i < 6000 && sink_.batches().empty(); ++i) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  ASSERT_EQ(sink_.batches().size(), 1u);
  EXPECT_EQ(sink_.attempts().size(), 4u);
  EXPECT_EQ(sink_.batches()[0].payloads.size(), 5u);
}

// Every payload's digest was stored beside its agent id while pending;
// after the release no table, and no byte of the database or its log,
// still holds one.
TEST_F(ShufflerDeliveryTest, KeepsNoAgentIdBesidePayloadsAfterRelease) {
  const std::vector<v1::ShuffleSubmission> submissions = Agents(1, 5);
  // Four committed while pending (rows with agent id, payload and digest
  // in the file), then the fifth releases them.
  SubmitOk({submissions.begin(), submissions.begin() + 4});
  EXPECT_EQ(QuerySqliteInt(config_.db_path, "SELECT count(*) FROM pending"), 4);
  SubmitOk({submissions.back()});
  const std::string db = config_.db_path;
  EXPECT_EQ(QuerySqliteInt(db, "SELECT count(*) FROM pending"), 0);
  EXPECT_EQ(QuerySqliteInt(db, "SELECT count(*) FROM outbox_payloads"), 5);
  EXPECT_EQ(QuerySqliteInt(db, "SELECT count(*) FROM seen"), 5);
  // Tables with agent ids hold no payload, and none records a time.
  EXPECT_EQ(
      QuerySqliteInt(
          db,
          "SELECT count(*) FROM sqlite_master m, pragma_table_info(m.name) "
          "c WHERE m.type = 'table' AND c.name IN ('enc', 'ciphertext', "
          "'digest') AND m.name IN (SELECT m2.name FROM sqlite_master m2, "
          "pragma_table_info(m2.name) c2 WHERE c2.name = 'agent_id') AND "
          "m.name != 'pending'"),
      0);
  EXPECT_EQ(QuerySqliteInt(db,
                           "SELECT count(*) FROM sqlite_master m, "
                           "pragma_table_info(m.name) c WHERE m.type = "
                           "'table' AND c.name LIKE '%time%'"),
            0);
  std::string bytes;
  for (const std::string& file : {db, db + "-wal"}) {
    std::ifstream in(file, std::ios::binary);
    bytes.append(std::istreambuf_iterator<char>(in), {});
  }
  ASSERT_FALSE(bytes.empty());
  for (const v1::ShuffleSubmission& submission : submissions) {
    absl::StatusOr<std::string> digest = PayloadDigest(submission.sealed());
    ASSERT_OK(digest);
    EXPECT_FALSE(absl::StrContains(bytes, *digest))
        << "a released payload's digest is still in the file";
  }
}

}  // namespace
}  // namespace ldp
