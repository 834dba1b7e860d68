// BatchStatistics and RoundRuntime::MergeDelta: a batch's reports summed
// apart and merged into the round count exactly as the same reports
// counted one by one, once per delta id, and as bytes (a delta another
// server reads) they merge to the same again.
#include "server/rounds/batch_statistics.h"

#include <algorithm>
#include <memory>
#include <vector>

#include "common/tasks/task_id.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/rounds/round_runtime.h"
#include "server/rounds/round_states.h"
#include "tests/server/core/test_studies.h"
#include "tests/testing/statistics.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using testing::BucketHistogram;
using ::testing::ElementsAre;
using testing::IsOkAndHolds;
using testing::MakeStudy;
using testing::MeanQuestion;

std::shared_ptr<RoundRuntime> SharedRound(uint64_t round_id = 3) {
  auto spec = std::make_shared<const StudySpec>(MakeStudy(
      kNanosPerEpsilon, {MeanQuestion("m", "x", -1, 1), BucketHistogram("h")}));
  const RoundRow row{.round_id = round_id,
                     .study_id = 2,
                     .state = RoundState::kOpen,
                     .start_time = absl::FromUnixSeconds(100),
                     .deadline = absl::FromUnixSeconds(200)};
  return std::make_shared<RoundRuntime>(row, spec, *RoundPlan::Create(*spec));
}

// `n` reports of agents 1..n, question (agent mod 2), randomized with seed 7.
std::vector<ReportPayload> SeededPayloads(const RoundRuntime& round, int n) {
  testing::SeededGenerator gen(7);
  std::vector<ReportPayload> payloads;
  for (int agent = 1; agent <= n; ++agent) {
    const Record record{.values = {{"x", 0.25 * (agent % 5) - 0.5},
                                   {"bucket", int64_t{agent % 4}}}};
    payloads.push_back(round.mechanism(agent % 2).Randomize(record, gen));
  }
  return payloads;
}

void ExpectSameRoundEstimates(const RoundRuntime& a, const RoundRuntime& b) {
  const auto ma = std::get<ScalarEstimate>(a.Estimate(0, 0.95));
  const auto mb = std::get<ScalarEstimate>(b.Estimate(0, 0.95));
  EXPECT_EQ(ma.num_reports, mb.num_reports);
  EXPECT_EQ(ma.value, mb.value);
  EXPECT_EQ(ma.standard_error, mb.standard_error);
  const auto ha = std::get<HistogramEstimate>(a.Estimate(1, 0.95));
  const auto hb = std::get<HistogramEstimate>(b.Estimate(1, 0.95));
  EXPECT_EQ(ha.num_reports, hb.num_reports);
  EXPECT_EQ(ha.frequencies, hb.frequencies);
  EXPECT_EQ(ha.variances, hb.variances);
}

TEST(BatchStatistics, MergedBatchesCountAsReportsOneByOne) {
  constexpr int kReports = 40;
  const auto one_by_one = SharedRound();
  const auto batched = SharedRound();
  const auto from_bytes = SharedRound();
  const std::vector<ReportPayload> payloads =
      SeededPayloads(*one_by_one, kReports);
  for (int i = 0; i < kReports; ++i) {
    const int agent = i + 1;
    const uint64_t task = PackTaskId({.round_id = 3,
                                      .agent_id = static_cast<uint64_t>(agent),
                                      .question = uint32_t(agent % 2)});
    ASSERT_OK(one_by_one->Accumulate(task, agent % 2, payloads[i]));
  }
  // Three batches of uneven sizes; each also read back from its bytes.
  for (const auto& [begin, end] : {std::pair{0, 13}, {13, 14}, {14, 40}}) {
    BatchStatistics batch;
    for (int i = begin; i < end; ++i) {
      ASSERT_OK(batch.Add(batched, (i + 1) % 2, i + 1, payloads[i]));
    }
    absl::StatusOr<std::vector<DeltaRow>> made = batch.Deltas();
    ASSERT_OK(made);
    const std::vector<DeltaRow>& deltas = *made;
    ASSERT_EQ(deltas.size(), 1u);
    EXPECT_EQ(deltas[0].round_id, 3u);
    EXPECT_EQ(deltas[0].agent_id, static_cast<uint64_t>(begin + 1));
    EXPECT_NE(deltas[0].delta_id, 0u);
    EXPECT_LT(deltas[0].delta_id, uint64_t{1} << 63);
    ASSERT_OK(batch.MergeIntoRounds());
    std::vector<TaskAccumulator> read = EmptyAccumulators(*from_bytes);
    absl::StatusOr<std::vector<uint64_t>> named =
        MergeEncoded(deltas[0].statistics, read);
    ASSERT_OK(named);
    // The delta names exactly its reports' tasks, ascending.
    std::vector<uint64_t> added;
    for (int i = begin; i < end; ++i) {
      added.push_back(PackTaskId({.round_id = 3,
                                  .agent_id = static_cast<uint64_t>(i + 1),
                                  .question = uint32_t((i + 1) % 2)}));
    }
    std::sort(added.begin(), added.end());
    EXPECT_EQ(*named, added);
    ASSERT_OK(from_bytes->MergeDelta(deltas[0].delta_id, read));
    // The same delta offered again, say by the follower after the
    // writer's own merge: not counted twice.
    absl::StatusOr<bool> again = batched->MergeDelta(deltas[0].delta_id, read);
    ASSERT_OK(again);
    EXPECT_FALSE(*again);
  }
  EXPECT_EQ(batched->num_reports(0) + batched->num_reports(1), kReports);
  ExpectSameRoundEstimates(*batched, *one_by_one);
  ExpectSameRoundEstimates(*from_bytes, *one_by_one);
  EXPECT_TRUE(batched->QuorumReached(kReports / 2));
  EXPECT_FALSE(batched->QuorumReached(kReports / 2 + 1));
}

