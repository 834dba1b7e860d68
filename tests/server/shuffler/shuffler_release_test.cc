// When batches leave the shuffler: never below the threshold; at it, once,
// whole, with a fresh 16-byte batch_id and the tickets' fields; at the
// deadline a batch of at least the minimum leaves and a smaller one is
// deleted; a threshold is drawn once, in range, and survives a restart.
#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <vector>

#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
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

class ShufflerReleaseTest : public ShufflerFixture {
 protected:
  ShufflerReleaseTest() : ShufflerFixture(/*seed=*/7) {}

  // Agents first..last for `task`, all expected OK.
  void SubmitAgents(uint64_t first, uint64_t last, uint64_t task = 11,
                    uint64_t min_batch = 5) {
    SubmitOk(Agents(first, last, task, min_batch));
  }
  int64_t Threshold(uint64_t task) {
    return QuerySqliteInt(db(),
                          absl::StrCat("SELECT threshold FROM batch_keys WHERE "
                                       "substr(batch_key, 17, 8) = x'",
                                       absl::StrFormat("%016x", task), "'"));
  }
  std::string db() const { return config_.db_path; }
};

TEST_F(ShufflerReleaseTest, HoldsABatchBelowItsThreshold) {
  SubmitAgents(1, 4);
  EXPECT_THAT(shuffler_->DeliverOldest(), IsOkAndHolds(DeliveryOutcome::kIdle));
  EXPECT_TRUE(sink_.attempts().empty());
  EXPECT_EQ(shuffler_->Stats().pending_reports, 4u);
}

TEST_F(ShufflerReleaseTest, DeliversABatchAtItsThresholdOnceAndWhole) {
  SubmitAgents(1, 5);
  EXPECT_THAT(shuffler_->DeliverOldest(),
              IsOkAndHolds(DeliveryOutcome::kDelivered));
  EXPECT_THAT(shuffler_->DeliverOldest(), IsOkAndHolds(DeliveryOutcome::kIdle));
  ASSERT_EQ(sink_.batches().size(), 1u);
  const FakeBatchSink::Batch batch = sink_.batches()[0];
  EXPECT_EQ(batch.header.batch_id().size(), 16u);
  EXPECT_EQ(batch.header.num_reports(), 5u);
  EXPECT_EQ(batch.header.study_id(), shuffler_testing::kStudy);
  EXPECT_EQ(batch.header.round_id(), shuffler_testing::kRound);
  EXPECT_EQ(batch.header.shuffled_task_id(), 11u);
  EXPECT_EQ(batch.header.key_id(), "keyid-08");
  EXPECT_EQ(batch.header.question_digest(), std::string(32, 'q'));
  std::multiset<uint64_t> agents;
  for (const v1::SealedPayload& payload : batch.payloads) {
    agents.insert(AgentOf(payload));
  }
  EXPECT_EQ(agents, (std::multiset<uint64_t>{1, 2, 3, 4, 5}));
  const ShufflerStats stats = shuffler_->Stats();
  EXPECT_EQ(stats.pending_reports, 0u);
  EXPECT_EQ(stats.outbox_batches, 0u);
  EXPECT_EQ(stats.batches_released, 1u);
  EXPECT_EQ(stats.batches_delivered, 1u);
  EXPECT_EQ(stats.reports_delivered, 5u);
}

TEST_F(ShufflerReleaseTest, RefusesAnAgentWhoseReportAlreadyLeft) {
  SubmitAgents(1, 5);
  // Even the identical report: its digest left with the batch.
  EXPECT_THAT(shuffler_->Submit({tickets_.Submission(3)})[0],
              StatusIs(absl::StatusCode::kAlreadyExists));
  // A new agent starts the next batch of the same key.
  SubmitAgents(6, 6);
  EXPECT_EQ(shuffler_->Stats().pending_reports, 1u);
}

