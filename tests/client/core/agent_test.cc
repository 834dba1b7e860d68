#include "client/core/agent.h"

#include <memory>
#include <string>
#include <vector>

#include "client/core/agent_state_store.h"
#include "common/tasks/task_mechanism.h"
#include "gtest/gtest.h"
#include "tests/testing/epsilon_nanos.h"
#include "tests/testing/fake_clock.h"
#include "tests/testing/statistics.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_directory.h"

namespace ldp {
namespace {

using testing::SeededGenerator;
using testing::StatusIs;

using ::ldp::testing::kEps;
constexpr char kAgentRecordJson[] = R"({"age": 37, "color": "green"})";

RecordSchema AgentSchema() {
  auto schema = RecordSchema::Create(
      {FieldSpec::Int("age", 0, 99),
       FieldSpec::Categorical("color", {"red", "green", "blue"})});
  EXPECT_OK(schema);
  return *schema;
}

AgentTask MeanAge(uint64_t task_id, int64_t charge_nanos, double spec_epsilon,
                  uint64_t study_id = 1) {
  auto query = Query::Create(expr::Field("age"), {0, 99}, AgentSchema());
  EXPECT_OK(query);
  return AgentTask{
      .task = {.study_id = study_id,
               .round_id = 1,
               .task_id = task_id,
               .epsilon_nanos = charge_nanos,
               .question =
                   StatisticalQueryTask{
                       .query = *query,
                       .mechanism = {.kind = RealMechanismKind::kDuchi,
                                     .epsilon = spec_epsilon}}},
      .schema = AgentSchema()};
}

AgentTask ColorHistogram(uint64_t task_id, int64_t charge_nanos,
                         uint64_t study_id = 1) {
  auto encoding =
      DomainEncoding::Create(FieldEncoding{.field = "color"}, AgentSchema());
  EXPECT_OK(encoding);
  return AgentTask{
      .task =
          {.study_id = study_id,
           .round_id = 1,
           .task_id = task_id,
           .epsilon_nanos = charge_nanos,
           .question =
               HistogramTask{
                   .encoding = *encoding,
                   .oracle = {.kind =
                                  FrequencyOracleKind::kOptimizedUnaryEncoding,
                              .epsilon = static_cast<double>(charge_nanos) /
                                         kNanosPerEpsilon}}},
      .schema = AgentSchema()};
}

// The CDF of ages through a hierarchical tree; the strategy is specified at
// `spec_epsilon` (which should equal the charge).
AgentTask AgeCdf(uint64_t task_id, int64_t charge_nanos, double spec_epsilon,
                 uint64_t study_id = 1) {
  auto encoding =
      DomainEncoding::Create(FieldEncoding{.field = "age"}, AgentSchema());
  EXPECT_OK(encoding);
  StrategySpec strategy;
  strategy.kind = StrategyKind::kHierarchical;
  strategy.epsilon = spec_epsilon;
  strategy.domain_size = 100;
  strategy.branching = 4;
  return AgentTask{.task = {.study_id = study_id,
                            .round_id = 1,
                            .task_id = task_id,
                            .epsilon_nanos = charge_nanos,
                            .question = WorkloadTask{.encoding = *encoding,
                                                     .strategy = strategy}},
                   .schema = AgentSchema()};
}

// Records every state the agent saves; can be told to fail.
class RecordingStore : public AgentStateStore {
 public:
  absl::StatusOr<AgentState> Load() override { return AgentState{}; }
  absl::Status Save(const AgentState& state) override {
    if (fail) return absl::UnavailableError("disk full");
    saved.push_back(state);
    return absl::OkStatus();
  }
  bool fail = false;
  std::vector<AgentState> saved;
};

struct TestAgent {
  std::unique_ptr<Agent> agent;
  RecordingStore* store = nullptr;
};

TestAgent MakeTestAgent(SeededGenerator& gen, AgentOptions options = {}) {
  if (options.record_json.empty() && !options.record.has_value()) {
    options.record_json = kAgentRecordJson;
  }
  if (options.max_epsilon_per_study_nanos == 0) {
    options.max_epsilon_per_study_nanos = kEps;
  }
  auto store = std::make_unique<RecordingStore>();
  RecordingStore* raw = store.get();
  auto agent = Agent::Create(options, std::move(store), gen);
  EXPECT_OK(agent);
  return {std::move(*agent), raw};
}

// An agent on a file store in `directory`: opening it again is a restart.
std::unique_ptr<Agent> OpenFileAgent(const std::string& directory,
                                     const AgentOptions& options,
                                     SeededGenerator& gen) {
  auto store = FileAgentStateStore::Create({.directory = directory});
  EXPECT_OK(store);
  if (!store.ok()) return nullptr;
  auto agent = Agent::Create(options, std::move(*store), gen);
  EXPECT_OK(agent);
  return agent.ok() ? std::move(*agent) : nullptr;
}

// Invariant 1: the report is exactly TaskMechanism::Randomize of the record
// (replayed here with an identically seeded generator), and then a report id
// from the same generator; nothing else is in a TaskReport.
TEST(Agent, ReportIsExactlyTheRandomizerOutput) {
  SeededGenerator gen(1);
  TestAgent t = MakeTestAgent(gen);
  for (const AgentTask& task :
       {MeanAge(1, kEps / 2, 0.5), ColorHistogram(2, kEps / 2)}) {
    SeededGenerator replay = gen;  // same state as the agent's generator
    auto answer = t.agent->Answer(task);
    ASSERT_OK(answer);
    EXPECT_EQ(answer->source, AnswerSource::kFresh);
    EXPECT_EQ(answer->report.task_id, task.task.task_id);
    auto mechanism = TaskMechanism::Create(task.task);
    ASSERT_OK(mechanism);
    Record record;
    record.values["age"] = int64_t{37};
    record.values["color"] = std::string("green");
    EXPECT_EQ(answer->report.payload, (*mechanism)->Randomize(record, replay));
    const uint64_t low = replay();
    EXPECT_EQ(answer->report.report_id[0], static_cast<uint8_t>(low));
    EXPECT_OK((*mechanism)->Validate(answer->report.payload));
  }
  EXPECT_EQ(t.agent->Budget(1)->spent_nanos, kEps);
}

// Invariant 4: TaskMechanism::Create fails when the randomizer implements
// more ε than the task charges; the agent refuses, spends nothing, saves
// nothing and has nothing to send.
TEST(Agent, RefusesARandomizerStrongerThanTheCharge) {
  SeededGenerator gen(2);
  TestAgent t = MakeTestAgent(gen);
  EXPECT_FALSE(TaskMechanism::Create(MeanAge(1, kEps / 2, 1.0).task).ok());
  EXPECT_THAT(t.agent->Answer(MeanAge(1, kEps / 2, 1.0)),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(t.agent->Answer(MeanAge(2, 0, 1.0)),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(t.agent->Answer(MeanAge(3, -kEps, 1.0)),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(t.agent->Answer(MeanAge(4, kEps, -1.0)),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_TRUE(t.store->saved.empty());
  EXPECT_TRUE(t.agent->PendingReports().empty());
  EXPECT_FALSE(t.agent->Budget(1).has_value());
}

// ... and also a randomizer specified below the charge: the agent would pay
// for privacy loss it does not incur.
TEST(Agent, RefusesAChargeAboveTheRandomizersEpsilon) {
  SeededGenerator gen(3);
  TestAgent t = MakeTestAgent(gen);
  auto refused = t.agent->Answer(MeanAge(1, kEps, 0.5));
  EXPECT_THAT(refused, StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_NE(refused.status().message().find("refusing task 1 of study 1"),
            std::string::npos);
  EXPECT_TRUE(t.store->saved.empty());
}

TEST(Agent, RefusesTasksOverItsOwnCap) {
  SeededGenerator gen(4);
  TestAgent t = MakeTestAgent(gen);  // cap 1 ε per study
  ASSERT_OK(t.agent->Answer(MeanAge(1, kEps * 6 / 10, 0.6)));
  const size_t saves = t.store->saved.size();
  EXPECT_THAT(t.agent->Answer(ColorHistogram(2, kEps * 6 / 10)),
              StatusIs(absl::StatusCode::kFailedPrecondition));
  EXPECT_EQ(t.store->saved.size(), saves);
  EXPECT_EQ(t.agent->Budget(1)->spent_nanos, kEps * 6 / 10);
  EXPECT_EQ(t.agent->PendingReports().size(), 1u);
  // Exactly the remainder still fits; one nano-ε more never does.
  EXPECT_THAT(t.agent->Answer(ColorHistogram(3, kEps * 4 / 10 + 1)),
              StatusIs(absl::StatusCode::kFailedPrecondition));
  ASSERT_OK(t.agent->Answer(ColorHistogram(4, kEps * 4 / 10)));
  EXPECT_EQ(t.agent->Budget(1)->spent_nanos, kEps);
  // Another study has its own cap.
  EXPECT_OK(t.agent->Answer(ColorHistogram(5, kEps / 2, /*study=*/2)));
}

TEST(Agent, TakesTheLowerOfItsCapAndTheServersAndNeverRaisesIt) {
  SeededGenerator gen(5);
  TestAgent t = MakeTestAgent(gen);
  AgentTask first = MeanAge(1, kEps / 4, 0.25);
  first.study_cap_nanos = kEps / 2;  // server says 0.5
  ASSERT_OK(t.agent->Answer(first));
  EXPECT_EQ(t.agent->Budget(1)->cap_nanos, kEps / 2);
  AgentTask raised = ColorHistogram(2, kEps / 2);
  raised.study_cap_nanos = 5 * kEps;  // a later, larger claim is ignored
  EXPECT_THAT(t.agent->Answer(raised),
              StatusIs(absl::StatusCode::kFailedPrecondition));
  AgentTask huge = ColorHistogram(3, 2 * kEps, /*study=*/3);
  huge.study_cap_nanos = 5 * kEps;  // above the agent's own 1 ε
  EXPECT_THAT(t.agent->Answer(huge),
              StatusIs(absl::StatusCode::kFailedPrecondition));
}

TEST(Agent, RespectsATotalLimitAcrossStudies) {
  SeededGenerator gen(6);
  TestAgent t = MakeTestAgent(gen, {.max_epsilon_per_study_nanos = kEps,
                                    .caps = {.lifetime_nanos = 3 * kEps / 2}});
  ASSERT_OK(t.agent->Answer(ColorHistogram(1, kEps, /*study=*/1)));
  EXPECT_THAT(t.agent->Answer(MeanAge(2, kEps, 1.0, /*study=*/2)),
              StatusIs(absl::StatusCode::kFailedPrecondition));
  ASSERT_OK(t.agent->Answer(ColorHistogram(3, kEps / 2, /*study=*/2)));
  EXPECT_EQ(t.agent->total_spent_nanos(), 3 * kEps / 2);
}

// Invariant 4: a repeated identical question (a new task in a later round)
// gets the same payload, a fresh report id, and costs nothing — even once
// the budget is used up.
TEST(Agent, AnswersARepeatedQuestionFromTheMemoAtNoCost) {
  SeededGenerator gen(7);
  TestAgent t = MakeTestAgent(gen);
  auto first = t.agent->Answer(ColorHistogram(1, kEps));
  ASSERT_OK(first);
  AgentTask again = ColorHistogram(2, kEps);
  again.task.round_id = 2;
  for (int repeat = 0; repeat < 3; ++repeat) {
    again.task.task_id = 2 + repeat;
    auto second = t.agent->Answer(again);
    ASSERT_OK(second);
    EXPECT_EQ(second->source, AnswerSource::kMemo);
    EXPECT_EQ(second->report.payload, first->report.payload);
    EXPECT_EQ(second->report.task_id, again.task.task_id);
    EXPECT_NE(second->report.report_id, first->report.report_id);
  }
  EXPECT_EQ(t.agent->Budget(1)->spent_nanos, kEps);
  // A different question is not a repeat: it needs budget, which is gone.
  EXPECT_THAT(t.agent->Answer(MeanAge(9, kEps, 1.0)),
              StatusIs(absl::StatusCode::kFailedPrecondition));
}

// A memo saved before reports kept their length (num_bits 0) is answered
// with the task's length filled in, so the re-sent payload is exactly the
// task's length on the wire.
TEST(Agent, AMemoSavedWithoutALengthIsAnsweredWithTheTasksLength) {
  SeededGenerator gen(17);
  TestAgent t = MakeTestAgent(gen);
  auto first = t.agent->Answer(ColorHistogram(1, kEps));
  ASSERT_OK(first);
  AgentState legacy = t.store->saved.back();
  ASSERT_EQ(legacy.memo.size(), 1u);
  auto& memo = std::get<BitVectorReport>(
      std::get<FrequencyReport>(legacy.memo.begin()->second.payload));
  ASSERT_EQ(memo.num_bits, 3u);  // red, green, blue
  memo.num_bits = 0;
  struct LegacyStore : RecordingStore {
    AgentState state;
    absl::StatusOr<AgentState> Load() override { return state; }
  };
  auto store = std::make_unique<LegacyStore>();
  store->state = legacy;
  auto agent = Agent::Create(
      {.record_json = kAgentRecordJson, .max_epsilon_per_study_nanos = kEps},
      std::move(store), gen);
  ASSERT_OK(agent);
  AgentTask again = ColorHistogram(2, kEps);
  again.task.round_id = 2;
  auto second = (*agent)->Answer(again);
  ASSERT_OK(second);
  EXPECT_EQ(second->source, AnswerSource::kMemo);
  EXPECT_EQ(second->report.payload, first->report.payload);
}

TEST(Agent, AnswersTheSameTaskWithTheSameReport) {
  SeededGenerator gen(8);
  TestAgent t = MakeTestAgent(gen);
  auto first = t.agent->Answer(MeanAge(1, kEps / 2, 0.5));
  ASSERT_OK(first);
  const size_t saves = t.store->saved.size();
  auto again = t.agent->Answer(MeanAge(1, kEps / 2, 0.5));
  ASSERT_OK(again);
  EXPECT_EQ(again->source, AnswerSource::kStored);
  EXPECT_EQ(again->report.report_id, first->report.report_id);
  EXPECT_EQ(again->report.payload, first->report.payload);
  EXPECT_EQ(t.agent->Budget(1)->spent_nanos, kEps / 2);
  EXPECT_EQ(t.store->saved.size(), saves);
}

// The spend, memo entry and report are durable before Answer returns the
// report; if saving fails, there is no report to send and nothing changes.
TEST(Agent, SavesTheBudgetBeforeReturningAReport) {
  SeededGenerator gen(9);
  TestAgent t = MakeTestAgent(gen);
  auto answer = t.agent->Answer(MeanAge(1, kEps / 2, 0.5));
  ASSERT_OK(answer);
  ASSERT_EQ(t.store->saved.size(), 1u);
  const AgentState& saved = t.store->saved.back();
  EXPECT_EQ(saved.studies.at(1).spent_nanos, kEps / 2);
  ASSERT_EQ(saved.reports.count(1), 1u);
  EXPECT_EQ(saved.reports.at(1).report.report_id, answer->report.report_id);
  EXPECT_EQ(saved.reports.at(1).report.payload, answer->report.payload);
  EXPECT_FALSE(saved.reports.at(1).settled);
  EXPECT_EQ(saved.memo.size(), 1u);

  t.store->fail = true;
  EXPECT_THAT(t.agent->Answer(ColorHistogram(2, kEps / 4)),
              StatusIs(absl::StatusCode::kUnavailable));
  EXPECT_EQ(t.agent->Budget(1)->spent_nanos, kEps / 2);
  EXPECT_EQ(t.agent->PendingReports().size(), 1u);
  EXPECT_TRUE(t.agent->state() == saved);
}

TEST(Agent, SettlesReportsOnFinalAcksAndKeepsTransientOnesPending) {
  SeededGenerator gen(10);
  TestAgent t = MakeTestAgent(gen);
  ASSERT_OK(t.agent->Answer(MeanAge(1, kEps / 4, 0.25)));
  ASSERT_OK(t.agent->Answer(ColorHistogram(2, kEps / 4)));
  // Another question (not a memo answer): study 2 is charged.
  ASSERT_OK(
      t.agent->Answer(MeanAge(3, kEps / 4 + 1, 0.250000001, /*study=*/2)));
  ASSERT_OK(t.agent->RecordAck(1, absl::OkStatus()));
  ASSERT_OK(t.agent->RecordAck(2, absl::UnavailableError("try later")));
  ASSERT_OK(
      t.agent->RecordAck(3, absl::FailedPreconditionError("round closed")));
  const std::vector<TaskReport> pending = t.agent->PendingReports();
  ASSERT_EQ(pending.size(), 1u);
  EXPECT_EQ(pending[0].task_id, 2u);
  EXPECT_TRUE(t.store->saved.back().reports.at(1).settled);
  EXPECT_THAT(t.agent->RecordAck(99, absl::OkStatus()),
              StatusIs(absl::StatusCode::kNotFound));
  // Budget is never refunded: the server saw the report either way.
  ASSERT_TRUE(t.agent->Budget(2).has_value());
  EXPECT_EQ(t.agent->Budget(2)->spent_nanos, kEps / 4 + 1);
}

TEST(Agent, RefusesQuestionsBuiltForAnotherSchema) {
  SeededGenerator gen(11);
  TestAgent t = MakeTestAgent(gen);
  auto other = RecordSchema::Create({FieldSpec::Int("age", 0, 120)});
  ASSERT_OK(other);
  AgentTask task = MeanAge(1, kEps / 2, 0.5);
  task.schema = *other;
  EXPECT_THAT(t.agent->Answer(task),
              StatusIs(absl::StatusCode::kInvalidArgument));
  AgentTask histogram = ColorHistogram(2, kEps / 2);
  histogram.schema = *other;  // has no "color" field
  EXPECT_THAT(t.agent->Answer(histogram),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(Agent, RefusesTasksWhoseRoundHasClosed) {
  SeededGenerator gen(12);
  FakeClock clock(absl::FromUnixSeconds(1000));
  TestAgent t = MakeTestAgent(
      gen, {.max_epsilon_per_study_nanos = kEps, .clock = &clock});
  AgentTask task = MeanAge(1, kEps / 2, 0.5);
  task.deadline = absl::FromUnixSeconds(1000);
  EXPECT_THAT(t.agent->Answer(task),
              StatusIs(absl::StatusCode::kFailedPrecondition));
  clock.SetTime(absl::FromUnixSeconds(999));
  EXPECT_OK(t.agent->Answer(task));
}

// Invariant 8: a record with missing, out-of-range, wrongly typed or
// unknown values still yields exactly one valid report, never a refusal the
// server could see; only a file that is not a JSON object is rejected, once,
// when the agent starts.
TEST(Agent, AnswersOddRecordsAndRejectsOnlyUnreadableFilesAtStart) {
  for (
      const char* json :
      {R"({})", R"({"age": null, "color": "purple"})", R"({"age": 1e9})",
       R"({"agee": 3, "age": "n/a", "color": 7, "other_study_field": true})"}) {
    SeededGenerator gen(13);
    TestAgent t = MakeTestAgent(
        gen, {.record_json = json, .max_epsilon_per_study_nanos = kEps});
    for (const AgentTask& task :
         {MeanAge(1, kEps / 2, 0.5), ColorHistogram(2, kEps / 2)}) {
      auto answer = t.agent->Answer(task);
      ASSERT_OK(answer) << json;
      EXPECT_OK((*TaskMechanism::Create(task.task))
                    ->Validate(answer->report.payload));
    }
  }
  for (const char* broken : {R"({"age": )", R"([1, 2])", "not json"}) {
    SeededGenerator gen(14);
    EXPECT_THAT(Agent::Create({.record_json = broken,
                               .max_epsilon_per_study_nanos = kEps},
                              std::make_unique<MemoryAgentStateStore>(), gen),
                StatusIs(absl::StatusCode::kInvalidArgument))
        << broken;
  }
}

TEST(Agent, KeepsItsBudgetMemoAndReportsAcrossARestart) {
  testing::TempDirectory dir;
  SeededGenerator gen(15);
  const AgentOptions options = {.record_json = kAgentRecordJson,
                                .max_epsilon_per_study_nanos = kEps};
  TaskReport sent;
  {
    auto agent = OpenFileAgent(dir.path(), options, gen);
    ASSERT_NE(agent, nullptr);
    auto answer = agent->Answer(ColorHistogram(1, 3 * kEps / 4));
    ASSERT_OK(answer);
    sent = answer->report;
  }
  auto agent = OpenFileAgent(dir.path(), options, gen);
  ASSERT_NE(agent, nullptr);
  EXPECT_EQ(agent->Budget(1)->spent_nanos, 3 * kEps / 4);
  ASSERT_EQ(agent->PendingReports().size(), 1u);
  EXPECT_EQ(agent->PendingReports()[0].report_id, sent.report_id);
  EXPECT_EQ(agent->PendingReports()[0].payload, sent.payload);
  // The remaining 1/4 ε does not cover a fresh 1/2 ε question...
  EXPECT_THAT(agent->Answer(MeanAge(2, kEps / 2, 0.5)),
              StatusIs(absl::StatusCode::kFailedPrecondition));
  // ...but the memoized one is still free.
  auto repeat = agent->Answer(ColorHistogram(3, 3 * kEps / 4));
  ASSERT_OK(repeat);
  EXPECT_EQ(repeat->source, AnswerSource::kMemo);
  EXPECT_EQ(repeat->report.payload, sent.payload);
}

// Workload tasks follow every rule histogram tasks do: the report is the
// strategy's output, the ε checks refuse a mismatch either way, a repeat is
// answered from the memo, odd records still yield one valid report, and the
// report survives a restart byte for byte.
TEST(Agent, AnswersWorkloadTasksLikeHistogramTasks) {
  testing::TempDirectory dir;
  SeededGenerator gen(17);
  const AgentOptions options = {.record_json = kAgentRecordJson,
                                .max_epsilon_per_study_nanos = kEps};
  TaskReport sent;
  {
    auto agent = OpenFileAgent(dir.path(), options, gen);
    ASSERT_NE(agent, nullptr);
    // Specified below or above the charge: refused, nothing spent.
    EXPECT_THAT(agent->Answer(AgeCdf(1, kEps / 2, 0.25)),
                StatusIs(absl::StatusCode::kInvalidArgument));
    EXPECT_THAT(agent->Answer(AgeCdf(1, kEps / 4, 0.5)),
                StatusIs(absl::StatusCode::kInvalidArgument));
    // Built for another schema: refused.
    AgentTask other = AgeCdf(1, kEps / 2, 0.5);
    other.schema = *RecordSchema::Create({FieldSpec::Int("age", 0, 120)});
    EXPECT_THAT(agent->Answer(other),
                StatusIs(absl::StatusCode::kInvalidArgument));
    EXPECT_FALSE(agent->Budget(1).has_value());

    const AgentTask task = AgeCdf(1, kEps / 2, 0.5);
    SeededGenerator replay = gen;
    auto answer = agent->Answer(task);
    ASSERT_OK(answer);
    EXPECT_EQ(answer->source, AnswerSource::kFresh);
    auto mechanism = TaskMechanism::Create(task.task);
    ASSERT_OK(mechanism);
    Record record;
    record.values["age"] = int64_t{37};
    record.values["color"] = std::string("green");
    EXPECT_EQ(answer->report.payload, (*mechanism)->Randomize(record, replay));
    EXPECT_TRUE(std::holds_alternative<WorkloadReport>(answer->report.payload));
    EXPECT_OK((*mechanism)->Validate(answer->report.payload));
    EXPECT_EQ(agent->Budget(1)->spent_nanos, kEps / 2);
    sent = answer->report;
  }
  auto agent = OpenFileAgent(dir.path(), options, gen);
  ASSERT_NE(agent, nullptr);
  ASSERT_EQ(agent->PendingReports().size(), 1u);
  EXPECT_EQ(agent->PendingReports()[0].payload, sent.payload);
  // The same question in a later round: the memo, at no cost.
  AgentTask again = AgeCdf(2, kEps / 2, 0.5);
  again.task.round_id = 2;
  auto repeat = agent->Answer(again);
  ASSERT_OK(repeat);
  EXPECT_EQ(repeat->source, AnswerSource::kMemo);
  EXPECT_EQ(repeat->report.payload, sent.payload);
  EXPECT_EQ(agent->Budget(1)->spent_nanos, kEps / 2);

  for (const char* json : {R"({})", R"({"age": 1e9})", R"({"age": "n/a"})"}) {
    SeededGenerator odd_gen(18);
    TestAgent t = MakeTestAgent(
        odd_gen, {.record_json = json, .max_epsilon_per_study_nanos = kEps});
    const AgentTask task = AgeCdf(1, kEps / 2, 0.5);
    auto answer = t.agent->Answer(task);
    ASSERT_OK(answer) << json;
    EXPECT_OK(
        (*TaskMechanism::Create(task.task))->Validate(answer->report.payload));
  }
}

TEST(Agent, ValidatesItsOptions) {
  SeededGenerator gen(16);
  auto create = [&gen](AgentOptions options) {
    return Agent::Create(options, std::make_unique<MemoryAgentStateStore>(),
                         gen);
  };
  EXPECT_THAT(create({.max_epsilon_per_study_nanos = kEps}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(create({.record_json = "{}",
                      .record = Record{},
                      .max_epsilon_per_study_nanos = kEps}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(create({.record_json = "{}", .max_epsilon_per_study_nanos = 0}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(create({.record_json = "{}",
                      .max_epsilon_per_study_nanos = 1,
                      .caps = {.lifetime_nanos = -1}}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(create({.record_json = "{}", .caps = {.period_nanos = 0}}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(create({.record_json = "{}", .caps = {.period_seconds = 0}}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(create({.record_json = "{}", .max_state_bytes = 100}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(create({.record_json = "{}", .retention = absl::ZeroDuration()}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(
      Agent::Create({.record = Record{}, .max_epsilon_per_study_nanos = 1},
                    nullptr, gen),
      StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_OK(create({.record = Record{}, .max_epsilon_per_study_nanos = 1}));
}

}  // namespace
}  // namespace ldp
