// StoreFollower: the core under test (the fixture's collaborators) and
// another server (an Aggregator) on one PostgreSQL database. What the other
// server stores reaches this one through Follow: its study, its round, its
// reports counted once however often they are offered (each batch's
// delta, which names their tasks; never a report row), its round's close,
// and the statistics a closed round answers from. Run through
// tests/postgres/with_postgres.sh (ctest does).
#include "server/core/store_follower.h"

#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/tasks/task_id.h"
#include "gtest/gtest.h"
#include "server/core/aggregator.h"
#include "server/rounds/round_states.h"
#include "server/store/postgres/postgres_store.h"
#include "server/store/statistics_codec.h"
#include "tests/server/core/core_fixture.h"
#include "tests/server/core/test_studies.h"
#include "tests/server/store/postgres/postgres_test_database.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using ::ldp::store_testing::Sql;
using ::ldp::store_testing::SqlValue;
using ::ldp::testing::BucketHistogram;
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

  // A histogram and a mean, `agents` agents' reports to the other server,
  // each in an upload call of its own, the round still open; the study id.
  uint64_t OpenStudyOfAgents(int agents) {
    absl::StatusOr<StudyInfo> study = other_->CreateStudy(
        MakeStudy(kNanosPerEpsilon,
                  {BucketHistogram("h"), MeanQuestion("m", "x", -1, 1)}));
    EXPECT_OK(study);
    if (!study.ok()) return 0;
    for (int i = 0; i < agents; ++i) {
      absl::StatusOr<Enrollment> agent = other_->Enroll("");
      EXPECT_OK(agent);
      if (!agent.ok()) return 0;
      absl::StatusOr<std::vector<TaskAssignment>> tasks =
          other_->GetTasks(agent->agent_id);
      EXPECT_OK(tasks);
      if (!tasks.ok()) return 0;
      std::vector<TaskReport> reports;
      for (const TaskAssignment& task : *tasks) reports.push_back(Answer(task));
      for (const absl::Status& stored :
           other_->UploadReports(agent->agent_id, reports)) {
        EXPECT_OK(stored);
      }
    }
    return study->study_id;
  }

  // OpenStudyOfAgents into `study_id`, and what the other server answers
  // for it.
  absl::StatusOr<RoundEstimates> OpenStudyAndTheirEstimates(
      int agents, uint64_t& study_id) {
    study_id = OpenStudyOfAgents(agents);
    if (study_id == 0) return absl::InternalError("the study did not open");
    return other_->GetEstimates(study_id);
  }

  // OpenStudyOfAgents, and the round closed there at its deadline.
  uint64_t ClosedStudyOfAgents(int agents) {
    const uint64_t study_id = OpenStudyOfAgents(agents);
    clock_.Advance(absl::Hours(2));
    EXPECT_OK(other_->GetStudy(study_id));  // closes the round
    return study_id;
  }

  // Another server on the database, started now.
  absl::StatusOr<std::unique_ptr<Aggregator>> FreshServer() {
    ASSIGN_OR_RETURN(std::unique_ptr<PostgresStore> store,
                     PostgresStore::Open({.url = database_.url()}));
    return Aggregator::Create({.clock = &clock_,
                               .analyst_token = "analyst-secret-0123456789",
                               .follow_interval = absl::Hours(1)},
                              std::move(store));
  }
  // A server started now answers `study_id` as `theirs` does, and knows
  // `num_reports` tasks of it to have a report.
  void ExpectAFreshServerAnswersAlike(uint64_t study_id,
                                      const RoundEstimates& theirs,
                                      int64_t num_reports);

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

// Estimates compared field for field: what the analyst would see.
void ExpectSameEstimates(const RoundEstimates& a, const RoundEstimates& b) {
  ASSERT_EQ(a.questions.size(), b.questions.size());
  const auto& ha = std::get<HistogramEstimate>(a.questions[0].estimate);
  const auto& hb = std::get<HistogramEstimate>(b.questions[0].estimate);
  EXPECT_EQ(ha.num_reports, hb.num_reports);
  EXPECT_EQ(ha.frequencies, hb.frequencies);
  EXPECT_EQ(ha.variances, hb.variances);
  const auto& ma = std::get<ScalarEstimate>(a.questions[1].estimate);
  const auto& mb = std::get<ScalarEstimate>(b.questions[1].estimate);
  EXPECT_EQ(ma.num_reports, mb.num_reports);
  EXPECT_EQ(ma.value, mb.value);
  EXPECT_EQ(ma.standard_error, mb.standard_error);
}

