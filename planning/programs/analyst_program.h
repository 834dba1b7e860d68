// Analyst programs: the server-side half of an interactive study.
//
// An interactive study asks a later round's questions from the estimates of
// earlier ones (DESIGN "Noninteractive vs interactive"). The code that makes
// that choice is an analyst program: a pure function from the answers so far
// to the next round, or to a final result. The round engine (the aggregator
// on a real server, program_simulator.h in process) runs it; the program
// never sees reports, agents or gRPC.
//
// Budget: before any report, a program states its whole schedule — which
// slice of the population each round asks and the εₜ it charges there
// (program_schedule.h). The engine refuses a study whose schedule does not
// fit the per-agent cap, and refuses a round that strays from the schedule,
// so the cap holds whatever the estimates turn out to be.
//
// Programs must be deterministic: the engine may call Next with the same
// history again (after a restart) and must get the same round.
#ifndef LDP_PLANNING_PROGRAMS_ANALYST_PROGRAM_H_
#define LDP_PLANNING_PROGRAMS_ANALYST_PROGRAM_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "common/estimation/estimate.h"
#include "common/queries/record_schema.h"
#include "common/task_estimation/task_estimate.h"
#include "common/tasks/study_spec.h"
#include "planning/programs/program_schedule.h"

namespace ldp {

// The estimate of one question, as the engine computed it.
struct QuestionAnswer {
  std::string question_id{};
  // ScalarEstimate for a statistical query, HistogramEstimate (unbiased,
  // with per-item variances) for a histogram question.
  TaskEstimate estimate{};
};

// One closed round's answers, in the order of its questions.
struct RoundAnswers {
  std::vector<QuestionAnswer> answers{};
};

// A round a program asks for. Agents of the round's slice are split
// between its questions (sample splitting, in proportion to
// target_reports; 0 = equal shares), each answering one question.
struct ProgramRound {
  std::vector<Question> questions{};  // each with epsilon_nanos > 0
};

// One released value of a program's result.
struct ProgramValue {
  std::string name{};
  double value = 0;
  // Set when the program can state the value's uncertainty.
  std::optional<Interval> interval{};
};

struct ProgramResult {
  std::string summary{};  // one line for people
  std::vector<ProgramValue> values{};
};

// What a program does next: another round, or stop.
struct ProgramStep {
  // The next round; nullopt = the program is done and `result` is final.
  std::optional<ProgramRound> round{};
  // What the program has learned so far (final when `round` is empty).
  ProgramResult result{};
};

// What every program gets at creation.
struct ProgramContext {
  RecordSchema schema;
  int64_t epsilon_cap_nanos = 0;  // per agent, for the whole study
  double confidence = 0.95;       // 1 − β of every interval
};

class AnalystProgram {
 public:
  virtual ~AnalystProgram() = default;

  // Every round it may run, fixed at creation. Next(history) with k rounds
  // of history returns round k of this schedule (or stops early).
  virtual std::vector<ScheduledRound> Schedule() const = 0;

  // The next step after `history.size()` closed rounds. An error (e.g. an
  // answer of the wrong shape) fails the study's next round, not the server.
  virtual absl::StatusOr<ProgramStep> Next(
      absl::Span<const RoundAnswers> history) const = 0;
};

}  // namespace ldp

#endif  // LDP_PLANNING_PROGRAMS_ANALYST_PROGRAM_H_
