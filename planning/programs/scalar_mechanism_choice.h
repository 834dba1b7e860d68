// Which scalar mechanism a statistical query should use at a given ε and
// bound: one implementation shared by every program that asks statistical
// queries (the SQ oracle, sq_program.h; logistic_regression.h), with the
// criterion each needs named explicitly, because the two criteria pick
// different mechanisms (see MechanismCriterion).
#ifndef LDP_PLANNING_PROGRAMS_SCALAR_MECHANISM_CHOICE_H_
#define LDP_PLANNING_PROGRAMS_SCALAR_MECHANISM_CHOICE_H_

#include "absl/status/statusor.h"
#include "common/mechanisms/real/real_mechanism.h"

namespace ldp {

// What "lowest variance" means. A decoded report's variance over a
// population P is E_P[Var(x)] + Var_P(x): the mechanism's noise plus the
// spread of φ between agents.
enum class MechanismCriterion {
  // Smallest max_x E[Decode(R(x))²] = max_x Var(x) + x²: the best bound on
  // the report variance over ANY population, which is what a planner needs
  // to guarantee a tolerance. Duchi's Var(x) = B² − x² falls exactly as the
  // spread can grow, so this picks Duchi at every ε for which it has been
  // tabulated (0.5 … 4).
  kReportSecondMoment,
  // Smallest max_x Var(x): the mechanism's own noise, the only part of the
  // variance the choice controls for a given population. Right for queries
  // whose values sit well inside [−b, b] (gradients): hybrid from ε ≈ 0.61
  // up (at ε = 4, 0.22·b² against Duchi's ≈ 1.08·b² near x = 0).
  kMechanismVariance,
};

// The mechanism one query uses, and the variances it plans with.
struct SqMechanismChoice {
  RealMechanismKind kind = RealMechanismKind::kDuchi;
  // max over x ∈ [−b, b] of E[Decode(R(x))²]: bounds the variance of one
  // decoded report over any population (mechanism noise plus the spread of
  // φ between agents), which is what the estimate's standard error measures.
  double report_variance = 0;
  // max over x ∈ [−b, b] of Var[Decode(R(x))]: the mechanism noise alone.
  double mechanism_variance = 0;
};

// The kind minimizing `criterion` at (ε, b), among all kinds
// common/mechanisms/real/real_mechanism_factory.h builds (with their default
// parameters, as the planner builds them); ties go to the earlier kind in the
// order discrete Laplace, Duchi, piecewise, hybrid. InvalidArgument for ε ≤ 0
// or b ≤ 0.
absl::StatusOr<SqMechanismChoice> ChooseScalarMechanism(
    double epsilon, double bound, MechanismCriterion criterion);

// The SQ oracle's choice: ChooseScalarMechanism with kReportSecondMoment.
absl::StatusOr<SqMechanismChoice> ChooseSqMechanism(double epsilon,
                                                    double bound);

}  // namespace ldp

#endif  // LDP_PLANNING_PROGRAMS_SCALAR_MECHANISM_CHOICE_H_
