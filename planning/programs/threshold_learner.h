// Private PAC learning of thresholds through statistical queries: the
// "threshold_learner" analyst program, an SqAlgorithm run by SqProgram.
//
// Concept class: c_t(x) = [x ≥ t] over an int field x ∈ [L, U] (N = U − L + 1
// values, at most kMaxThresholdDomainSize), t ∈ {L, …, U + 1} (N + 1
// concepts: t = L labels everything 1, t = U + 1 everything 0). A record is a
// labelled example (x, y), y a bool field. err(t) = Pr[y ≠ c_t(x)].
//
// Two learners, both with accuracy α and failure probability β:
// - nonadaptive (1 round, agnostic): for every t one SQ φ_t = [y ≠ (x ≥ t)]
//   with tolerance α/2 and failure β/(N + 1). With all N + 1 answers within
//   α/2 (probability ≥ 1 − β by the union bound), the argmin t̂ of the
//   estimates has err(t̂) ≤ êrr(t̂) + α/2 ≤ êrr(t°) + α/2 ≤ err(t°) + α for
//   the best t°: error at most OPT + α, whatever the labels.
// - adaptive (binary search, realizable: y = c_{t*}(x) for some t*): one SQ
//   per round, A(m) = Pr[x < m ∧ y = 1]; see threshold_learner.cc for the
//   invariant. K = ⌈log2(N + 1)⌉ rounds, each with tolerance α/2 and failure
//   β/K, and error at most α: K queries instead of N + 1, so far fewer agents.
//
// Parameters: "feature" (int field, default "x"), "label" (bool field,
// default "y"), "accuracy" (α, default 0.1, in [1e-4, 0.5]),
// "failure_probability" (β, default 1 − the study's confidence, in
// [1e-12, 0.5]), "mode" ("adaptive", the default, or "nonadaptive").
//
// Result values: "threshold" (t̂), "error" (the estimate of err(t̂) with its
// interval; adaptive: of A(t̂), which equals err(t̂) for realizable labels),
// and, from SqProgram, "predicted_agents".
#ifndef LDP_PLANNING_PROGRAMS_THRESHOLD_LEARNER_H_
#define LDP_PLANNING_PROGRAMS_THRESHOLD_LEARNER_H_

#include <cstdint>
#include <memory>

#include "absl/status/statusor.h"
#include "common/queries/record_schema.h"
#include "common/tasks/study_spec.h"
#include "planning/programs/analyst_program.h"
#include "planning/programs/sq_program.h"

namespace ldp {

// N + 1 candidates must fit one round's questions (kMaxQuestionsPerRound).
inline constexpr int64_t kMaxThresholdDomainSize = 1023;

// Int "x" in [0, domain_size − 1] and bool "y"; InvalidArgument unless
// 2 ≤ domain_size ≤ kMaxThresholdDomainSize (the schema needs lower < upper).
absl::StatusOr<RecordSchema> ThresholdSchema(int64_t domain_size);

// The SQ algorithm the program runs (for PredictedAgents and tests).
absl::StatusOr<std::unique_ptr<const SqAlgorithm>> CreateThresholdSqAlgorithm(
    const ProgramSpec& spec, const ProgramContext& context);

// The "threshold_learner" program: SqProgram over the algorithm above.
absl::StatusOr<std::unique_ptr<AnalystProgram>> CreateThresholdLearnerProgram(
    const ProgramSpec& spec, const ProgramContext& context);

// What a threshold_learner spec asks for, for comparisons with the central
// model (ldp plan): |C| = N + 1 thresholds, α, β, and whether the learner
// assumes realizable labels (adaptive) or not (nonadaptive). The spec's
// errors as CreateThresholdLearnerProgram reports them.
struct ThresholdLearnerGoal {
  int64_t num_concepts = 0;
  double accuracy = 0;
  double failure_probability = 0;
  bool realizable = true;
};
absl::StatusOr<ThresholdLearnerGoal> ThresholdLearnerGoalOf(
    const ProgramSpec& spec, const ProgramContext& context);

// The t̂ a program's result states.
absl::StatusOr<int64_t> ThresholdFromResult(const ProgramResult& result);

}  // namespace ldp

#endif  // LDP_PLANNING_PROGRAMS_THRESHOLD_LEARNER_H_
