// PreparedQuestion: one question worked out once gives every agent exactly
// what it would have worked out itself, and a mix-up is refused.
#include "client/core/prepared_question.h"

#include <memory>

#include "client/core/agent.h"
#include "client/core/agent_state_store.h"
#include "common/tasks/task_fingerprint.h"
#include "gtest/gtest.h"
#include "tests/testing/epsilon_nanos.h"
#include "tests/testing/statistics.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using ::ldp::testing::kEps;
using ::ldp::testing::SeededGenerator;
using ::ldp::testing::StatusIs;

RecordSchema PreparedSchema() {
  auto schema = RecordSchema::Create(
      {FieldSpec::Categorical("color", {"red", "green", "blue"})});
  EXPECT_OK(schema);
  return *schema;
}

// A histogram of colors charging `charge_nanos`, its oracle specified at
// `spec_epsilon`.
Task PreparedColorTask(uint64_t task_id, int64_t charge_nanos,
                       double spec_epsilon, uint64_t study_id = 1) {
  auto encoding =
      DomainEncoding::Create(FieldEncoding{.field = "color"}, PreparedSchema());
  EXPECT_OK(encoding);
  return {.study_id = study_id,
          .round_id = 1,
          .task_id = task_id,
          .epsilon_nanos = charge_nanos,
          .question = HistogramTask{
              .encoding = *encoding,
              .oracle = {.kind = FrequencyOracleKind::kOptimizedUnaryEncoding,
                         .epsilon = spec_epsilon}}};
}

std::unique_ptr<Agent> NewPreparedAgent(SeededGenerator& gen) {
  auto agent = Agent::Create({.record_json = R"({"color": "green"})",
                              .max_epsilon_per_study_nanos = kEps},
                             std::make_unique<MemoryAgentStateStore>(), gen);
  EXPECT_OK(agent);
  return agent.ok() ? std::move(*agent) : nullptr;
}

TEST(PreparedQuestion, HoldsTheMechanismAndTheFingerprintWhateverTheTaskId) {
  const auto first = PreparedQuestion::Prepare(
      PreparedColorTask(7, kEps / 2, 0.5), PreparedSchema());
  const auto second = PreparedQuestion::Prepare(
      PreparedColorTask(8, kEps / 2, 0.5), PreparedSchema());
  ASSERT_OK(first->status());
  auto mechanism = TaskMechanism::Create(PreparedColorTask(7, kEps / 2, 0.5));
  ASSERT_OK(mechanism);
  EXPECT_EQ(first->fingerprint(),
            TaskFingerprint((*mechanism)->canonical_task(), PreparedSchema()));
  EXPECT_FALSE(first->fingerprint().empty());
  EXPECT_EQ(first->fingerprint(), second->fingerprint());
  EXPECT_NEAR(first->mechanism().implemented_epsilon(), 0.5, 1e-6);
  EXPECT_LE(first->mechanism().implemented_epsilon(), 0.5);
  // Another ε is another question.
  EXPECT_NE(PreparedQuestion::Prepare(PreparedColorTask(7, kEps / 4, 0.25),
                                      PreparedSchema())
                ->fingerprint(),
            first->fingerprint());
}

TEST(PreparedQuestion, StatesWhyAQuestionIsRefused) {
  // Charges 1 for a randomizer specified at 0.5.
  EXPECT_THAT(PreparedQuestion::Prepare(PreparedColorTask(1, kEps, 0.5),
                                        PreparedSchema())
                  ->status(),
              StatusIs(absl::StatusCode::kInvalidArgument));
  // Built for another schema.
  auto other = RecordSchema::Create(
      {FieldSpec::Categorical("color", {"red", "green", "blue", "black"})});
  ASSERT_OK(other);
  EXPECT_THAT(
      PreparedQuestion::Prepare(PreparedColorTask(1, kEps / 2, 0.5), *other)
          ->status(),
      StatusIs(absl::StatusCode::kInvalidArgument));
}

// One preparation handed to two agents: each answers and is charged as if it
// had prepared the question itself, and a repeat is its memo, free.
TEST(PreparedQuestion, AgentsAnswerASharedPreparationAsTheirOwn) {
  SeededGenerator gen(11);
  const Task question = PreparedColorTask(0, kEps / 2, 0.5);
  const auto prepared = PreparedQuestion::Prepare(question, PreparedSchema());
  for (int a = 0; a < 2; ++a) {
    std::unique_ptr<Agent> agent = NewPreparedAgent(gen);
    ASSERT_NE(agent, nullptr);
    AgentTask task{
        .task = question, .schema = PreparedSchema(), .prepared = prepared};
    task.task.task_id = 10 + a;
    auto answer = agent->Answer(task);
    ASSERT_OK(answer);
    EXPECT_EQ(answer->source, AnswerSource::kFresh);
    EXPECT_EQ(agent->total_spent_nanos(), kEps / 2);
    task.task.task_id = 20 + a;  // the same question again, unprepared
    task.prepared = nullptr;
    auto again = agent->Answer(task);
    ASSERT_OK(again);
    EXPECT_EQ(again->source, AnswerSource::kMemo);
    EXPECT_EQ(again->report.payload, answer->report.payload);
    EXPECT_EQ(agent->total_spent_nanos(), kEps / 2);
  }
}

TEST(PreparedQuestion, AgentRefusesAPreparationRefusedOrOfAnotherTask) {
  SeededGenerator gen(12);
  std::unique_ptr<Agent> agent = NewPreparedAgent(gen);
  ASSERT_NE(agent, nullptr);
  // The preparation's refusal is the agent's, and nothing is charged.
  const Task refused = PreparedColorTask(1, kEps, 0.5);
  EXPECT_THAT(agent->Answer({.task = refused,
                             .schema = PreparedSchema(),
                             .prepared = PreparedQuestion::Prepare(
                                 refused, PreparedSchema())}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  // Another study's preparation for this study's task.
  EXPECT_THAT(agent->Answer(
                  {.task = PreparedColorTask(2, kEps / 2, 0.5, /*study_id=*/1),
                   .schema = PreparedSchema(),
                   .prepared = PreparedQuestion::Prepare(
                       PreparedColorTask(2, kEps / 2, 0.5, /*study_id=*/2),
                       PreparedSchema())}),
              StatusIs(absl::StatusCode::kInternal));
  EXPECT_EQ(agent->total_spent_nanos(), 0);
  EXPECT_TRUE(agent->PendingReports().empty());
}

}  // namespace
}  // namespace ldp
