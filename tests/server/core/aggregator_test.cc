#include "server/core/aggregator.h"

#include <stdlib.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <random>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/blocking_counter.h"
#include "absl/synchronization/mutex.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/core/round_closer.h"
#include "server/store/sqlite/sqlite_store.h"
#include "server/store/study_codec.h"
#include "tests/server/core/test_studies.h"
#include "tests/testing/fake_clock.h"
#include "tests/testing/statistics.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using ::testing::AllOf;
using testing::BucketHistogram;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing::MakeStudy;
using testing::MeanQuestion;
using testing::SeededGenerator;
using testing::StatusIs;

constexpr int64_t kNano = kNanosPerEpsilon;
constexpr char kAnalystToken[] = "analyst-secret-0123456789";

// A synthetic agent's record: x skewed in [-1, 1], bucket Zipf-like in
// [0, 63], y uniform in [0, 10].
Record RecordFor(uint64_t agent_id) {
  SeededGenerator gen(agent_id * 7919 + 17);
  std::uniform_real_distribution<double> u(0, 1);  // test-only sampling
  const double a = u(gen), b = u(gen), c = u(gen);
  return Record{.values = {{"x", 2 * a * a - 1},
                           {"bucket", static_cast<int64_t>(64 * b * b * b)},
                           {"y", 10 * c}}};
}

// Keeps every event as "event key=value ..." (values unquoted).
class RecordingEventLog final : public EventLog {
 public:
  void Write(LogLevel level, std::string_view event,
             std::initializer_list<LogField> fields) override {
    std::string line(event);
    for (const LogField& f : fields)
      absl::StrAppend(&line, " ", std::string(f.key), "=", f.value);
    absl::MutexLock lock(&mutex_);
    lines_.push_back(std::move(line));
  }
  std::vector<std::string> lines() const {
    absl::MutexLock lock(&mutex_);
    return lines_;
  }

 private:
  mutable absl::Mutex mutex_;
  std::vector<std::string> lines_;
};

class AggregatorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = ::testing::TempDir() + "ldp_aggregator_XXXXXX";
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    Start();
  }
  void TearDown() override {
    aggregator_.reset();
    std::filesystem::remove_all(dir_);
  }

  void Start(std::string enrollment_token = "") {
    auto store = SqliteStore::Open({.path = dir_ + "/ldp.db"});
    ASSERT_OK(store);
    auto aggregator =
        Aggregator::Create({.clock = &clock_,
                            .analyst_token = kAnalystToken,
                            .enrollment_token = std::move(enrollment_token),
                            .event_log = &events_},
                           *std::move(store));
    ASSERT_OK(aggregator);
    aggregator_ = *std::move(aggregator);
  }
  void Restart() {
    aggregator_.reset();
    Start();
  }

  uint64_t CreateStudy(StudySpec spec, std::string request_id = "") {
    absl::StatusOr<StudyInfo> info =
        aggregator_->CreateStudy(std::move(spec), std::move(request_id));
    EXPECT_OK(info);
    return info.ok() ? info->study_id : 0;
  }

  std::vector<Enrollment> EnrollMany(int n) {
    std::vector<Enrollment> enrollments(n);
    absl::BlockingCounter pending(n);
    for (int i = 0; i < n; ++i) {
      aggregator_->EnrollAsync("", [&, i](absl::StatusOr<Enrollment> e) {
        EXPECT_OK(e);
        if (e.ok()) enrollments[i] = *std::move(e);
        pending.DecrementCount();
      });
    }
    pending.Wait();
    return enrollments;
  }

  // The agent's side: randomize its record for the task.
  TaskReport Answer(const TaskAssignment& assignment, const Record& record) {
    std::shared_ptr<const TaskMechanism>& mechanism =
        mechanisms_[assignment.question.get()];
    if (mechanism == nullptr) {
      mechanism = *TaskMechanism::Create(assignment.MakeTask());
    }
    TaskReport report{.task_id = assignment.task_id,
                      .payload = mechanism->Randomize(record, gen_)};
    for (uint8_t& byte : report.report_id) byte = static_cast<uint8_t>(gen_());
    return report;
  }

  // Fetches and answers every task of the agent, returns the statuses.
  std::vector<absl::Status> AnswerAll(uint64_t agent_id,
                                      std::vector<TaskReport>* sent = nullptr) {
    absl::StatusOr<std::vector<TaskAssignment>> tasks =
        aggregator_->GetTasks(agent_id);
    EXPECT_OK(tasks);
    std::vector<TaskReport> reports;
    for (const TaskAssignment& task : *tasks) {
      reports.push_back(Answer(task, RecordFor(agent_id)));
    }
    if (sent != nullptr) *sent = reports;
    return aggregator_->UploadReports(agent_id, std::move(reports));
  }

  std::string dir_;
  RecordingEventLog events_;
  FakeClock clock_;
  std::unique_ptr<Aggregator> aggregator_;
  SeededGenerator gen_{2024};
  std::map<const Task*, std::shared_ptr<const TaskMechanism>> mechanisms_;
};