void StoreFollowerTest::ExpectAFreshServerAnswersAlike(
    uint64_t study_id, const RoundEstimates& theirs, int64_t num_reports) {
  absl::StatusOr<std::unique_ptr<Aggregator>> fresh = FreshServer();
  ASSERT_OK(fresh);
  absl::StatusOr<RoundEstimates> after = (*fresh)->GetEstimates(study_id);
  ASSERT_OK(after);
  ExpectSameEstimates(*after, theirs);
  absl::StatusOr<StudyInfo> info = (*fresh)->GetStudy(study_id);
  ASSERT_OK(info);
  EXPECT_EQ(info->num_reports, num_reports);
}

TEST_F(StoreFollowerTest, AnOpenRoundGrowsByDeltasNotByPayloads) {
  constexpr int kAgents = 9;
  const uint64_t study_id = OpenStudyOfAgents(kAgents);
  ASSERT_NE(study_id, 0u);
  // One delta per upload transaction, each counting that call's report.
  EXPECT_EQ(SqlValue(database_.url(), "SELECT count(*) FROM report_deltas"),
            std::to_string(kAgents));
  absl::StatusOr<RoundEstimates> theirs = other_->GetEstimates(study_id);
  ASSERT_OK(theirs);
  // No server reads these rows any more: the deltas count their payloads
  // and name their tasks. Gone, they change nothing.
  const auto tasks = Sql(database_.url(), "SELECT task_id FROM reports");
  ASSERT_EQ(tasks.size(), static_cast<size_t>(kAgents));
  Sql(database_.url(), "DELETE FROM reports");

  ASSERT_OK(follower_->Follow(/*with_ledger=*/false));
  const std::shared_ptr<StudyRuntime> study = studies_->FindStudy(study_id);
  ASSERT_NE(study, nullptr);
  const std::shared_ptr<RoundRuntime> round = study->LatestRound();
  ASSERT_EQ(round->state(), RoundState::kOpen);
  EXPECT_EQ(round->num_reports(0) + round->num_reports(1), kAgents);
  EXPECT_EQ(study->num_reports.load(), kAgents);
  for (const auto& task : tasks) {
    EXPECT_TRUE(round->HasReport(std::stoull(task[0]))) << task[0];
  }
  const auto mean = std::get<ScalarEstimate>(round->Estimate(1, 0.95));
  const auto& their_mean =
      std::get<ScalarEstimate>(theirs->questions[1].estimate);
  EXPECT_EQ(mean.value, their_mean.value);
  EXPECT_EQ(mean.standard_error, their_mean.standard_error);
  // Every delta offered again (a rescan) is counted once.
  ASSERT_OK(follower_->Follow(/*with_ledger=*/false));
  EXPECT_EQ(round->num_reports(0) + round->num_reports(1), kAgents);

  // A server started now reads the deltas too, and answers alike.
  ExpectAFreshServerAnswersAlike(study_id, *theirs, kAgents);
}

// A database upgraded from schema 8 holds deltas that name no tasks: their
// reports' rows are read for that, and counted once all the same.
TEST_F(StoreFollowerTest, DeltasThatNameNoTasksLeaveThemToTheReportRows) {
  constexpr int kAgents = 6;
  uint64_t study_id = 0;
  absl::StatusOr<RoundEstimates> theirs =
      OpenStudyAndTheirEstimates(kAgents, study_id);
  ASSERT_OK(theirs);
  for (const auto& row :
       Sql(database_.url(),
           "SELECT delta_id, encode(statistics, 'hex') FROM report_deltas")) {
    absl::StatusOr<StoredStatistics> stored =
        DecodeStoredStatistics(absl::HexStringToBytes(row[1]));
    ASSERT_OK(stored);
    ASSERT_FALSE(stored->task_ids.empty());
    Sql(database_.url(),
        absl::StrCat(
            "UPDATE report_deltas SET statistics = '\\x",
            absl::BytesToHexString(EncodeRoundStatistics(stored->states)),
            "' WHERE delta_id = ", row[0]));
  }
  Sql(database_.url(),
      "UPDATE deltas_since SET tasks_xid = pg_current_xact_id()");
  ExpectAFreshServerAnswersAlike(study_id, *theirs, kAgents);
}

