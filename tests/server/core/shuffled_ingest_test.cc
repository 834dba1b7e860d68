// Shuffled studies in the aggregator core: planning ε0, refusing the
// per-agent path, storing and counting batches whole or not at all, the
// guarantee every estimate states, and all of it again after a restart.
#include "server/core/shuffled_ingest.h"

#include <stdlib.h>

#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/amplification/epsilon0_planner.h"
#include "common/amplification/numerical_bound.h"
#include "common/tasks/task_id.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/core/aggregator.h"
#include "server/store/sqlite/sqlite_store.h"
#include "tests/server/core/test_studies.h"
#include "tests/testing/fake_clock.h"
#include "tests/testing/sqlite_query.h"
#include "tests/testing/statistics.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using ::testing::HasSubstr;
using testing::MakeStudy;
using testing::SeededGenerator;
using testing::StatusIs;

constexpr int64_t kMinBatch = 100;

StudySpec ShuffledStudy() {
  StudySpec spec =
      MakeStudy(10 * kNanosPerEpsilon, {testing::BucketHistogram("bucket")});
  spec.shuffle =
      ShuffleSpec{.target_epsilon = 1.0, .delta = 1e-6, .min_batch = kMinBatch};
  return spec;
}

class ShuffledIngestTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = ::testing::TempDir() + "ldp_shuffled_XXXXXX";
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    Start();
    absl::StatusOr<StudyInfo> info = aggregator_->CreateStudy(ShuffledStudy());
    ASSERT_OK(info);
    study_ = info->study_id;
    round_ = info->rounds.back().round_id;
  }
  void TearDown() override {
    aggregator_.reset();
    std::filesystem::remove_all(dir_);
  }
  void Start() {
    auto store = SqliteStore::Open({.path = dir_ + "/ldp.db"});
    ASSERT_OK(store);
    auto aggregator = Aggregator::Create(
        {.clock = &clock_, .analyst_token = "analyst-secret-0123456789"},
        *std::move(store));
    ASSERT_OK(aggregator);
    aggregator_ = *std::move(aggregator);
  }

  // `n` reports of question 0 as agents would seal them (opened already),
  // with fresh report ids.
  ShuffledBatch Batch(int n, uint8_t batch_tag) {
    absl::StatusOr<TaskAssignment> question =
        aggregator_->ShuffledQuestion(study_, round_, 0);
    EXPECT_OK(question);
    auto mechanism = *TaskMechanism::Create(question->MakeTask());
    ShuffledBatch batch{.study_id = study_, .round_id = round_, .question = 0};
    batch.batch_id.fill(batch_tag);
    for (int i = 0; i < n; ++i) {
      const Record record{.values = {{"bucket", int64_t{i % 64}}}};
      TaskReport report{.task_id = question->task_id,
                        .payload = mechanism->Randomize(record, gen_)};
      for (uint8_t& byte : report.report_id) {
        byte = static_cast<uint8_t>(gen_());
      }
      batch.reports.push_back(std::move(report));
    }
    return batch;
  }
  int64_t NumReports() {
    absl::StatusOr<StudyInfo> info = aggregator_->GetStudy(study_);
    EXPECT_OK(info);
    return info.ok() ? info->num_reports : -1;
  }
  int64_t RowCount(const char* table) {
    return testing::QuerySqliteInt(
        dir_ + "/ldp.db", absl::StrCat("SELECT count(*) FROM ", table));
  }

  std::string dir_;
  FakeClock clock_;
  SeededGenerator gen_{77};
  std::unique_ptr<Aggregator> aggregator_;
  uint64_t study_ = 0;
  uint64_t round_ = 0;
};