TEST(BatchStatistics, OneDeltaPerRoundAndFreshIdsEachTime) {
  const auto first = SharedRound(3);
  const auto second = SharedRound(4);
  const std::vector<ReportPayload> payloads = SeededPayloads(*first, 3);
  BatchStatistics batch;
  ASSERT_OK(batch.Add(first, 1, 3, payloads[0]));
  ASSERT_OK(batch.Add(second, 0, 2, payloads[1]));
  ASSERT_OK(batch.Add(first, 1, 1, payloads[2]));
  absl::StatusOr<std::vector<DeltaRow>> made = batch.Deltas();
  ASSERT_OK(made);
  const std::vector<DeltaRow>& deltas = *made;
  ASSERT_EQ(deltas.size(), 2u);
  EXPECT_EQ(deltas[0].round_id, 3u);
  EXPECT_EQ(deltas[1].round_id, 4u);
  EXPECT_NE(deltas[0].delta_id, deltas[1].delta_id);
  // Each names its own round's tasks only, ascending.
  std::vector<TaskAccumulator> read = EmptyAccumulators(*first);
  EXPECT_THAT(MergeEncoded(deltas[0].statistics, read),
              IsOkAndHolds(ElementsAre(
                  PackTaskId({.round_id = 3, .agent_id = 1, .question = 1}),
                  PackTaskId({.round_id = 3, .agent_id = 3, .question = 1}))));
  // Asked again (a transaction's body run again): new ids.
  absl::StatusOr<std::vector<DeltaRow>> again = batch.Deltas();
  ASSERT_OK(again);
  EXPECT_NE((*again)[0].delta_id, deltas[0].delta_id);
  ASSERT_OK(batch.MergeIntoRounds());
  EXPECT_EQ(first->num_reports(1), 2);
  EXPECT_EQ(second->num_reports(0), 1);
  // Cleared, it merges nothing more.
  batch.Clear();
  absl::StatusOr<std::vector<DeltaRow>> none = batch.Deltas();
  ASSERT_OK(none);
  EXPECT_TRUE(none->empty());
  ASSERT_OK(batch.MergeIntoRounds());
  EXPECT_EQ(first->num_reports(1), 2);
}

TEST(BatchStatistics, AReportTheMechanismRefusesIsInternal) {
  const auto round = SharedRound();
  BatchStatistics batch;
  // A histogram question given a mean's report: admission would have
  // refused it, so reaching here is a bug.
  EXPECT_EQ(batch.Add(round, 1, 1, ScalarReport{.level = 1}).code(),
            absl::StatusCode::kInternal);
}

TEST(BatchStatistics, ADeltaOfAnotherShapeIsRefused) {
  const auto round = SharedRound();
  std::vector<TaskAccumulator> one;
  one.push_back(round->NewAccumulator(0));
  EXPECT_EQ(round->MergeDelta(9, one).status().code(),
            absl::StatusCode::kInternal);
  EXPECT_EQ(round->MergeBatch(one).code(), absl::StatusCode::kInternal);
  // Refused, the delta was not taken as merged: right-shaped, it counts.
  absl::StatusOr<bool> fits = round->MergeDelta(9, EmptyAccumulators(*round));
  ASSERT_OK(fits);
  EXPECT_TRUE(*fits);
  std::vector<TaskAccumulator> read = EmptyAccumulators(*round);
  // One question's state where the round has two.
  EXPECT_EQ(MergeEncoded(std::string("\x0a\x00", 2), read).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(BatchStatistics, AfterTheRoundsStatisticsADeltaChangesNothing) {
  const auto round = SharedRound();
  const std::vector<ReportPayload> payloads = SeededPayloads(*round, 4);
  round->AdoptStatistics(EmptyAccumulators(*round));
  BatchStatistics batch;
  for (int i = 0; i < 4; ++i) {
    ASSERT_OK(batch.Add(round, (i + 1) % 2, i + 1, payloads[i]));
  }
  ASSERT_OK(batch.MergeIntoRounds());
  EXPECT_EQ(round->num_reports(0) + round->num_reports(1), 0);
}

}  // namespace
}  // namespace ldp
