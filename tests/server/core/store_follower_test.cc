// StoreFollower: the core under test (the fixture's collaborators) and
// another server (an Aggregator) on one PostgreSQL database. What the other
// server stores reaches this one through Follow: its study, its round, its
// reports counted once however often they are offered, and its round's
// close. Run through tests/postgres/with_postgres.sh (ctest does).
#include "server/core/store_follower.h"

#include <memory>
#include <vector>

#include "gtest/gtest.h"
#include "server/core/aggregator.h"
#include "server/store/postgres/postgres_store.h"
#include "tests/server/core/core_fixture.h"
#include "tests/server/core/test_studies.h"
#include "tests/server/store/postgres/postgres_test_database.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using ::ldp::testing::MakeStudy;
using ::ldp::testing::MeanQuestion;

class StoreFollowerTest : public ::ldp::testing::CoreTest {
 protected:
  void SetUp() override {
    database_.Create();
    if (HasFatalFailure()) return;
    MakeDir();
    Build();  // this server: empty, it has heard of nothing yet
    absl::StatusOr<std::unique_ptr<PostgresStore>> store =
        PostgresStore::Open({.url = database_.url()});
    ASSERT_OK(store);
    absl::StatusOr<std::unique_ptr<Aggregator>> other =
        Aggregator::Create({.clock = &clock_,
                            .analyst_token = "analyst-secret-0123456789",
                            .follow_interval = absl::Hours(1)},
                           *std::move(store));
    ASSERT_OK(other);
    other_ = *std::move(other);
  }
  void TearDown() override {
    other_.reset();
    CoreTest::TearDown();
  }
  absl::StatusOr<std::unique_ptr<Store>> OpenStore() override {
    ASSIGN_OR_RETURN(std::unique_ptr<PostgresStore> store,
                     PostgresStore::Open({.url = database_.url()}));
    return std::unique_ptr<Store>(std::move(store));
  }

  // A study on the other server, one agent's report to it; the task.
  TaskAssignment StudyWithOneReport(int64_t quorum, uint64_t* study_id) {
    StudySpec spec =
        MakeStudy(kNanosPerEpsilon, {MeanQuestion("m", "x", -1, 1)});
    spec.quorum = quorum;
    absl::StatusOr<StudyInfo> study = other_->CreateStudy(std::move(spec));
    EXPECT_OK(study);
    if (!study.ok()) return {};
    *study_id = study->study_id;
    absl::StatusOr<Enrollment> agent = other_->Enroll("");
    EXPECT_OK(agent);
    if (!agent.ok()) return {};
    absl::StatusOr<std::vector<TaskAssignment>> tasks =
        other_->GetTasks(agent->agent_id);
    EXPECT_OK(tasks);
    if (!tasks.ok() || tasks->size() != 1) return {};
    const std::vector<absl::Status> stored =
        other_->UploadReports(agent->agent_id, {Answer(tasks->front())});
    EXPECT_EQ(stored, std::vector<absl::Status>{absl::OkStatus()});
    return tasks->front();
  }

  ::ldp::store_testing::PostgresTestDatabase database_;
  std::unique_ptr<Aggregator> other_;
};

TEST_F(StoreFollowerTest, AnotherServersStudyAndReportArriveAndCountOnce) {
  uint64_t study_id = 0;
  const TaskAssignment task = StudyWithOneReport(0, &study_id);
  ASSERT_NE(task.task_id, 0u);
  EXPECT_EQ(studies_->FindStudy(study_id), nullptr);

  ASSERT_OK(follower_->Follow(/*with_ledger=*/false));
  std::shared_ptr<StudyRuntime> study = studies_->FindStudy(study_id);
  ASSERT_NE(study, nullptr);
  const std::shared_ptr<RoundRuntime> round = study->LatestRound();
  ASSERT_NE(round, nullptr);
  EXPECT_EQ(round->state(), RoundState::kOpen);
  EXPECT_TRUE(round->HasReport(task.task_id));
  EXPECT_EQ(study->num_reports.load(), 1);

  // Offered again, by a later poll or a catch-up, it is not counted again.
  ASSERT_OK(follower_->Follow(/*with_ledger=*/true));
  ASSERT_OK(follower_->CatchUp(/*with_ledger=*/false));
  EXPECT_EQ(study->num_reports.load(), 1);
  absl::StatusOr<RoundEstimates> theirs = other_->GetEstimates(study_id);
  ASSERT_OK(theirs);
  EXPECT_EQ(std::get<ScalarEstimate>(round->Estimate(0, 0.95)).value,
            std::get<ScalarEstimate>(theirs->questions[0].estimate).value);
}

TEST_F(StoreFollowerTest, ARoundClosedByAnotherServerIsClosedHere) {
  uint64_t study_id = 0;
  ASSERT_NE(StudyWithOneReport(0, &study_id).task_id, 0u);
  ASSERT_OK(follower_->Follow(/*with_ledger=*/false));
  std::shared_ptr<StudyRuntime> study = studies_->FindStudy(study_id);
  ASSERT_NE(study, nullptr);
  ASSERT_EQ(study->LatestRound()->state(), RoundState::kOpen);

  // The other server closes the round at its deadline (GetStudy closes
  // expired rounds); this one learns it from the database.
  clock_.Advance(absl::Hours(2));
  absl::StatusOr<StudyInfo> closed = other_->GetStudy(study_id);
  ASSERT_OK(closed);
  ASSERT_EQ(closed->rounds.back().state, RoundState::kClosedDeadline);
  ASSERT_OK(follower_->Follow(/*with_ledger=*/false));
  EXPECT_EQ(study->LatestRound()->state(), RoundState::kClosedDeadline);
  EXPECT_EQ(study->state.load(), StudyState::kClosed);
}

}  // namespace
}  // namespace ldp