TEST_F(ShuffledIngestTest, PlansTheLargestEpsilon0ThatMeetsTheTarget) {
  absl::StatusOr<TaskAssignment> question =
      aggregator_->ShuffledQuestion(study_, round_, 0);
  ASSERT_OK(question);
  const double epsilon0 =
      static_cast<double>(question->question->epsilon_nanos) / kNanosPerEpsilon;
  absl::StatusOr<Epsilon0Plan> plan =
      LargestEpsilon0ForTarget(1.0, kMinBatch, 1e-6);
  ASSERT_OK(plan);
  EXPECT_GT(epsilon0, 1.0);  // amplification buys a larger local ε
  EXPECT_NEAR(epsilon0, plan->epsilon0, 1e-9);
  absl::StatusOr<double> central = ShuffledEpsilon(epsilon0, kMinBatch, 1e-6);
  ASSERT_OK(central);
  EXPECT_LE(*central, 1.0);
  EXPECT_EQ(UnpackTaskId(question->task_id).agent_id, 0u);
}

TEST_F(ShuffledIngestTest, RefusesStudiesTheAmplificationCannotCover) {
  StudySpec interactive = ShuffledStudy();
  interactive.mode = StudyMode::kInteractive;
  EXPECT_THAT(aggregator_->CreateStudy(interactive),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("NONINTERACTIVE")));
  StudySpec small = ShuffledStudy();
  small.shuffle->min_batch = 10;
  EXPECT_THAT(
      aggregator_->CreateStudy(small),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("min_batch")));
  StudySpec greedy = ShuffledStudy();
  greedy.questions[0].epsilon_nanos = 9 * kNanosPerEpsilon;
  EXPECT_THAT(aggregator_->CreateStudy(greedy),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("largest local epsilon0")));
}

TEST_F(ShuffledIngestTest, AgentsCannotReportStraightToTheServer) {
  absl::StatusOr<Enrollment> agent = aggregator_->Enroll("");
  ASSERT_OK(agent);
  absl::StatusOr<std::vector<TaskAssignment>> tasks =
      aggregator_->GetTasks(agent->agent_id);
  ASSERT_OK(tasks);
  ASSERT_EQ(tasks->size(), 1u);
  TaskReport report{.task_id = (*tasks)[0].task_id,
                    .payload = (*TaskMechanism::Create((*tasks)[0].MakeTask()))
                                   ->Randomize(Record{}, gen_)};
  std::vector<absl::Status> statuses =
      aggregator_->UploadReports(agent->agent_id, {report});
  EXPECT_THAT(statuses[0], StatusIs(absl::StatusCode::kFailedPrecondition,
                                    HasSubstr("shuffler")));
  EXPECT_EQ(NumReports(), 0);
}

TEST_F(ShuffledIngestTest, StoresABatchWithoutAgentsAndStatesTheGuarantee) {
  absl::StatusOr<ShuffledBatchOutcome> outcome =
      aggregator_->DeliverShuffledBatch(Batch(150, 1));
  ASSERT_OK(outcome);
  EXPECT_EQ(outcome->accepted, 150);
  EXPECT_EQ(NumReports(), 150);
  EXPECT_EQ(RowCount("shuffled_reports"), 150);
  EXPECT_EQ(RowCount("reports"), 0);  // no per-agent row
  EXPECT_EQ(RowCount("ledger"), 0);   // no agent was charged by the server
  absl::StatusOr<RoundEstimates> estimates =
      aggregator_->GetEstimates(study_, 0);
  ASSERT_OK(estimates);
  const std::optional<ShuffledGuaranteeInfo>& shuffled =
      estimates->questions[0].shuffled;
  ASSERT_TRUE(shuffled.has_value());
  EXPECT_EQ(shuffled->num_batches, 1);
  EXPECT_EQ(shuffled->smallest_batch, 150);
  EXPECT_LT(shuffled->central_epsilon, 1.0);  // 150 ≥ the planned 100
  EXPECT_GT(shuffled->local_epsilon, 1.0);
  EXPECT_DOUBLE_EQ(shuffled->delta, 1e-6);
}

TEST_F(ShuffledIngestTest, ARetriedBatchIsCountedOnce) {
  ShuffledBatch batch = Batch(120, 2);
  ASSERT_OK(aggregator_->DeliverShuffledBatch(batch));
  absl::StatusOr<ShuffledBatchOutcome> again =
      aggregator_->DeliverShuffledBatch(batch);
  ASSERT_OK(again);
  EXPECT_EQ(again->accepted, 120);
  EXPECT_EQ(NumReports(), 120);
}