TEST_F(AggregatorTest, EnrolledAgentsAuthenticateWithTheirTokenOnly) {
  absl::StatusOr<Enrollment> a = aggregator_->Enroll("");
  absl::StatusOr<Enrollment> b = aggregator_->Enroll("");
  ASSERT_OK(a);
  ASSERT_OK(b);
  EXPECT_NE(a->agent_id, b->agent_id);
  absl::StatusOr<uint64_t> authenticated =
      aggregator_->AuthenticateAgent(a->bearer_token);
  ASSERT_OK(authenticated);
  EXPECT_EQ(*authenticated, a->agent_id);
  // b's secret under a's id, a garbled secret, garbage.
  const std::string secret_b =
      b->bearer_token.substr(b->bearer_token.find('.'));
  EXPECT_THAT(
      aggregator_->AuthenticateAgent(std::to_string(a->agent_id) + secret_b),
      StatusIs(absl::StatusCode::kUnauthenticated));
  EXPECT_THAT(aggregator_->AuthenticateAgent(a->bearer_token + "0"),
              StatusIs(absl::StatusCode::kUnauthenticated));
  EXPECT_THAT(aggregator_->AuthenticateAgent("999." + std::string(64, '0')),
              StatusIs(absl::StatusCode::kUnauthenticated));
  EXPECT_OK(aggregator_->AuthenticateAnalyst(kAnalystToken));
  EXPECT_THAT(aggregator_->AuthenticateAnalyst("analyst-secret-012345678"),
              StatusIs(absl::StatusCode::kUnauthenticated));
}

TEST_F(AggregatorTest, EnrollmentTokenIsRequiredWhenConfigured) {
  aggregator_.reset();
  Start("enroll-me");
  EXPECT_THAT(aggregator_->Enroll("wrong"),
              StatusIs(absl::StatusCode::kUnauthenticated));
  EXPECT_OK(aggregator_->Enroll("enroll-me"));
}

