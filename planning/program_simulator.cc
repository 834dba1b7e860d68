// In-process rounds of an analyst program; see the header.
#include "planning/program_simulator.h"

#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/task_estimation/task_accumulator.h"
#include "common/tasks/task_mechanism.h"
#include "planning/planner.h"
#include "planning/programs/program_registry.h"
#include "planning/programs/program_schedule.h"

namespace ldp {

absl::StatusOr<SimulationResult> SimulateProgram(const AnalystProgram& program,
                                                 const StudySpec& study,
                                                 int64_t num_agents,
                                                 const RecordSource& records,
                                                 absl::BitGenRef gen) {
  if (num_agents < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("num_agents must be >= 1, got ", num_agents));
  }
  const std::vector<ScheduledRound> schedule = program.Schedule();
  RETURN_IF_ERROR(CheckSchedule(schedule, study.epsilon_cap_nanos));
  std::vector<int64_t> spent(num_agents + 1, 0);
  SimulationResult result;
  std::vector<RoundAnswers> history;
  while (true) {
    ASSIGN_OR_RETURN(ProgramStep step, program.Next(history));
    if (!step.round.has_value()) {
      result.result = std::move(step.result);
      break;
    }
    const size_t k = history.size();
    if (k >= schedule.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat("the program asks for round ", k + 1,
                       " but scheduled only ", schedule.size()));
    }
    ASSIGN_OR_RETURN(RoundPlan plan, RoundPlan::CreateForProgram(
                                         study, *step.round, schedule[k]));
    std::vector<TaskAccumulator> accumulators;
    for (const PlannedQuestion& q : plan.questions()) {
      accumulators.emplace_back(q.mechanism);
    }
    for (uint64_t agent = 1; agent <= static_cast<uint64_t>(num_agents);
         ++agent) {
      if (!plan.AsksAgent(agent)) continue;
      const int q = plan.SampleQuestion(agent);
      const PlannedQuestion& planned = plan.questions()[q];
      const int64_t cost = planned.task->epsilon_nanos;
      if (spent[agent] > study.epsilon_cap_nanos - cost) {
        ++result.refused_over_cap;
        continue;
      }
      result.num_agents_charged += spent[agent] == 0;
      spent[agent] += cost;
      result.max_spent_nanos = std::max(result.max_spent_nanos, spent[agent]);
      RETURN_IF_ERROR(accumulators[q].Add(
          planned.mechanism->Randomize(records(agent), gen)));
    }
    SimulatedRound round{.name = schedule[k].name,
                         .result_before = std::move(step.result)};
    for (size_t q = 0; q < accumulators.size(); ++q) {
      TaskEstimate estimate = accumulators[q].Estimate(study.confidence);
      AddSamplingVariance(plan, static_cast<int>(q), estimate);
      round.question_ids.push_back(plan.questions()[q].question_id);
      round.num_reports.push_back(accumulators[q].num_reports());
      round.answers.answers.push_back(
          {.question_id = plan.questions()[q].question_id,
           .estimate = std::move(estimate)});
    }
    history.push_back(round.answers);
    result.rounds.push_back(std::move(round));
  }
  return result;
}

absl::StatusOr<SimulationResult> SimulateStudy(const StudySpec& study,
                                               int64_t num_agents,
                                               const RecordSource& records,
                                               absl::BitGenRef gen) {
  if (!study.program.has_value()) {
    return absl::InvalidArgumentError("the study names no analyst program");
  }
  ASSIGN_OR_RETURN(
      auto program,
      CreateAnalystProgram(*study.program,
                           {.schema = study.schema,
                            .epsilon_cap_nanos = study.epsilon_cap_nanos,
                            .confidence = study.confidence}));
  return SimulateProgram(*program, study, num_agents, records, gen);
}

}  // namespace ldp