TEST_F(ShuffledIngestTest, ABatchBelowTheMinimumStoresNothing) {
  EXPECT_THAT(
      aggregator_->DeliverShuffledBatch(Batch(kMinBatch - 1, 3)),
      StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("min_batch")));
  // Enough payloads, but too few new ones once repeats are dropped.
  ShuffledBatch first = Batch(kMinBatch, 4);
  ASSERT_OK(aggregator_->DeliverShuffledBatch(first));
  ShuffledBatch replay = Batch(10, 5);
  for (const TaskReport& old : first.reports) replay.reports.push_back(old);
  EXPECT_THAT(aggregator_->DeliverShuffledBatch(replay),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("nothing was stored")));
  EXPECT_EQ(NumReports(), kMinBatch);
}

TEST_F(ShuffledIngestTest, DropsDuplicatesAndInvalidPayloadsAndSaysSo) {
  ShuffledBatch first = Batch(kMinBatch, 6);
  ASSERT_OK(aggregator_->DeliverShuffledBatch(first));
  ShuffledBatch mixed = Batch(kMinBatch, 7);
  mixed.reports.push_back(first.reports[0]);      // a replayed report
  mixed.reports.push_back(mixed.reports.back());  // its copy in this batch
  TaskReport wrong = mixed.reports[1];
  wrong.report_id.fill(0xee);
  wrong.payload = ReportPayload{FrequencyReport{ItemReport{.item = 1u << 30}}};
  mixed.reports.push_back(wrong);
  absl::StatusOr<ShuffledBatchOutcome> outcome =
      aggregator_->DeliverShuffledBatch(mixed);
  ASSERT_OK(outcome);
  EXPECT_EQ(outcome->accepted, kMinBatch);
  EXPECT_EQ(outcome->duplicates, 2);
  EXPECT_EQ(outcome->invalid, 1);
  EXPECT_FALSE(outcome->first_error.empty());
  EXPECT_EQ(NumReports(), 2 * kMinBatch);
}

TEST_F(ShuffledIngestTest, RefusesBatchesForClosedOrUnshuffledRounds) {
  absl::StatusOr<StudyInfo> plain = aggregator_->CreateStudy(
      MakeStudy(kNanosPerEpsilon, {testing::BucketHistogram("bucket")}));
  ASSERT_OK(plain);
  EXPECT_THAT(aggregator_->ShuffledQuestion(plain->study_id,
                                            plain->rounds.back().round_id, 0),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("not a shuffled study")));
  EXPECT_THAT(aggregator_->ShuffledQuestion(study_, round_, 7),
              StatusIs(absl::StatusCode::kNotFound));
  ShuffledBatch late = Batch(kMinBatch, 8);
  clock_.Advance(absl::Hours(2));
  EXPECT_THAT(
      aggregator_->DeliverShuffledBatch(late),
      StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("closed")));
}

TEST_F(ShuffledIngestTest, ARestartReloadsReportsAndBatchSizes) {
  ASSERT_OK(aggregator_->DeliverShuffledBatch(Batch(130, 9)));
  ASSERT_OK(aggregator_->DeliverShuffledBatch(Batch(110, 10)));
  absl::StatusOr<RoundEstimates> before = aggregator_->GetEstimates(study_, 0);
  ASSERT_OK(before);
  aggregator_.reset();
  Start();
  absl::StatusOr<RoundEstimates> after = aggregator_->GetEstimates(study_, 0);
  ASSERT_OK(after);
  EXPECT_EQ(NumReports(), 240);
  ASSERT_TRUE(after->questions[0].shuffled.has_value());
  EXPECT_EQ(after->questions[0].shuffled->num_batches, 2);
  EXPECT_EQ(after->questions[0].shuffled->smallest_batch, 110);
  const auto& a = std::get<HistogramEstimate>(before->questions[0].estimate);
  const auto& b = std::get<HistogramEstimate>(after->questions[0].estimate);
  EXPECT_EQ(a.frequencies, b.frequencies);
}

}  // namespace
}  // namespace ldp