TEST_F(AggregatorTest, RejectsBadOptions) {
  auto store = SqliteStore::Open({.path = dir_ + "/other.db"});
  ASSERT_OK(store);
  EXPECT_THAT(Aggregator::Create({.clock = &clock_, .analyst_token = "short"},
                                 *std::move(store)),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(Aggregator::Create(
                  {.clock = &clock_, .analyst_token = kAnalystToken}, nullptr),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

// What a whole population reports, and the truth among the agents who
// answered each question.
struct PopulationRun {
  std::vector<Enrollment> agents;
  std::map<std::string, std::vector<uint64_t>> answered;  // question → agents
  int64_t accepted = 0;
};

class AggregatorPopulationTest : public AggregatorTest {
 public:
  // Every agent fetches its tasks and uploads; uploads run concurrently so
  // they share group commits.
  PopulationRun Run(int num_agents) {
    PopulationRun run;
    std::map<const Task*, std::string> question_ids;
    for (const StudyInfo& study : aggregator_->ListStudies(0).studies) {
      for (const QuestionInfo& q : study.rounds.back().questions) {
        question_ids[q.question.get()] = q.question_id;
      }
    }
    run.agents = EnrollMany(num_agents);
    absl::BlockingCounter pending(num_agents);
    std::atomic<int64_t> accepted{0};
    for (const Enrollment& agent : run.agents) {
      absl::StatusOr<std::vector<TaskAssignment>> tasks =
          aggregator_->GetTasks(agent.agent_id);
      EXPECT_OK(tasks);
      std::vector<TaskReport> reports;
      for (const TaskAssignment& task : *tasks) {
        reports.push_back(Answer(task, RecordFor(agent.agent_id)));
        run.answered[question_ids[task.question.get()]].push_back(
            agent.agent_id);
      }
      aggregator_->UploadReportsAsync(agent.agent_id, std::move(reports),
                                      [&](std::vector<absl::Status> statuses) {
                                        for (const absl::Status& s : statuses)
                                          accepted += s.ok();
                                        pending.DecrementCount();
                                      });
    }
    pending.Wait();
    run.accepted = accepted;
    return run;
  }
};

TEST_F(AggregatorPopulationTest, EstimatesAreWithinFiveStandardErrors) {
  StudySpec spec = MakeStudy(
      kNano, {MeanQuestion("mean_x", "x", -1, 1, RealMechanismKind::kDuchi),
              MeanQuestion("mean_y", "y", 0, 10, RealMechanismKind::kHybrid),
              BucketHistogram("buckets", std::nullopt,
                              ConsistencyMethod::kSimplexProjection)});
  const uint64_t study_id = CreateStudy(std::move(spec));
  constexpr int kAgents = 30'000;
  const PopulationRun run = Run(kAgents);
  absl::StatusOr<RoundEstimates> estimates =
      aggregator_->GetEstimates(study_id);
  ASSERT_OK(estimates);
  EXPECT_EQ(estimates->state, RoundState::kOpen);
  ASSERT_EQ(estimates->questions.size(), 3u);
  int64_t total = 0;
  for (const QuestionEstimate& q : estimates->questions) {
    const std::vector<uint64_t>& agents = run.answered.at(q.question_id);
    if (const auto* scalar = std::get_if<ScalarEstimate>(&q.estimate)) {
      const std::string field = q.question_id == "mean_x" ? "x" : "y";
      double truth = 0;
      for (uint64_t a : agents) {
        truth += std::get<double>(RecordFor(a).values.at(field));
      }
      truth /= agents.size();
      EXPECT_EQ(scalar->num_reports, static_cast<int64_t>(agents.size()));
      EXPECT_LE(std::abs(scalar->value - truth), 5 * scalar->standard_error)
          << q.question_id << " " << scalar->value << " vs " << truth;
      EXPECT_TRUE(scalar->interval.Contains(scalar->value));
      total += scalar->num_reports;
    } else {
      const auto& histogram = std::get<HistogramEstimate>(q.estimate);
      std::vector<double> truth(64);
      for (uint64_t a : agents) {
        truth[std::get<int64_t>(RecordFor(a).values.at("bucket"))] +=
            1.0 / agents.size();
      }
      ASSERT_EQ(histogram.frequencies.size(), 64u);
      ASSERT_EQ(q.item_intervals.size(), 64u);
      for (int v = 0; v < 64; ++v) {
        EXPECT_LE(std::abs(histogram.frequencies[v] - truth[v]),
                  5 * std::sqrt(histogram.variances[v]))
            << v;
      }
      ASSERT_EQ(q.post_processing, ConsistencyMethod::kSimplexProjection);
      double sum = 0;
      for (double f : q.post_processed) {
        EXPECT_GE(f, 0);
        sum += f;
      }
      EXPECT_NEAR(sum, 1, 1e-9);
      total += histogram.num_reports;
    }
    EXPECT_LE(q.implemented_epsilon, double(q.epsilon_nanos) / kNano);
    EXPECT_FALSE(q.mechanism.empty());
  }
  EXPECT_EQ(total, run.accepted);
  absl::StatusOr<StudyInfo> info = aggregator_->GetStudy(study_id);
  ASSERT_OK(info);
  EXPECT_EQ(info->num_reports, run.accepted);
  EXPECT_EQ(info->num_agents, kAgents);
  EXPECT_LE(info->max_spent_nanos, kNano);
  EXPECT_FALSE(info->rounds[0].plan_explanation.empty());
}

TEST_F(AggregatorPopulationTest, ARestartRecomputesExactlyTheSameEstimates) {
  const uint64_t study_id = CreateStudy(MakeStudy(
      kNano, {MeanQuestion("mean_x", "x", -1, 1), BucketHistogram("buckets")}));
  const PopulationRun run = Run(2'000);
  absl::StatusOr<RoundEstimates> before = aggregator_->GetEstimates(study_id);
  ASSERT_OK(before);
  Restart();
  absl::StatusOr<RoundEstimates> after = aggregator_->GetEstimates(study_id);
  ASSERT_OK(after);
  ASSERT_EQ(after->questions.size(), before->questions.size());
  for (size_t q = 0; q < before->questions.size(); ++q) {
    const TaskEstimate& b = before->questions[q].estimate;
    const TaskEstimate& a = after->questions[q].estimate;
    if (const auto* scalar = std::get_if<ScalarEstimate>(&b)) {
      EXPECT_EQ(std::get<ScalarEstimate>(a).value, scalar->value);
      EXPECT_EQ(std::get<ScalarEstimate>(a).num_reports, scalar->num_reports);
    } else {
      EXPECT_EQ(std::get<HistogramEstimate>(a).frequencies,
                std::get<HistogramEstimate>(b).frequencies);
    }
  }
  // Credentials, the ledger and the study's counters survive too; answered
  // tasks are not handed out again.
  const Enrollment& agent = run.agents.front();
  absl::StatusOr<uint64_t> authenticated =
      aggregator_->AuthenticateAgent(agent.bearer_token);
  ASSERT_OK(authenticated);
  EXPECT_EQ(*authenticated, agent.agent_id);
  absl::StatusOr<std::vector<LedgerEntry>> ledger =
      aggregator_->GetBudget(agent.agent_id);
  ASSERT_OK(ledger);
  ASSERT_EQ(ledger->size(), 1u);
  EXPECT_EQ((*ledger)[0].spent_nanos, kNano);
  EXPECT_THAT(*aggregator_->GetTasks(agent.agent_id), IsEmpty());
  absl::StatusOr<StudyInfo> info = aggregator_->GetStudy(study_id);
  ASSERT_OK(info);
  EXPECT_EQ(info->num_reports, run.accepted);
  EXPECT_EQ(info->num_agents, 2'000);
  // New ids continue after the old ones.
  absl::StatusOr<Enrollment> fresh = aggregator_->Enroll("");
  ASSERT_OK(fresh);
  EXPECT_GT(fresh->agent_id, run.agents.back().agent_id);
  EXPECT_GT(CreateStudy(MakeStudy(kNano, {MeanQuestion("m", "x", -1, 1)})),
            study_id);
  // And the round still takes reports.
  for (const absl::Status& s : AnswerAll(fresh->agent_id)) EXPECT_OK(s);
}

TEST_F(AggregatorTest, ADuplicateIsRefusedAndAnIdenticalRetryCountsOnce) {
  const uint64_t study_id =
      CreateStudy(MakeStudy(kNano, {MeanQuestion("m", "x", -1, 1)}));
  const uint64_t agent = aggregator_->Enroll("")->agent_id;
  std::vector<TaskReport> sent;
  EXPECT_THAT(AnswerAll(agent, &sent), ElementsAre(absl::OkStatus()));
  ASSERT_EQ(sent.size(), 1u);
  // The same bytes again: OK, not charged again, not counted again.
  EXPECT_THAT(aggregator_->UploadReports(agent, sent),
              ElementsAre(absl::OkStatus()));
  // A different report for the same task.
  TaskReport other = sent[0];
  other.report_id[0] ^= 1;
  EXPECT_THAT(aggregator_->UploadReports(agent, {other}),
              ElementsAre(StatusIs(absl::StatusCode::kAlreadyExists)));
  other = sent[0];
  // Duchi levels are ±1: the other valid level.
  std::get<ScalarReport>(other.payload).level *= -1;
  EXPECT_THAT(aggregator_->UploadReports(agent, {other}),
              ElementsAre(StatusIs(absl::StatusCode::kAlreadyExists)));
  absl::StatusOr<RoundEstimates> estimates =
      aggregator_->GetEstimates(study_id);
  ASSERT_OK(estimates);
  EXPECT_EQ(
      std::get<ScalarEstimate>(estimates->questions[0].estimate).num_reports,
      1);
  absl::StatusOr<std::vector<LedgerEntry>> ledger =
      aggregator_->GetBudget(agent, study_id);
  ASSERT_OK(ledger);
  ASSERT_EQ(ledger->size(), 1u);
  EXPECT_EQ((*ledger)[0].spent_nanos, kNano);
  EXPECT_EQ((*ledger)[0].cap_nanos, kNano);
  EXPECT_THAT(*aggregator_->GetTasks(agent), IsEmpty());
}

// A relay's batch of polls: one answer per poll, in order, each what the
// agent's own GetTasks gives (a study with two questions, max_tasks 1 for
// one poll, and an id nobody enrolled).
TEST_F(AggregatorTest, GetTasksManyAnswersEachPollInOrder) {
  CreateStudy(MakeStudy(
      kNano, {MeanQuestion("m", "x", -1, 1), MeanQuestion("n", "x", -1, 1)}));
  const uint64_t a = aggregator_->Enroll("")->agent_id;
  const uint64_t b = aggregator_->Enroll("")->agent_id;
  const std::vector<Aggregator::TaskPoll> polls = {
      {.agent_id = b}, {.agent_id = b + 1000}, {.agent_id = a, .max_tasks = 1}};
  std::vector<absl::StatusOr<std::vector<TaskAssignment>>> many =
      aggregator_->GetTasksMany(polls);
  ASSERT_EQ(many.size(), 3u);
  EXPECT_THAT(many[1], StatusIs(absl::StatusCode::kNotFound));
  for (const int k : {0, 2}) {
    absl::StatusOr<std::vector<TaskAssignment>> alone =
        aggregator_->GetTasks(polls[k].agent_id, polls[k].max_tasks);
    ASSERT_OK(alone);
    ASSERT_OK(many[k]);
    ASSERT_EQ(many[k]->size(), alone->size());
    for (size_t i = 0; i < alone->size(); ++i) {
      EXPECT_EQ((*many[k])[i].task_id, (*alone)[i].task_id);
    }
  }
  EXPECT_EQ(many[2]->size(), 1u);
}

// The deadline pass runs on a thread of the core's own (RoundCloser, which
// ldp-server starts), judged by the injected clock: however often it looks,
// nothing closes before the deadline, and once the clock passes it the next
// pass closes the round and its study.
TEST_F(AggregatorTest,
       TheRoundCloserClosesARoundOnceTheClockPassesItsDeadline) {
  CreateStudy(MakeStudy(kNano, {MeanQuestion("m", "x", -1, 1)}));
  RoundCloser closer(aggregator_.get(), absl::Milliseconds(1));
  // Waits (up to a minute: never a speed assertion) for `n` passes.
  const auto await_passes = [&](int64_t n) {
    for (int i = 0; i < 60'000 && closer.passes() < n; ++i) {
      absl::SleepFor(absl::Milliseconds(1));
    }
    ASSERT_GE(closer.passes(), n);
  };
  ASSERT_NO_FATAL_FAILURE(await_passes(5));
  EXPECT_EQ(aggregator_->Stats().rounds_open, 1);
  clock_.Advance(absl::Hours(2));  // past the round's deadline
  // Two more passes: at least one began after the clock moved.
  ASSERT_NO_FATAL_FAILURE(await_passes(closer.passes() + 2));
  const AggregatorStats stats = aggregator_->Stats();
  EXPECT_EQ(stats.rounds_open, 0);
  EXPECT_EQ(stats.rounds_closed, 1);
  EXPECT_EQ(stats.studies_closed, 1);
}

// What operators see (Stats, exported at /metrics; the event log) follows
// the work: outcomes by status, ε charged once, rounds and studies by
// state, and one event per study and round change.
TEST_F(AggregatorTest, StatsAndEventsFollowTheWork) {
  const uint64_t study_id =
      CreateStudy(MakeStudy(kNano, {MeanQuestion("m", "x", -1, 1)}));
  AggregatorStats stats = aggregator_->Stats();
  EXPECT_EQ(stats.studies_active, 1);
  EXPECT_EQ(stats.rounds_open, 1);
  const std::vector<Enrollment> agents = EnrollMany(3);
  std::vector<TaskReport> sent;
  for (const Enrollment& e : agents) {
    EXPECT_THAT(AnswerAll(e.agent_id, &sent), ElementsAre(absl::OkStatus()));
  }
  // An identical retry (OK, not charged) and a conflicting one.
  TaskReport conflict = sent[0];
  conflict.report_id[0] ^= 1;
  EXPECT_THAT(
      aggregator_->UploadReports(agents.back().agent_id, {sent[0], conflict}),
      ElementsAre(absl::OkStatus(),
                  StatusIs(absl::StatusCode::kAlreadyExists)));
  stats = aggregator_->Stats();
  EXPECT_EQ(stats.agents_enrolled, 3);
  EXPECT_EQ(stats.counters.enrollments, 3u);
  EXPECT_EQ(stats.counters.report_outcomes[0], 4u);
  EXPECT_EQ(
      stats.counters
          .report_outcomes[static_cast<int>(absl::StatusCode::kAlreadyExists)],
      1u);
  EXPECT_EQ(stats.counters.charged_nanos, uint64_t{3 * kNano});
  EXPECT_EQ(stats.reports_stored, 3);
  EXPECT_EQ(stats.counters.upload_latency.count, 4u);
  EXPECT_GE(stats.counters.commit_latency.count, 1u);
  EXPECT_GE(stats.commits.transactions, 1);

  clock_.Advance(absl::Hours(2));  // past the round's deadline
  aggregator_->CloseExpiredRounds();
  ASSERT_OK(aggregator_->GetStudy(study_id));
  stats = aggregator_->Stats();
  EXPECT_EQ(stats.rounds_open, 0);
  EXPECT_EQ(stats.rounds_closed, 1);
  EXPECT_EQ(stats.studies_closed, 1);
  const std::vector<std::string> lines = events_.lines();
  const std::string id = absl::StrCat(study_id);
  EXPECT_THAT(lines, Contains(HasSubstr("study_created study=" + id)));
  EXPECT_THAT(lines, Contains(AllOf(HasSubstr("round_closed study=" + id),
                                    HasSubstr("state=deadline"),
                                    HasSubstr("reports=3"))));
  EXPECT_THAT(lines, Contains(HasSubstr("study_closed study=" + id)));
}

TEST_F(AggregatorTest, EachReportGetsItsOwnStatusInOrder) {
  CreateStudy(MakeStudy(kNano, {MeanQuestion("m", "x", -1, 1)}));
  const uint64_t alice = aggregator_->Enroll("")->agent_id;
  const uint64_t bob = aggregator_->Enroll("")->agent_id;
  absl::StatusOr<std::vector<TaskAssignment>> alice_tasks =
      aggregator_->GetTasks(alice);
  absl::StatusOr<std::vector<TaskAssignment>> bob_tasks =
      aggregator_->GetTasks(bob);
  ASSERT_OK(alice_tasks);
  ASSERT_OK(bob_tasks);
  ASSERT_EQ(alice_tasks->size(), 1u);
  const TaskReport good = Answer((*alice_tasks)[0], RecordFor(alice));
  const TaskReport bobs = Answer((*bob_tasks)[0], RecordFor(bob));
  TaskReport unknown = good;
  unknown.task_id ^= uint64_t{1} << 50;  // another round
  TaskReport wrong_shape = good;
  wrong_shape.payload = FrequencyReport(ItemReport{.item = 1});
  TaskReport out_of_range = good;
  out_of_range.payload = ScalarReport{.level = 1'000'000};
  EXPECT_THAT(aggregator_->UploadReports(
                  alice, {wrong_shape, bobs, unknown, out_of_range, good}),
              ElementsAre(StatusIs(absl::StatusCode::kInvalidArgument),
                          // Bob's task looks exactly like an unknown one.
                          StatusIs(absl::StatusCode::kNotFound),
                          StatusIs(absl::StatusCode::kNotFound),
                          StatusIs(absl::StatusCode::kInvalidArgument),
                          StatusIs(absl::StatusCode::kOk)));
  // Bob's task is still his to answer.
  EXPECT_THAT(aggregator_->UploadReports(bob, {bobs}),
              ElementsAre(absl::OkStatus()));
  std::vector<TaskReport> too_many(1001, good);
  const std::vector<absl::Status> statuses =
      aggregator_->UploadReports(alice, too_many);
  ASSERT_EQ(statuses.size(), 1001u);
  EXPECT_THAT(statuses[1000], StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(aggregator_->GetTasks(999),
              StatusIs(absl::StatusCode::kNotFound));
  EXPECT_THAT(aggregator_->UploadReports(alice, {}), IsEmpty());
}

TEST_F(AggregatorTest, QuorumClosesTheRoundDurably) {
  StudySpec spec = MakeStudy(kNano, {MeanQuestion("m", "x", -1, 1)});
  spec.quorum = 3;
  const uint64_t study_id = CreateStudy(std::move(spec));
  const std::vector<Enrollment> agents = EnrollMany(4);
  absl::StatusOr<std::vector<TaskAssignment>> late =
      aggregator_->GetTasks(agents[3].agent_id);
  ASSERT_OK(late);
  ASSERT_EQ(late->size(), 1u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_THAT(AnswerAll(agents[i].agent_id), ElementsAre(absl::OkStatus()));
  }
  EXPECT_THAT(aggregator_->UploadReports(
                  agents[3].agent_id,
                  {Answer((*late)[0], RecordFor(agents[3].agent_id))}),
              ElementsAre(StatusIs(absl::StatusCode::kFailedPrecondition)));
  EXPECT_THAT(*aggregator_->GetTasks(agents[3].agent_id), IsEmpty());
  absl::StatusOr<StudyInfo> info = aggregator_->GetStudy(study_id);
  ASSERT_OK(info);
  EXPECT_EQ(info->rounds[0].state, RoundState::kClosedQuorum);
  EXPECT_EQ(info->state, StudyState::kClosed);
  Restart();
  info = aggregator_->GetStudy(study_id);
  ASSERT_OK(info);
  EXPECT_EQ(info->rounds[0].state, RoundState::kClosedQuorum);
  EXPECT_EQ(info->state, StudyState::kClosed);
  EXPECT_EQ(info->rounds[0].questions[0].num_reports, 3);
}

TEST_F(AggregatorTest, TheDeadlineClosesTheRound) {
  StudySpec spec = MakeStudy(kNano, {MeanQuestion("m", "x", -1, 1)});
  spec.round_duration = absl::Minutes(10);
  const uint64_t study_id = CreateStudy(std::move(spec));
  const uint64_t agent = aggregator_->Enroll("")->agent_id;
  absl::StatusOr<std::vector<TaskAssignment>> tasks =
      aggregator_->GetTasks(agent);
  ASSERT_OK(tasks);
  ASSERT_EQ(tasks->size(), 1u);
  EXPECT_EQ((*tasks)[0].deadline, clock_.Now() + absl::Minutes(10));
  clock_.Advance(absl::Minutes(10));
  EXPECT_THAT(*aggregator_->GetTasks(agent), IsEmpty());
  EXPECT_THAT(aggregator_->UploadReports(
                  agent, {Answer((*tasks)[0], RecordFor(agent))}),
              ElementsAre(StatusIs(absl::StatusCode::kFailedPrecondition)));
  absl::StatusOr<RoundEstimates> estimates =
      aggregator_->GetEstimates(study_id);
  ASSERT_OK(estimates);
  EXPECT_EQ(estimates->state, RoundState::kClosedDeadline);
  EXPECT_EQ(
      std::get<ScalarEstimate>(estimates->questions[0].estimate).num_reports,
      0);
  Restart();
  EXPECT_EQ(aggregator_->GetStudy(study_id)->rounds[0].state,
            RoundState::kClosedDeadline);
}

// Reports racing the quorum: once the round reads closed, its estimate
// already counts every report that was acknowledged.
TEST_F(AggregatorTest, AClosedRoundCountsEveryAcknowledgedReport) {
  StudySpec spec = MakeStudy(kNano, {MeanQuestion("m", "x", -1, 1)});
  spec.quorum = 500;
  const uint64_t study_id = CreateStudy(std::move(spec));
  const std::vector<Enrollment> agents = EnrollMany(1'200);
  std::vector<std::vector<TaskReport>> reports;
  for (const Enrollment& agent : agents) {
    reports.push_back({Answer((*aggregator_->GetTasks(agent.agent_id))[0],
                              RecordFor(agent.agent_id))});
  }
  std::atomic<int64_t> acknowledged{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (size_t i = t; i < agents.size(); i += 4) {
        for (const absl::Status& s :
             aggregator_->UploadReports(agents[i].agent_id, reports[i])) {
          acknowledged += s.ok();
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  absl::StatusOr<RoundEstimates> estimates =
      aggregator_->GetEstimates(study_id);
  ASSERT_OK(estimates);
  EXPECT_EQ(estimates->state, RoundState::kClosedQuorum);
  EXPECT_GE(acknowledged.load(), 500);
  EXPECT_LT(acknowledged.load(), 1'200);
  EXPECT_EQ(
      std::get<ScalarEstimate>(estimates->questions[0].estimate).num_reports,
      acknowledged.load());
}

TEST_F(AggregatorTest, StudiesAreCreatedOncePerRequestIdAndListedNewestFirst) {
  StudySpec spec = MakeStudy(kNano, {MeanQuestion("m", "x", -1, 1)});
  spec.deadline = clock_.Now() + absl::Hours(48);
  absl::StatusOr<StudyInfo> first = aggregator_->CreateStudy(spec, "req-1");
  absl::StatusOr<StudyInfo> again = aggregator_->CreateStudy(spec, "req-1");
  ASSERT_OK(first);
  ASSERT_OK(again);
  EXPECT_EQ(first->study_id, again->study_id);
  EXPECT_EQ(first->rounds.size(), 1u);
  EXPECT_EQ(first->rounds[0].state, RoundState::kOpen);
  EXPECT_EQ(first->create_time, clock_.Now());
  Restart();
  EXPECT_EQ(aggregator_->CreateStudy(spec, "req-1")->study_id, first->study_id);
  // The stored spec (study_codec.h) comes back whole after the restart.
  absl::StatusOr<StudyInfo> restored = aggregator_->GetStudy(first->study_id);
  ASSERT_OK(restored);
  EXPECT_EQ(EncodeStudySpec(*restored->spec), EncodeStudySpec(spec));
  EXPECT_EQ(restored->spec->deadline, spec.deadline);
  const uint64_t second =
      CreateStudy(MakeStudy(kNano, {MeanQuestion("m", "x", -1, 1)}));
  const uint64_t third =
      CreateStudy(MakeStudy(kNano, {MeanQuestion("m", "x", -1, 1)}));
  StudyPage page = aggregator_->ListStudies(2);
  ASSERT_EQ(page.studies.size(), 2u);
  EXPECT_EQ(page.studies[0].study_id, third);
  EXPECT_EQ(page.studies[1].study_id, second);
  ASSERT_EQ(page.next_page_start, first->study_id);
  page = aggregator_->ListStudies(2, page.next_page_start);
  ASSERT_EQ(page.studies.size(), 1u);
  EXPECT_EQ(page.studies[0].study_id, first->study_id);
  EXPECT_EQ(page.next_page_start, 0u);
}

TEST_F(AggregatorTest, RejectsInvalidStudiesAndUnknownIds) {
  StudySpec late = MakeStudy(kNano, {MeanQuestion("m", "x", -1, 1)});
  late.deadline = clock_.Now();
  EXPECT_THAT(
      aggregator_->CreateStudy(late),
      StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("deadline")));
  EXPECT_THAT(
      aggregator_->CreateStudy(MakeStudy(0, {MeanQuestion("m", "x", -1, 1)})),
      StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(aggregator_->GetStudy(42), StatusIs(absl::StatusCode::kNotFound));
  EXPECT_THAT(aggregator_->GetEstimates(42),
              StatusIs(absl::StatusCode::kNotFound));
  const uint64_t study_id =
      CreateStudy(MakeStudy(kNano, {MeanQuestion("m", "x", -1, 1)}));
  EXPECT_THAT(aggregator_->GetEstimates(study_id, 999),
              StatusIs(absl::StatusCode::kNotFound));
  EXPECT_THAT(aggregator_->GetBudget(999),
              StatusIs(absl::StatusCode::kNotFound));
}

TEST_F(AggregatorTest, EpsilonSplittingHandsEveryAgentEveryQuestion) {
  const uint64_t study_id =
      CreateStudy(MakeStudy(8 * kNano, {MeanQuestion("a", "x", -1, 1),
                                        MeanQuestion("b", "y", 0, 10)}));
  ASSERT_EQ(aggregator_->GetStudy(study_id)->rounds[0].strategy,
            SplitStrategy::kEpsilonSplitting);
  const uint64_t agent = aggregator_->Enroll("")->agent_id;
  absl::StatusOr<std::vector<TaskAssignment>> tasks =
      aggregator_->GetTasks(agent);
  ASSERT_OK(tasks);
  ASSERT_EQ(tasks->size(), 2u);
  EXPECT_NE((*tasks)[0].task_id, (*tasks)[1].task_id);
  EXPECT_EQ((*tasks)[0].MakeTask().task_id, (*tasks)[0].task_id);
  EXPECT_EQ((*tasks)[0].study->schema, testing::TestSchema());
  EXPECT_EQ(aggregator_->GetTasks(agent, 1)->size(), 1u);
  EXPECT_THAT(AnswerAll(agent),
              ElementsAre(absl::OkStatus(), absl::OkStatus()));
  EXPECT_EQ((*aggregator_->GetBudget(agent))[0].spent_nanos, 8 * kNano);
}

// A question asked twice in one study is answered once by an honest agent
// (the second from its memo, at no cost): the ledger charges it once too,
// while each question keeps its own estimate with the agent counted once.
TEST_F(AggregatorTest, ARepeatedQuestionIsChargedOnce) {
  const uint64_t study_id =
      CreateStudy(MakeStudy(8 * kNano, {MeanQuestion("a", "x", -1, 1),
                                        MeanQuestion("again", "x", -1, 1)}));
  ASSERT_EQ(aggregator_->GetStudy(study_id)->rounds[0].strategy,
            SplitStrategy::kEpsilonSplitting);
  const uint64_t agent = aggregator_->Enroll("")->agent_id;
  absl::StatusOr<std::vector<TaskAssignment>> tasks =
      aggregator_->GetTasks(agent);
  ASSERT_OK(tasks);
  ASSERT_EQ(tasks->size(), 2u);
  std::vector<TaskReport> reports = {Answer((*tasks)[0], RecordFor(agent)),
                                     Answer((*tasks)[1], RecordFor(agent))};
  reports[1].payload = reports[0].payload;  // the memo's answer
  EXPECT_THAT(aggregator_->UploadReports(agent, reports),
              ElementsAre(absl::OkStatus(), absl::OkStatus()));
  EXPECT_EQ((*aggregator_->GetBudget(agent, study_id))[0].spent_nanos,
            4 * kNano);
  absl::StatusOr<RoundEstimates> estimates =
      aggregator_->GetEstimates(study_id);
  ASSERT_OK(estimates);
  for (const auto& question : estimates->questions) {
    EXPECT_EQ(std::get<ScalarEstimate>(question.estimate).num_reports, 1);
  }
  // Charged once even across a restart (the reports are reloaded).
  Restart();
  EXPECT_EQ((*aggregator_->GetBudget(agent, study_id))[0].spent_nanos,
            4 * kNano);
}

}  // namespace
}  // namespace ldp
