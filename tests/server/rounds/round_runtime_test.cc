#include "server/rounds/round_runtime.h"

#include "common/tasks/task_id.h"
#include "gtest/gtest.h"
#include "tests/server/core/test_studies.h"
#include "tests/testing/statistics.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using testing::BucketHistogram;
using testing::MakeStudy;
using testing::MeanQuestion;

std::unique_ptr<RoundRuntime> MakeRound(RoundState state = RoundState::kOpen) {
  auto spec = std::make_shared<const StudySpec>(MakeStudy(
      kNanosPerEpsilon, {MeanQuestion("m", "x", -1, 1), BucketHistogram("h")}));
  const RoundRow row{.round_id = 3,
                     .study_id = 2,
                     .state = state,
                     .start_time = absl::FromUnixSeconds(100),
                     .deadline = absl::FromUnixSeconds(200)};
  return std::make_unique<RoundRuntime>(row, spec, *RoundPlan::Create(*spec));
}

TEST(RoundRuntime, TasksCarryTheRoundAndStudy) {
  auto round = MakeRound();
  ASSERT_EQ(round->num_questions(), 2);
  EXPECT_EQ(round->task(0)->study_id, 2u);
  EXPECT_EQ(round->task(0)->round_id, 3u);
  EXPECT_EQ(round->task(0)->task_id, 0u);
  EXPECT_TRUE(std::holds_alternative<HistogramTask>(round->task(1)->question));
}

TEST(RoundRuntime, AcceptsReportsOnlyWhileOpenAndBeforeTheDeadline) {
  auto round = MakeRound();
  EXPECT_TRUE(round->AcceptsReportsAt(absl::FromUnixSeconds(199)));
  EXPECT_FALSE(round->AcceptsReportsAt(absl::FromUnixSeconds(200)));
  EXPECT_TRUE(round->ClaimClose());
  EXPECT_FALSE(round->ClaimClose());
  round->set_state(RoundState::kClosedQuorum);
  EXPECT_FALSE(round->AcceptsReportsAt(absl::FromUnixSeconds(150)));
  // A round loaded closed is never closed again.
  EXPECT_FALSE(MakeRound(RoundState::kClosedDeadline)->ClaimClose());
}

TEST(RoundRuntime, CountsValidReportsTowardsTheQuorum) {
  auto round = MakeRound();
  const uint64_t t1 = PackTaskId({.round_id = 3, .agent_id = 1, .question = 0});
  EXPECT_OK(round->Accumulate(t1, 0, ScalarReport{.level = 1}));  // Duchi: ±1
  EXPECT_TRUE(round->HasReport(t1));
  EXPECT_EQ(round->num_reports(0), 1);
  EXPECT_FALSE(round->QuorumReached(1));  // the histogram has none yet
  // An invalid payload changes nothing.
  const uint64_t t2 = PackTaskId({.round_id = 3, .agent_id = 2, .question = 1});
  EXPECT_FALSE(round->Accumulate(t2, 1, ScalarReport{.level = 0}).ok());
  EXPECT_FALSE(round->HasReport(t2));
  EXPECT_EQ(round->num_reports(1), 0);
  testing::SeededGenerator gen(1);
  const ReportPayload payload = round->mechanism(1).Randomize(
      Record{.values = {{"bucket", int64_t{3}}}}, gen);
  EXPECT_OK(round->Accumulate(t2, 1, payload));
  // Offered again (say by a replica following the shared store): not
  // counted twice.
  EXPECT_EQ(round->Accumulate(t2, 1, payload).code(),
            absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(round->num_reports(1), 1);
  EXPECT_TRUE(round->QuorumReached(1));
  EXPECT_FALSE(round->QuorumReached(2));
  EXPECT_EQ(std::get<HistogramEstimate>(round->Estimate(1, 0.95)).num_reports,
            1);
}

}  // namespace
}  // namespace ldp