TEST_F(StoreFollowerTest, ReportsStoredBeforeDeltasCountFromTheirPayloads) {
  constexpr int kAgents = 7;
  uint64_t study_id = 0;
  absl::StatusOr<RoundEstimates> theirs =
      OpenStudyAndTheirEstimates(kAgents, study_id);
  ASSERT_OK(theirs);
  // As a database upgraded to deltas after these reports were stored: no
  // delta counts them, and the schema says so.
  Sql(database_.url(), "DELETE FROM report_deltas");
  Sql(database_.url(),
      "UPDATE deltas_since SET xid = pg_current_xact_id(), "
      "tasks_xid = pg_current_xact_id()");
  ExpectAFreshServerAnswersAlike(study_id, *theirs, kAgents);
}

TEST_F(StoreFollowerTest, ADeltaThatDoesNotFitItsRoundIsDataLoss) {
  const uint64_t study_id = OpenStudyOfAgents(2);
  ASSERT_NE(study_id, 0u);
  ASSERT_OK(follower_->Follow(/*with_ledger=*/false));
  const std::shared_ptr<RoundRuntime> round =
      studies_->FindStudy(study_id)->LatestRound();
  const int64_t counted = round->num_reports(0) + round->num_reports(1);
  // A third report's delta, as some other writer left it: one question's
  // state where the round has two.
  Sql(database_.url(),
      "INSERT INTO report_deltas(delta_id, round_id, statistics, writer) "
      "VALUES (77, " +
          std::to_string(round->round_id()) + ", '\\x0a00', 5)");
  const absl::Status followed = follower_->Follow(/*with_ledger=*/false);
  EXPECT_EQ(followed.code(), absl::StatusCode::kDataLoss) << followed;
  EXPECT_EQ(round->num_reports(0) + round->num_reports(1), counted);
}

TEST_F(StoreFollowerTest, ADeltaNamingAnotherRoundsTaskIsDataLoss) {
  const uint64_t study_id = OpenStudyOfAgents(2);
  ASSERT_NE(study_id, 0u);
  ASSERT_OK(follower_->Follow(/*with_ledger=*/false));
  const std::shared_ptr<StudyRuntime> study = studies_->FindStudy(study_id);
  const std::shared_ptr<RoundRuntime> round = study->LatestRound();
  const int64_t counted = study->num_reports.load();
  // Right shape, but naming a task of the next round, then one of this
  // round that its statistics do not count (they count none).
  const uint64_t tasks[] = {
      PackTaskId({.round_id = round->round_id() + 1, .agent_id = 1}),
      PackTaskId({.round_id = round->round_id(), .agent_id = 99})};
  for (const uint64_t task : tasks) {
    SCOPED_TRACE(task);
    const std::string bytes =
        EncodeAccumulators(EmptyAccumulators(*round), {task});
    Sql(database_.url(), "DELETE FROM report_deltas WHERE writer = 5");
    Sql(database_.url(),
        absl::StrCat("INSERT INTO report_deltas(delta_id, round_id, "
                     "statistics, writer) VALUES (78, ",
                     round->round_id(), ", '\\x", absl::BytesToHexString(bytes),
                     "', 5)"));
    const absl::Status followed = follower_->Follow(/*with_ledger=*/false);
    EXPECT_EQ(followed.code(), absl::StatusCode::kDataLoss) << followed;
    EXPECT_EQ(study->num_reports.load(), counted);
    EXPECT_FALSE(round->HasReport(tasks[1]));
  }
}

TEST_F(StoreFollowerTest, AnOpenRoundIsNotSettled) {
  uint64_t study_id = 0;
  ASSERT_NE(StudyWithOneReport(0, &study_id).task_id, 0u);
  ASSERT_OK(follower_->Follow(/*with_ledger=*/false));
  follower_->SettleClosedRounds();
  const std::shared_ptr<StudyRuntime> study = studies_->FindStudy(study_id);
  ASSERT_NE(study, nullptr);
  EXPECT_FALSE(study->LatestRound()->answers_from_statistics());
  EXPECT_EQ(SqlValue(database_.url(), "SELECT count(*) FROM round_statistics"),
            "0");
}

