#include "server/core/report_ingest.h"

#include <vector>

#include "common/tasks/task_id.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/server/core/core_fixture.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using ::ldp::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::SizeIs;

using ReportIngestTest = ::ldp::testing::CoreTest;

TEST_F(ReportIngestTest, AnUnknownAgentHasNoTasks) {
  EXPECT_THAT(ingest_->GetTasks(agent_id_ + 100, 0),
              StatusIs(absl::StatusCode::kNotFound));
}

TEST_F(ReportIngestTest, AStoredReportIsCountedAndItsTaskNotAskedAgain) {
  ASSERT_NE(ReportOnce().task_id, 0u);
  EXPECT_EQ(study_->num_reports.load(), 1);
  EXPECT_EQ(study_->num_agents.load(), 1);
  EXPECT_THAT(ingest_->GetTasks(agent_id_, 0),
              ::ldp::testing::IsOkAndHolds(::testing::IsEmpty()));
}

// A relay's batch polls every agent against one view of the open rounds:
// each answer is the one the agent's own poll gets, and what the view
// cannot know (a report stored after it was taken, an unknown agent) is
// still checked per agent.
TEST_F(ReportIngestTest, OneViewOfTheOpenRoundsAnswersEachPollAsAlone) {
  const uint64_t other = Enroll();
  const absl::Time now = clock_.Now();
  const std::vector<ReportIngest::OpenRound> open = ingest_->OpenRoundsAt(now);
  ASSERT_THAT(open, SizeIs(1));
  for (const uint64_t agent : {agent_id_, other}) {
    absl::StatusOr<std::vector<TaskAssignment>> alone =
        ingest_->GetTasks(agent, 0);
    absl::StatusOr<std::vector<TaskAssignment>> viewed =
        ingest_->GetTasks(agent, 0, open);
    ASSERT_OK(alone);
    ASSERT_OK(viewed);
    ASSERT_THAT(*viewed, SizeIs(alone->size()));
    for (size_t i = 0; i < alone->size(); ++i) {
      EXPECT_EQ((*viewed)[i].task_id, (*alone)[i].task_id);
      EXPECT_EQ((*viewed)[i].question, (*alone)[i].question);
      EXPECT_EQ((*viewed)[i].deadline, (*alone)[i].deadline);
    }
  }
  EXPECT_THAT(ingest_->GetTasks(other + 100, 0, open),
              StatusIs(absl::StatusCode::kNotFound));
  ASSERT_NE(ReportOnce().task_id, 0u);
  EXPECT_THAT(ingest_->GetTasks(agent_id_, 0, open),
              ::ldp::testing::IsOkAndHolds(::testing::IsEmpty()));
  EXPECT_THAT(
      ingest_->OpenRoundsAt(open.front().round->deadline() + absl::Seconds(1)),
      ::testing::IsEmpty());
}

// Another agent's task must look exactly like a task that does not exist.
TEST_F(ReportIngestTest, AnotherAgentsTaskIsNotFound) {
  const uint64_t other = Enroll();
  absl::StatusOr<std::vector<TaskAssignment>> tasks =
      ingest_->GetTasks(other, 0);
  ASSERT_OK(tasks);
  ASSERT_THAT(*tasks, SizeIs(1));
  std::vector<absl::Status> statuses =
      Upload({{.agent_id = agent_id_, .report = Answer(tasks->front())}});
  EXPECT_THAT(statuses, ElementsAre(StatusIs(absl::StatusCode::kNotFound,
                                             HasSubstr("for this agent"))));
}

TEST_F(ReportIngestTest, EachReportGetsItsOwnStatus) {
  absl::StatusOr<std::vector<TaskAssignment>> tasks =
      ingest_->GetTasks(agent_id_, 0);
  ASSERT_OK(tasks);
  TaskReport good = Answer(tasks->front());
  TaskReport bad_shape = good;
  bad_shape.payload = FrequencyReport(ItemReport{.item = 1});
  TaskReport unknown = good;
  unknown.task_id = PackTaskId({.round_id = 77, .agent_id = agent_id_});
  EXPECT_THAT(
      Upload({{.agent_id = agent_id_, .report = bad_shape},
              {.agent_id = agent_id_, .report = unknown},
              {.agent_id = agent_id_, .report = good}}),
      ElementsAre(StatusIs(absl::StatusCode::kInvalidArgument),
                  StatusIs(absl::StatusCode::kNotFound), absl::OkStatus()));
}

TEST_F(ReportIngestTest, TooManyReportsAreAllRefused) {
  std::vector<AgentReport> reports(5, {.agent_id = agent_id_});
  for (const absl::Status& status : Upload(std::move(reports))) {
    EXPECT_THAT(status, StatusIs(absl::StatusCode::kInvalidArgument,
                                 HasSubstr("at most 4")));
  }
}

TEST_F(ReportIngestTest, QuorumClosesTheRoundAndLaterReportsAreRefused) {
  std::vector<uint64_t> agents = {agent_id_, Enroll(), Enroll()};
  for (size_t i = 0; i < agents.size(); ++i) {
    absl::StatusOr<std::vector<TaskAssignment>> tasks =
        ingest_->GetTasks(agents[i], 0);
    ASSERT_OK(tasks);
    if (i < 2) {
      ASSERT_THAT(*tasks, SizeIs(1));
      EXPECT_THAT(
          Upload({{.agent_id = agents[i], .report = Answer(tasks->front())}}),
          ElementsAre(absl::OkStatus()));
    } else {
      EXPECT_THAT(*tasks, ::testing::IsEmpty());
    }
  }
  rounds_->Barrier();
  EXPECT_EQ(study_->LatestRound()->state(), RoundState::kClosedQuorum);
  EXPECT_EQ(study_->state.load(), StudyState::kClosed);
}

}  // namespace
}  // namespace ldp
