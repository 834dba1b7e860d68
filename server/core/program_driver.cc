// The analyst programs' driver; see the header.
#include "server/core/program_driver.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/base/status_macros.h"
#include "planning/programs/program_registry.h"
#include "planning/programs/program_schedule.h"
#include "server/store/study_codec.h"

namespace ldp {
namespace {

// The program's answers to every round before `end` (exclusive).
std::vector<RoundAnswers> History(
    const std::vector<std::shared_ptr<RoundRuntime>>& rounds, size_t end,
    double confidence) {
  std::vector<RoundAnswers> history;
  history.reserve(end);
  for (size_t r = 0; r < end; ++r) {
    history.push_back(AnswersOf(*rounds[r], confidence));
  }
  return history;
}

}  // namespace

ProgramResult FailedProgramResult(const absl::Status& status) {
  return {.summary =
              absl::StrCat("the analyst program failed: ", status.message())};
}

RoundAnswers AnswersOf(const RoundRuntime& round, double confidence) {
  RoundAnswers answers;
  for (int q = 0; q < round.num_questions(); ++q) {
    TaskEstimate estimate = round.Estimate(q, confidence);
    AddSamplingVariance(round.plan(), q, estimate);
    answers.answers.push_back(
        {.question_id = round.plan().questions()[q].question_id,
         .estimate = std::move(estimate)});
  }
  return answers;
}

absl::Status ProgramDriver::LoadProgram(StudyRuntime& study) const {
  const StudySpec& spec = *study.spec;
  if (!spec.program.has_value()) {
    return absl::InvalidArgumentError("interactive study without a program");
  }
  ASSIGN_OR_RETURN(
      std::unique_ptr<AnalystProgram> program,
      CreateAnalystProgram(*spec.program,
                           {.schema = spec.schema,
                            .epsilon_cap_nanos = spec.epsilon_cap_nanos,
                            .confidence = spec.confidence}));
  study.schedule = program->Schedule();
  study.program = std::move(program);
  return absl::OkStatus();
}

absl::StatusOr<RoundPlan> ProgramDriver::PlanFirstRound(
    StudyRuntime& study) const {
  const StudySpec& spec = *study.spec;
  if (spec.shuffle.has_value()) {
    // Its rounds depend on earlier estimates, which the amplification
    // bounds (one batch of independent reports) do not cover.
    return absl::InvalidArgumentError(
        "shuffle: only NONINTERACTIVE studies can be shuffled");
  }
  if (!spec.program.has_value()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "an INTERACTIVE study needs an analyst program to plan its rounds; "
        "known programs: ",
        absl::StrJoin(AnalystProgramNames(), ", ")));
  }
  if (!spec.questions.empty()) {
    return absl::InvalidArgumentError(
        "an INTERACTIVE study's questions come from its analyst program; "
        "leave `questions` empty");
  }
  if (spec.epsilon_cap_nanos <= 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "epsilon_cap_nanos must be > 0, got ", spec.epsilon_cap_nanos));
  }
  RETURN_IF_ERROR(LoadProgram(study));
  RETURN_IF_ERROR(CheckSchedule(study.schedule, spec.epsilon_cap_nanos));
  ASSIGN_OR_RETURN(ProgramStep step, study.program->Next({}));
  if (!step.round.has_value()) {
    return absl::InvalidArgumentError(
        "the analyst program asks no round at all");
  }
  study.SetResult(std::move(step.result), false);
  return PlanProgramRound(study, *step.round, 0);
}

absl::StatusOr<RoundPlan> ProgramDriver::PlanProgramRound(
    const StudyRuntime& study, const ProgramRound& round, size_t index) const {
  if (index >= study.schedule.size()) {
    return absl::FailedPreconditionError(
        absl::StrCat("the analyst program asks for round ", index + 1,
                     " but scheduled only ", study.schedule.size()));
  }
  ASSIGN_OR_RETURN(
      RoundPlan plan,
      RoundPlan::CreateForProgram(*study.spec, round, study.schedule[index],
                                  options_.strategy_planner));
  plan.set_questions_bytes(EncodeQuestions(round.questions));
  return plan;
}

absl::StatusOr<std::shared_ptr<RoundRuntime>> ProgramDriver::PlanNextRound(
    StudyRuntime& study, absl::Time now) {
  const std::vector<std::shared_ptr<RoundRuntime>> rounds = study.Rounds();
  const std::vector<RoundAnswers> history =
      History(rounds, rounds.size(), study.spec->confidence);
  ASSIGN_OR_RETURN(ProgramStep step, study.program->Next(history));
  // The study's deadline ends it too: no round starts at or after it.
  if (!step.round.has_value() || now >= study.spec->deadline) {
    study.SetResult(std::move(step.result), true);
    return nullptr;
  }
  ASSIGN_OR_RETURN(RoundPlan plan,
                   PlanProgramRound(study, *step.round, history.size()));
  ASSIGN_OR_RETURN(const uint64_t round_id, studies_.NextRoundId());
  study.SetResult(std::move(step.result), false);
  const RoundRow row{.round_id = round_id,
                     .study_id = study.study_id,
                     .state = RoundState::kOpen,
                     .start_time = now,
                     .deadline = now + study.spec->round_duration};
  return std::make_shared<RoundRuntime>(row, study.spec, std::move(plan));
}

std::shared_ptr<RoundRuntime> ProgramDriver::Resume(StudyRuntime& study) const {
  std::shared_ptr<RoundRuntime> latest = study.LatestRound();
  if (latest == nullptr) return nullptr;
  if (study.state.load() == StudyState::kActive &&
      latest->state() != RoundState::kOpen) {
    return latest;
  }
  RecomputeResult(study);
  return nullptr;
}

void ProgramDriver::RecomputeResult(StudyRuntime& study) const {
  const std::vector<std::shared_ptr<RoundRuntime>> rounds = study.Rounds();
  if (rounds.empty()) return;
  const size_t closed = study.state.load() == StudyState::kActive
                            ? rounds.size() - 1
                            : rounds.size();
  absl::StatusOr<ProgramStep> step =
      study.program->Next(History(rounds, closed, study.spec->confidence));
  if (!step.ok()) {
    study.SetResult(FailedProgramResult(step.status()), true);
    return;
  }
  study.SetResult(std::move(step->result), !step->round.has_value());
}

}  // namespace ldp
