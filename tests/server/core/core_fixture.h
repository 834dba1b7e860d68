// A fixture for the aggregator core's collaborators (report ingest,
// restore): all of them wired as Aggregator::Impl wires them, without the
// facade, so each test reaches the one it tests directly.
#ifndef LDP_TESTS_SERVER_CORE_CORE_FIXTURE_H_
#define LDP_TESTS_SERVER_CORE_CORE_FIXTURE_H_

#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/synchronization/notification.h"
#include "common/base/clock.h"
#include "common/base/status_macros.h"
#include "common/tasks/task_mechanism.h"
#include "gtest/gtest.h"
#include "server/core/agent_registry.h"
#include "server/core/program_driver.h"
#include "server/core/report_ingest.h"
#include "server/core/restore.h"
#include "server/core/round_lifecycle.h"
#include "server/core/store_follower.h"
#include "server/core/study_registry.h"
#include "server/store/sqlite/sqlite_store.h"
#include "server/store/study_codec.h"
#include "tests/server/core/test_studies.h"
#include "tests/testing/fake_clock.h"
#include "tests/testing/status_matchers.h"

namespace ldp::testing {

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

// The aggregator core without its facade: every collaborator, over SQLite
// in a fresh directory; one noninteractive study (one mean question,
// quorum 2) and one agent.
class CoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    MakeDir();
    Build();
    agent_id_ = Enroll();
    StartStudy();
  }
  void MakeDir() {
    std::string pattern = ::testing::TempDir() + "ldp_core_XXXXXX";
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  // SQLite in dir_; a fixture may share another store instead.
  virtual absl::StatusOr<std::unique_ptr<Store>> OpenStore() {
    ASSIGN_OR_RETURN(std::unique_ptr<SqliteStore> store,
                     SqliteStore::Open({.path = dir_ + "/ldp.db"}));
    return std::unique_ptr<Store>(std::move(store));
  }
  void TearDown() override {
    Destroy();
    std::filesystem::remove_all(dir_);
  }
  // A server process's end and a new one over the same database, which
  // has loaded nothing yet.
  void Restart() {
    Destroy();
    study_ = nullptr;
    Build();
  }

  void Build() {
    absl::StatusOr<std::unique_ptr<Store>> store = OpenStore();
    ASSERT_OK(store);
    store_ = *std::move(store);
    queue_ =
        std::make_unique<CommitLanes>(store_.get(), 100, nullptr, nullptr, 0);
    context_ = std::make_unique<AggregatorContext>(
        AggregatorContext{.options = options_,
                          .store = *store_,
                          .lanes = *queue_,
                          .stats = stats_});
    auto random = SecureRandom::Create();
    ASSERT_OK(random);
    agents_ = std::make_unique<AgentRegistry>(*context_, *std::move(random));
    studies_ = std::make_unique<StudyRegistry>(*store_);
    programs_ = std::make_unique<ProgramDriver>(options_, *studies_);
    rounds_ = std::make_unique<RoundLifecycle>(*context_, *studies_, *programs_,
                                               [] { return absl::OkStatus(); });
    ingest_ = std::make_unique<ReportIngest>(*context_, *studies_, *agents_,
                                             *rounds_);
    restorer_ = std::make_unique<Restorer>(*context_, *agents_, *studies_,
                                           *programs_, *rounds_);
    follower_ = std::make_unique<StoreFollower>(
        *context_, *studies_, *programs_, *rounds_, *restorer_);
  }
  void Destroy() {
    if (queue_ != nullptr) queue_->Stop();
    follower_.reset();
    restorer_.reset();
    ingest_.reset();
    rounds_.reset();
    programs_.reset();
    studies_.reset();
    agents_.reset();
    context_.reset();
    queue_.reset();
    store_.reset();
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
    StudySpec spec = ::ldp::testing::MakeStudy(
        kNanosPerEpsilon, {::ldp::testing::MeanQuestion("mean", "x", -1, 1)});
    spec.quorum = 2;
    study_ = std::make_shared<StudyRuntime>();
    study_->study_id = 1;
    study_->spec = std::make_shared<const StudySpec>(std::move(spec));
    const RoundRow row{.round_id = 1,
                       .study_id = 1,
                       .start_time = clock_.Now(),
                       .deadline = clock_.Now() + absl::Hours(1)};
    absl::StatusOr<RoundPlan> plan = RoundPlan::Create(*study_->spec);
    ASSERT_OK(plan);
    study_->AddRound(
        std::make_shared<RoundRuntime>(row, study_->spec, *std::move(plan)));
    absl::Notification done;
    queue_->catalog().Submit(std::make_unique<InsertStudyJob>(
        StudyRow{
            .study_id = 1,
            .spec = EncodeStudySpec(*study_->spec),  // what a restart reads
            .created_at = clock_.Now()},
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
  // The fixture agent's only task, answered and stored.
  TaskAssignment ReportOnce() {
    absl::StatusOr<std::vector<TaskAssignment>> tasks =
        ingest_->GetTasks(agent_id_, 0);
    EXPECT_OK(tasks);
    if (!tasks.ok() || tasks->size() != 1) return {};
    const std::vector<absl::Status> statuses =
        Upload({{.agent_id = agent_id_, .report = Answer(tasks->front())}});
    EXPECT_EQ(statuses.size(), 1u);
    for (const absl::Status& status : statuses) EXPECT_OK(status);
    return tasks->front();
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
  AggregatorOptions options_{.clock = &clock_, .max_reports_per_call = 4};
  ServerStats stats_;
  std::string dir_;
  std::mt19937_64 gen_{7};
  std::unique_ptr<Store> store_;
  std::unique_ptr<CommitLanes> queue_;
  std::unique_ptr<AggregatorContext> context_;
  std::unique_ptr<AgentRegistry> agents_;
  std::unique_ptr<StudyRegistry> studies_;
  std::unique_ptr<ProgramDriver> programs_;
  std::unique_ptr<RoundLifecycle> rounds_;
  std::unique_ptr<ReportIngest> ingest_;
  std::unique_ptr<Restorer> restorer_;
  std::unique_ptr<StoreFollower> follower_;
  std::shared_ptr<StudyRuntime> study_;
  uint64_t agent_id_ = 0;
};

}  // namespace ldp::testing

#endif  // LDP_TESTS_SERVER_CORE_CORE_FIXTURE_H_