TEST_F(ShufflerReleaseTest, NeverReleasesBelowTheFloor) {
  config_.min_batch_floor = 8;
  Reopen();
  SubmitAgents(1, 7, /*task=*/11, /*min_batch=*/5);
  EXPECT_EQ(shuffler_->Stats().batches_released, 0u);
  SubmitAgents(8, 8, 11, 5);
  EXPECT_EQ(shuffler_->Stats().batches_released, 1u);
  EXPECT_EQ(shuffler_->Stats().reports_released, 8u);
}

TEST_F(ShufflerReleaseTest, AppliesARaisedFloorToKeysAlreadyHeld) {
  SubmitAgents(1, 4);  // threshold 5, drawn with floor 1
  config_.min_batch_floor = 7;
  Reopen();
  SubmitAgents(5, 6);
  EXPECT_EQ(shuffler_->Stats().batches_released, 0u);
  clock_.Advance(absl::Hours(1));
  EXPECT_THAT(shuffler_->SweepDeadlines(), IsOkAndHolds(0));  // 6 < 7
  EXPECT_EQ(shuffler_->Stats().reports_expired, 6u);
}

TEST_F(ShufflerReleaseTest, DrawsThresholdsInRangeAndKeepsThemAcrossRestart) {
  config_.extra_max_fraction = 0.5;  // min 10: threshold in [10, 15]
  Reopen();
  std::set<int64_t> drawn;
  for (uint64_t task = 100; task < 140; ++task) {
    SubmitAgents(1, 1, task, 10);
    const int64_t threshold = Threshold(task);
    EXPECT_GE(threshold, 10);
    EXPECT_LE(threshold, 15);
    drawn.insert(threshold);
  }
  EXPECT_GE(drawn.size(), 4u) << "40 draws from 6 values";
  const int64_t kept = Threshold(100);
  gen_.seed(99);  // a restart draws from another stream
  Reopen();
  EXPECT_EQ(Threshold(100), kept);
  SubmitAgents(2, kept - 1, 100, 10);
  EXPECT_EQ(shuffler_->Stats().batches_released, 0u);
  SubmitAgents(kept, kept, 100, 10);
  EXPECT_EQ(shuffler_->Stats().batches_released, 1u);
  EXPECT_EQ(shuffler_->Stats().reports_released, static_cast<uint64_t>(kept));
}

TEST_F(ShufflerReleaseTest, AtTheDeadlineReleasesFromTheMinimumAndDropsBelow) {
  config_.extra_max_fraction = 1;  // min 4: threshold in [4, 8]
  Reopen();
  // A task whose drawn threshold is above its minimum (seeded: found at
  // once or after a few tries).
  uint64_t task = 200;
  for (SubmitAgents(1, 1, task, 4); Threshold(task) == 4;) {
    SubmitAgents(1, 1, ++task, 4);
  }
  SubmitAgents(2, 4, task, 4);          // 4 = the minimum, below the threshold
  SubmitAgents(1, 3, /*task=*/300, 4);  // 3: below the minimum
  EXPECT_THAT(shuffler_->SweepDeadlines(), IsOkAndHolds(0));
  EXPECT_EQ(shuffler_->Stats().batches_released, 0u);
  clock_.Advance(absl::Hours(1));
  EXPECT_THAT(shuffler_->SweepDeadlines(), IsOkAndHolds(1));
  EXPECT_THAT(shuffler_->DeliverOldest(),
              IsOkAndHolds(DeliveryOutcome::kDelivered));
  ASSERT_EQ(sink_.batches().size(), 1u);
  EXPECT_EQ(sink_.batches()[0].header.shuffled_task_id(), task);
  EXPECT_EQ(sink_.batches()[0].payloads.size(), 4u);
  EXPECT_EQ(shuffler_->Stats().reports_expired, 3u + (task - 200));
  EXPECT_EQ(shuffler_->Stats().pending_reports, 0u);
  for (const char* table : {"pending", "seen", "batch_keys"}) {
    EXPECT_EQ(
        QuerySqliteInt(db(), absl::StrCat("SELECT count(*) FROM ", table)), 0)
        << table;
  }
}

}  // namespace
}  // namespace ldp
