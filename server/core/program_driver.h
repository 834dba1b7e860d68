// Interactive studies: runs each study's analyst program, which picks the
// next round from the estimates of the rounds before it.
//
// Why a class of its own: a program is asked in four places (a new study,
// a closed round, a restart, and a round another server opened) and must
// get the same history each time, since programs are deterministic and a
// restart must get the same round again. The driver owns that one rule;
// it stores nothing itself: the round lifecycle stores what it plans.
#ifndef LDP_SERVER_CORE_PROGRAM_DRIVER_H_
#define LDP_SERVER_CORE_PROGRAM_DRIVER_H_

#include <cstddef>
#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "planning/planner.h"
#include "planning/programs/analyst_program.h"
#include "server/core/aggregator_options.h"
#include "server/core/study_registry.h"

namespace ldp {

// A round's estimates as an analyst program sees them (AddSamplingVariance
// applied), in question order.
RoundAnswers AnswersOf(const RoundRuntime& round, double confidence);

// What a study reports when its program cannot go on (e.g. its answer had
// a shape it did not expect): finished, with the reason, rather than hung.
ProgramResult FailedProgramResult(const absl::Status& status);

// Thread-compatible per study: the writer thread (or load) drives a study.
class ProgramDriver {
 public:
  // `options` (its spec codec and strategy planner) and `studies` (round
  // ids) outlive this.
  ProgramDriver(const AggregatorOptions& options, StudyRegistry& studies)
      : options_(options), studies_(studies) {}

  // An interactive study's program and schedule, from its spec (at
  // creation and at load).
  absl::Status LoadProgram(StudyRuntime& study) const;
  // A new INTERACTIVE study: checks its spec, loads its program, checks the
  // whole schedule fits the cap, and plans the program's first round
  // (InvalidArgument with the reason otherwise). Sets the study's result.
  absl::StatusOr<RoundPlan> PlanFirstRound(StudyRuntime& study) const;
  // Asks the program for the step after every closed round of `study`.
  // Returns the next round, not yet stored or registered, or nullptr when
  // the program is done or `now` is at or past the study's deadline (then
  // its result is final). Updates the study's result either way.
  absl::StatusOr<std::shared_ptr<RoundRuntime>> PlanNextRound(
      StudyRuntime& study, absl::Time now);
  // At load: the latest round if it is closed while the study is still
  // active (a crash came between the close and the program's next step;
  // the caller closes it again, which asks the program). Otherwise null,
  // after recomputing the program's result.
  std::shared_ptr<RoundRuntime> Resume(StudyRuntime& study) const;
  // The program's reported result, recomputed from the study's rounds:
  // with the open round's request, or its final result when the study is
  // finished. A failing program finishes the study with the reason.
  void RecomputeResult(StudyRuntime& study) const;

 private:
  // A program round's plan from the program's request.
  absl::StatusOr<RoundPlan> PlanProgramRound(const StudyRuntime& study,
                                             const ProgramRound& round,
                                             size_t index) const;

  const AggregatorOptions& options_;
  StudyRegistry& studies_;
};

}  // namespace ldp

#endif  // LDP_SERVER_CORE_PROGRAM_DRIVER_H_
