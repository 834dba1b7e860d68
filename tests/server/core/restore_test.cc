#include "server/core/restore.h"

#include <string>
#include <vector>

#include "common/tasks/task_id.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/server/core/core_fixture.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using ::ldp::testing::StatusIs;
using ::testing::HasSubstr;
using ::testing::SizeIs;

using RestoreTest = ::ldp::testing::CoreTest;

TEST_F(RestoreTest, ARestartBringsBackAgentsStudiesAndCountedReports) {
  const TaskAssignment task = ReportOnce();
  ASSERT_NE(task.task_id, 0u);
  const TaskEstimate before = studies_->FindRound(1).round->Estimate(0, 0.95);

  Restart();
  ASSERT_OK(restorer_->Load(*follower_));
  EXPECT_TRUE(agents_->Contains(agent_id_));
  std::shared_ptr<StudyRuntime> study = studies_->FindStudy(1);
  ASSERT_NE(study, nullptr);
  EXPECT_EQ(study->num_reports.load(), 1);
  EXPECT_EQ(study->num_agents.load(), 1);
  const RoundEntry round = studies_->FindRound(1);
  ASSERT_NE(round.round, nullptr);
  EXPECT_TRUE(round.round->HasReport(task.task_id));
  EXPECT_EQ(std::get<ScalarEstimate>(round.round->Estimate(0, 0.95)).value,
            std::get<ScalarEstimate>(before).value);
  // Ids continue after the stored ones.
  EXPECT_THAT(studies_->NextStudyId(), ::ldp::testing::IsOkAndHolds(2u));
  EXPECT_THAT(studies_->NextRoundId(), ::ldp::testing::IsOkAndHolds(2u));
}

TEST_F(RestoreTest, AStudyWhoseSpecCannotBeDecodedIsDataLoss) {
  EXPECT_THAT(restorer_->StudyFromRow({.study_id = 9, .spec = "unknown"}),
              StatusIs(absl::StatusCode::kDataLoss,
                       HasSubstr("stored study 9 cannot be reloaded")));
}

TEST_F(RestoreTest, ARoundWhosePlanCannotBeDecodedIsDataLoss) {
  EXPECT_THAT(
      restorer_->RoundFromRow(
          *study_, {.round_id = 5, .study_id = 1, .plan = "not a plan"}),
      StatusIs(absl::StatusCode::kDataLoss,
               HasSubstr("stored round 5 cannot be reloaded")));
}

TEST_F(RestoreTest, AStoredReportIsCountedOnceAndOnlyIntoAKnownRound) {
  const TaskAssignment task = ReportOnce();
  ASSERT_NE(task.task_id, 0u);
  std::vector<ReportRow> rows;
  ASSERT_OK(store_->ForEachReport([&](const ReportRow& row) {
    rows.push_back(row);
    return absl::OkStatus();
  }));
  ASSERT_THAT(rows, SizeIs(1));
  RoundEntry cache;
  EXPECT_THAT(restorer_->CountStoredReport(rows[0], cache),
              ::ldp::testing::IsOkAndHolds(true));
  EXPECT_EQ(study_->num_reports.load(), 1);  // counted at upload already
  ReportRow elsewhere = rows[0];
  elsewhere.task_id = PackTaskId({.round_id = 42, .agent_id = agent_id_});
  EXPECT_THAT(restorer_->CountStoredReport(elsewhere, cache),
              ::ldp::testing::IsOkAndHolds(false));
}

}  // namespace
}  // namespace ldp
