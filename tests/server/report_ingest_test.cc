#include "server/report_ingest.h"

#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/synchronization/notification.h"
#include "common/clock.h"
#include "common/task_mechanism.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/sqlite_store.h"
#include "server/task_id.h"
#include "tests/server/test_studies.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using ::ldp::testing::MakeStudy;
using ::ldp::testing::MapSpecCodec;
using ::ldp::testing::MeanQuestion;
using ::ldp::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::SizeIs;

// Stores a study and its first round, as CreateStudy's job does.
class InsertStudyJob final : public CommitJob {
 public:
  InsertStudyJob(StudyRow study, RoundRow round, absl::Notification* done)
      : study_(std::move(study)), round_(std::move(round)), done_(done) {}
  absl::Status Apply(StoreTransaction& transaction) override {
    if (absl::StatusOr<uint64_t> id = transaction.InsertStudy(study_);
        !id.ok()) {
      return id.status();
    }
    return transaction.InsertRound(round_);
  }
  void Finish(const absl::Status& status) override {
    EXPECT_OK(status);
    done_->Notify();
  }

 private:
  StudyRow study_;
  RoundRow round_;
  absl::Notification* done_;
};

// ReportIngest with every collaborator it needs, over SQLite; one
// noninteractive study (one mean question, quorum 2) and one agent.
class ReportIngestTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = ::testing::TempDir() + "ldp_ingest_XXXXXX";
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    auto store = SqliteStore::Open({.path = dir_ + "/ldp.db"});
    ASSERT_OK(store);
    store_ = *std::move(store);
    queue_ = std::make_unique<CommitQueue>(store_.get(), 100);
    context_ = std::make_unique<AggregatorContext>(AggregatorContext{
        .options = options_, .store = *store_, .queue = *queue_,
        .stats = stats_});
    auto random = SecureRandom::Create();
    ASSERT_OK(random);
    agents_ = std::make_unique<AgentRegistry>(*context_, *std::move(random));
    studies_ = std::make_unique<StudyRegistry>(*store_);
    programs_ = std::make_unique<ProgramDriver>(options_, *studies_);
    rounds_ = std::make_unique<RoundLifecycle>(
        *context_, *studies_, *programs_, [] { return absl::OkStatus(); });
    ingest_ = std::make_unique<ReportIngest>(*context_, *studies_, *agents_,
                                             *rounds_);
    agent_id_ = Enroll();
    StartStudy();
  }
  void TearDown() override {
    queue_->Stop();
    ingest_.reset();
    rounds_.reset();
    programs_.reset();
    studies_.reset();
    agents_.reset();
    context_.reset();
    queue_.reset();
    store_.reset();
    std::filesystem::remove_all(dir_);
  }

  uint64_t Enroll() {
    uint64_t id = 0;
    absl::Notification done;
    agents_->EnrollAsync("", [&](absl::StatusOr<Enrollment> enrollment) {
      EXPECT_OK(enrollment);
      if (enrollment.ok()) id = enrollment->agent_id;
      done.Notify();
    });
    done.WaitForNotification();
    return id;
  }

  void StartStudy() {
    StudySpec spec = MakeStudy(kNanosPerEpsilon,
                               {MeanQuestion("mean", "x", -1, 1)});
    spec.quorum = 2;
    study_ = std::make_shared<StudyRuntime>();
    study_->study_id = 1;
    study_->spec = std::make_shared<const StudySpec>(std::move(spec));
    study_->spec_bytes = std::make_shared<const std::string>("study");
    const RoundRow row{.round_id = 1,
                       .study_id = 1,
                       .start_time = clock_.Now(),
                       .deadline = clock_.Now() + absl::Hours(1)};
    absl::StatusOr<RoundPlan> plan = RoundPlan::Create(*study_->spec);
    ASSERT_OK(plan);
    study_->AddRound(
        std::make_shared<RoundRuntime>(row, study_->spec, *std::move(plan)));
    absl::Notification done;
    queue_->Submit(std::make_unique<InsertStudyJob>(
        StudyRow{.study_id = 1, .spec = "study", .created_at = clock_.Now()},
        RoundRowOf(*study_->LatestRound()), &done));
    done.WaitForNotification();
    studies_->Register(study_);
  }

  TaskReport Answer(const TaskAssignment& task) {
    auto mechanism = TaskMechanism::Create(task.MakeTask());
    EXPECT_OK(mechanism);
    const Record record{
        .values = {{"x", 0.5}, {"bucket", int64_t{3}}, {"y", 1.0}}};
    TaskReport report{.task_id = task.task_id,
                      .payload = (*mechanism)->Randomize(record, gen_)};
    report.report_id[0] = static_cast<uint8_t>(task.task_id);
    return report;
  }
  std::vector<absl::Status> Upload(std::vector<AgentReport> reports) {
    std::vector<absl::Status> result;
    absl::Notification done;
    ingest_->UploadAsync(std::move(reports),
                         [&](std::vector<absl::Status> statuses) {
                           result = std::move(statuses);
                           done.Notify();
                         });
    done.WaitForNotification();
    return result;
  }

  FakeClock clock_;
  MapSpecCodec codec_;
  AggregatorOptions options_{.spec_codec = &codec_,
                             .clock = &clock_,
                             .max_reports_per_call = 4};
  ServerStats stats_;
  std::string dir_;
  std::mt19937_64 gen_{7};
  std::unique_ptr<SqliteStore> store_;
  std::unique_ptr<CommitQueue> queue_;
  std::unique_ptr<AggregatorContext> context_;
  std::unique_ptr<AgentRegistry> agents_;
  std::unique_ptr<StudyRegistry> studies_;
  std::unique_ptr<ProgramDriver> programs_;
  std::unique_ptr<RoundLifecycle> rounds_;
  std::unique_ptr<ReportIngest> ingest_;
  std::shared_ptr<StudyRuntime> study_;
  uint64_t agent_id_ = 0;
};

TEST_F(ReportIngestTest, AnUnknownAgentHasNoTasks) {
  EXPECT_THAT(ingest_->GetTasks(agent_id_ + 100, 0),
              StatusIs(absl::StatusCode::kNotFound));
}

TEST_F(ReportIngestTest, AStoredReportIsCountedAndItsTaskNotAskedAgain) {
  absl::StatusOr<std::vector<TaskAssignment>> tasks =
      ingest_->GetTasks(agent_id_, 0);
  ASSERT_OK(tasks);
  ASSERT_THAT(*tasks, SizeIs(1));
  EXPECT_THAT(
      Upload({{.agent_id = agent_id_, .report = Answer(tasks->front())}}),
      ElementsAre(absl::OkStatus()));
  EXPECT_EQ(study_->num_reports.load(), 1);
  EXPECT_EQ(study_->num_agents.load(), 1);
  EXPECT_THAT(ingest_->GetTasks(agent_id_, 0),
              ::ldp::testing::IsOkAndHolds(::testing::IsEmpty()));
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
  EXPECT_THAT(Upload({{.agent_id = agent_id_, .report = bad_shape},
                      {.agent_id = agent_id_, .report = unknown},
                      {.agent_id = agent_id_, .report = good}}),
              ElementsAre(StatusIs(absl::StatusCode::kInvalidArgument),
                          StatusIs(absl::StatusCode::kNotFound),
                          absl::OkStatus()));
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
