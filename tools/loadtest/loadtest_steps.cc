// The simulated agent's steps; see the header.
#include "tools/loadtest/loadtest_steps.h"

#include <variant>

#include "absl/time/clock.h"
#include "client/core/agent_state_store.h"
#include "tools/loadtest/loadtest_study.h"

namespace ldp {

void AnswerTasks(Agent& agent, const TaskBatch& batch, uint64_t study_id,
                 Totals& totals) {
  totals.refusals += static_cast<int64_t>(batch.malformed.size());
  for (const AgentTask& task : batch.tasks) {
    if (task.task.study_id != study_id) continue;  // another study's
    ++totals.tasks;
    if (auto answer = agent.Answer(task); !answer.ok()) {
      ++totals.refusals;
      totals.Error("answer", answer.status());
    }
  }
}

namespace {

// Counts an ack; an accepted one adds agent `index` to `truth`.
int64_t Count(const absl::Status& ack, PopulationTruth& truth, int64_t index,
              const Shared& shared, Totals& totals) {
  if (!ack.ok()) {
    ++totals.rejected;
    totals.Error("ack", ack);
    return 0;
  }
  ++totals.accepted;
  const uint32_t item = shared.population.ItemOf(index);
  truth.Add(item, shared.population.ValueOf(item));
  return 1;
}

}  // namespace

int64_t Tally(const absl::Status& ack, const ReportPayload& payload,
              int64_t index, const Shared& shared, Totals& totals) {
  PopulationTruth& truth = std::holds_alternative<WorkloadReport>(payload)
                               ? totals.workload_truth
                           : std::holds_alternative<FrequencyReport>(payload)
                               ? totals.histogram_truth
                               : totals.mean_truth;
  return Count(ack, truth, index, shared, totals);
}

int64_t TallySealed(const absl::Status& ack, const Task* task, int64_t index,
                    const Shared& shared, Totals& totals) {
  if (task == nullptr) {
    return Count(absl::InternalError("a sealed report for a task the agent "
                                     "was not given"),
                 totals.mean_truth, index, shared, totals);
  }
  PopulationTruth& truth =
      std::holds_alternative<WorkloadTask>(task->question)
          ? totals.workload_truth
      : std::holds_alternative<HistogramTask>(task->question)
          ? totals.histogram_truth
          : totals.mean_truth;
  return Count(ack, truth, index, shared, totals);
}

const Task* FindTask(const TaskBatch& batch, uint64_t task_id) {
  for (const AgentTask& task : batch.tasks) {
    if (task.task.task_id == task_id) return &task.task;
  }
  return nullptr;
}

void Pace(int64_t index, const Shared& shared) {
  if (shared.run.rate <= 0) return;
  const absl::Time due =
      shared.start +
      absl::Seconds(static_cast<double>(index) / shared.run.rate);
  const absl::Duration wait = due - absl::Now();
  if (wait > absl::ZeroDuration()) absl::SleepFor(wait);
}

absl::StatusOr<std::unique_ptr<Agent>> MakeAgent(int64_t index,
                                                 const Shared& shared,
                                                 SecureRandom& random) {
  const LoadtestConfig& config = shared.config;
  return Agent::Create(
      {.record =
           config.num_bits > 0
               ? BitRecord(shared.population.ItemOf(index), config.num_bits)
           : config.rappor.has_value()
               ? RapporRecord(shared.population.ItemOf(index))
               : shared.population.RecordOf(index),
       .max_epsilon_per_study_nanos = config.epsilon_nanos,
       // A simulated agent lives for this one study: its caps are the
       // study's charge, so it refuses anything beyond it like a device.
       .caps = {.lifetime_nanos = config.epsilon_nanos,
                .period_nanos = config.epsilon_nanos}},
      std::make_unique<SimulatedAgentStateStore>(), random);
}

}  // namespace ldp
