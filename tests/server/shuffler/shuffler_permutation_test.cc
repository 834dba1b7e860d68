// The shuffle is uniform: Fisher–Yates itself over all orders of a small
// list, and end to end, where the first report submitted to each batch
// must land at every position of the delivered batch equally often (the
// order of arrival, and the agents' ids, must not show through).
//
// Pearson χ² against the uniform expectation at the suite's false-failure
// rate of 1e-6 (tests/testing/statistics.h), with fixed seeds.
#include <algorithm>
#include <map>
#include <memory>
#include <numeric>
#include <vector>

#include "gtest/gtest.h"
#include "server/shuffler/core/permutation.h"
#include "server/shuffler/core/shuffler.h"
#include "tests/server/shuffler/shuffler_test_support.h"
#include "tests/testing/statistics.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using ::ldp::shuffler_testing::AgentOf;
using ::ldp::shuffler_testing::FakeBatchSink;
using ::ldp::shuffler_testing::TestShufflerConfig;
using ::ldp::shuffler_testing::TicketFactory;
using ::ldp::testing::ChiSquare;
using ::ldp::testing::ChiSquareCritical;
using ::ldp::testing::ChiSquareResult;
using ::ldp::testing::SeededGenerator;

// All 3! = 6 orders, 6000 shuffles: 1000 expected each, χ²(5).
TEST(ShuffleInPlaceTest, DrawsEveryOrderOfThreeEquallyOften) {
  SeededGenerator gen(314159);
  std::map<std::vector<int>, double> counts;
  constexpr int kTrials = 6000;
  for (int trial = 0; trial < kTrials; ++trial) {
    std::vector<int> items = {0, 1, 2};
    ShuffleInPlace(items, gen);
    counts[items] += 1;
  }
  ASSERT_EQ(counts.size(), 6u);
  std::vector<double> observed, expected;
  for (const auto& [order, count] : counts) {
    observed.push_back(count);
    expected.push_back(kTrials / 6.0);
  }
  const ChiSquareResult chi = ChiSquare(observed, expected);
  EXPECT_TRUE(chi.Passes())
      << chi.statistic << " > " << ChiSquareCritical(chi.degrees_of_freedom);
}

TEST(ShuffleInPlaceTest, LeavesTinyListsAlone) {
  SeededGenerator gen(1);
  std::vector<int> none;
  ShuffleInPlace(none, gen);
  std::vector<int> one = {5};
  ShuffleInPlace(one, gen);
  EXPECT_EQ(one, std::vector<int>{5});
}

// 400 batches of 8 through the whole shuffler: the first-submitted report
// (also the lowest agent id, the order the database reads pending rows
// in) is at each of the 8 positions 50 times in expectation, χ²(7); and
// hardly any batch comes out in submission order (expected 400/8! ≈ 0.01).
TEST(ShufflerPermutationTest, FirstSubmittedReportLandsAnywhere) {
  ldp::testing::TempDirectory dir;
  FakeClock clock;
  TicketFactory tickets(&clock);
  SeededGenerator gen(271828);
  FakeBatchSink sink;
  absl::StatusOr<std::unique_ptr<Shuffler>> shuffler = Shuffler::Create(
      TestShufflerConfig(dir.path(), tickets, &clock), &sink, gen);
  ASSERT_OK(shuffler);
  constexpr int kBatches = 400, kSize = 8, kBatchesPerCall = 50;
  for (int call = 0; call < kBatches / kBatchesPerCall; ++call) {
    std::vector<v1::ShuffleSubmission> submissions;
    for (int b = 0; b < kBatchesPerCall; ++b) {
      const uint64_t task = 1000 + call * kBatchesPerCall + b;
      for (uint64_t agent = 1; agent <= kSize; ++agent) {
        submissions.push_back(tickets.Submission(agent, task, kSize));
      }
    }
    for (const absl::Status& ack : (*shuffler)->Submit(submissions)) {
      ASSERT_OK(ack);
    }
  }
  while (*(*shuffler)->DeliverOldest() == DeliveryOutcome::kDelivered) {
  }
  ASSERT_EQ(sink.batches().size(), static_cast<size_t>(kBatches));
  std::vector<double> first_at(kSize, 0);
  int in_submission_order = 0;
  for (const FakeBatchSink::Batch& batch : sink.batches()) {
    std::vector<uint64_t> agents;
    for (const v1::SealedPayload& p : batch.payloads)
      agents.push_back(AgentOf(p));
    ASSERT_EQ(agents.size(), static_cast<size_t>(kSize));
    first_at[std::find(agents.begin(), agents.end(), 1) - agents.begin()] += 1;
    in_submission_order += std::is_sorted(agents.begin(), agents.end());
  }
  const ChiSquareResult chi =
      ChiSquare(first_at, std::vector<double>(kSize, kBatches / kSize));
  EXPECT_EQ(chi.degrees_of_freedom, kSize - 1);
  EXPECT_TRUE(chi.Passes())
      << chi.statistic << " > " << ChiSquareCritical(chi.degrees_of_freedom);
  EXPECT_LE(in_submission_order, 2);
}

}  // namespace
}  // namespace ldp