TEST_F(StoreFollowerTest, AClosedRoundAnswersFromItsStoredStatistics) {
  constexpr int kAgents = 12;
  const uint64_t study_id = ClosedStudyOfAgents(kAgents);
  ASSERT_NE(study_id, 0u);
  ASSERT_OK(follower_->Follow(/*with_ledger=*/false));
  const std::shared_ptr<StudyRuntime> study = studies_->FindStudy(study_id);
  ASSERT_NE(study, nullptr);
  const std::shared_ptr<RoundRuntime> round = study->LatestRound();
  ASSERT_EQ(round->state(), RoundState::kClosedDeadline);
  // Counted from the followed reports until settled; each agent answers
  // one of the two questions.
  ASSERT_FALSE(round->answers_from_statistics());
  const int64_t histogram_reports = round->num_reports(0);
  ASSERT_EQ(histogram_reports + round->num_reports(1), kAgents);
  follower_->SettleClosedRounds();
  ASSERT_TRUE(round->answers_from_statistics());
  EXPECT_EQ(round->num_reports(0), histogram_reports);
  EXPECT_EQ(round->num_reports(1), kAgents - histogram_reports);
  EXPECT_EQ(SqlValue(database_.url(),
                     "SELECT count(*) FROM round_statistics WHERE round_id = " +
                         std::to_string(round->round_id())),
            "1");
  // A report offered again after that only marks its task.
  ASSERT_OK(follower_->Follow(/*with_ledger=*/false));
  EXPECT_EQ(round->num_reports(0), histogram_reports);

  // The other server settles on its own analyst call; both answer alike.
  absl::StatusOr<RoundEstimates> theirs = other_->GetEstimates(study_id);
  ASSERT_OK(theirs);
  const ScalarEstimate mean =
      std::get<ScalarEstimate>(round->Estimate(1, 0.95));
  EXPECT_EQ(mean.value,
            std::get<ScalarEstimate>(theirs->questions[1].estimate).value);

  // A server started now reads no payload of the closed round: with every
  // one of them damaged, it starts and answers the same, and so it does
  // without a single report row. Its estimates come from the statistics.
  for (const char* damage :
       {"UPDATE reports SET payload = '\\x00'", "DELETE FROM reports"}) {
    Sql(database_.url(), damage);
    absl::StatusOr<std::unique_ptr<Aggregator>> fresh = FreshServer();
    ASSERT_OK(fresh) << damage;
    absl::StatusOr<RoundEstimates> after = (*fresh)->GetEstimates(study_id);
    ASSERT_OK(after);
    ExpectSameEstimates(*after, *theirs);
    EXPECT_EQ(
        std::get<HistogramEstimate>(after->questions[0].estimate).num_reports,
        histogram_reports);
  }
}

TEST_F(StoreFollowerTest, DamagedStatisticsAreNotAnsweredAndRetriedLater) {
  const uint64_t study_id = ClosedStudyOfAgents(3);
  ASSERT_NE(study_id, 0u);
  ASSERT_OK(follower_->Follow(/*with_ledger=*/false));
  const std::shared_ptr<RoundRuntime> round =
      studies_->FindStudy(study_id)->LatestRound();
  const int64_t followed = round->num_reports(0);
  // Statistics some other writer left that do not fit the round's plan.
  Sql(database_.url(),
      "INSERT INTO round_statistics(round_id, statistics) VALUES (" +
          std::to_string(round->round_id()) + ", '\\x0a00')");
  follower_->SettleClosedRounds();
  EXPECT_FALSE(round->answers_from_statistics());
  EXPECT_EQ(round->num_reports(0), followed);

  // Repaired, the round settles, but not before the backoff has passed.
  Sql(database_.url(), "DELETE FROM round_statistics");
  follower_->SettleClosedRounds();
  EXPECT_FALSE(round->answers_from_statistics());
  clock_.Advance(absl::Seconds(6));
  follower_->SettleClosedRounds();
  EXPECT_TRUE(round->answers_from_statistics());
  EXPECT_EQ(round->num_reports(0), followed);
}

}  // namespace
}  // namespace ldp
