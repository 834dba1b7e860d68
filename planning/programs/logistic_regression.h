// Logistic regression by private gradient descent: an interactive analyst
// program in the SQ model (Kasiviswanathan, Lee, Nissim, Raskhodnikova &
// Smith, "What Can We Learn Privately?", §5.1.1). Each gradient step is one
// round of statistical queries whose φ depends on the model the earlier
// rounds produced, so the program is adaptive by nature.
//
// Model: P(y = 1 | x) = σ(θ·x̃ + b), on features rescaled by the schema's
// declared bounds, x̃_j = 2·(x_j − lo_j)/(hi_j − lo_j) − 1 ∈ [−1, 1]. The
// bounds are public (they are part of the study), so the scaling reveals
// nothing about the data; a field's value is clamped into [lo_j, hi_j] by
// the agent's sanitizer before φ sees it.
//
// Gradient step t (t = 0 … T−1) asks the agents of slice [t/T, (t+1)/T) —
// disjoint slices, so no agent is asked in two steps (sample splitting) —
// for the clipped logistic-loss gradient at the current (θ_t, b_t), one
// statistical query per coordinate:
//   φ_j(x, y) = Clamp((σ(θ_t·x̃ + b_t) − y)·x̃_j, −c, c)   (x̃_bias = 1).
// With k coordinates per agent (gradient_plan.h), the D = d + 1 coordinates
// form k contiguous blocks and the step is k rounds on the same slice, one
// block each at ε/k, the slice's agents split equally among the block's
// coordinates: every agent answers one coordinate of each block, k in all,
// and is charged k·ε/k ≤ ε. k = 1 (one round, every agent one coordinate at
// the full ε) is what the planner picks below ε ≈ 3.
// Since |σ − y| ≤ 1 and |x̃_j| ≤ 1, c ≥ 1 clips nothing; a smaller c trades
// a clipping bias for c² less mechanism variance, which wins at small ε.
// The step is θ_{t+1} = Π_R(θ_t − η_t·(ĝ_t + λ·θ_t)), where Π_R projects
// (θ, b) onto the Euclidean ball of radius R (keeps a noisy run bounded),
// and η_t = η (constant) or η/√(t + 1) ("inverse_sqrt").
//
// Released model (Polyak–Ruppert iterate averaging): the mean of the last K
// iterates θ_{T−K+1} … θ_T, K = max(1, ⌈average_tail·T⌉). Averaging is
// post-processing of released estimates, so it costs no privacy; it cancels
// much of the gradient noise the single iterates carry and the oscillation
// of a large constant step. average_tail = 0 releases the last iterate.
//
// Mechanism: each query uses ChooseScalarMechanism(ε/k, c, kMechanismVariance)
// (scalar_mechanism_choice.h, shared with the SQ oracle): the kind with the
// lowest worst-case mechanism variance. Not the oracle's criterion (worst-
// case E[report²], which picks Duchi): a gradient coordinate's values sit
// mostly well inside [−c, c], where Duchi's variance is near its maximum.
// With the factory's defaults, worst-case variance / c² is:
//   ε     discrete Laplace  Duchi   piecewise  hybrid
//   0.5   32                16.67   21.22      16.67
//   1      8                 4.68    5.22       4.29
//   2      2                 1.72    1.23       1.04
//   4      0.5               1.08    0.24       0.22
// so it is the hybrid mechanism (piecewise w.p. α, Duchi otherwise; Wang et
// al., ICDE 2019) from ε ≈ 0.61 up; below that hybrid's α is 0, it equals
// Duchi, and the tie goes to Duchi.
//
// k: `coordinates_per_agent`, or by default the planner's choice
// (PlanGradientReports: the smallest worst-case variance of a coordinate's
// estimate, the spread of the clipped gradient between agents included).
// Whole-gradient mechanisms (Duchi et al.'s ℓ2 ball and ℓ∞ cube) are not
// offered: at equal clipping they have more noise per coordinate than one
// coordinate per agent at every ε from 0.5 to 8 (closed forms:
// bench/studies/gradient_mechanism_variance.py, table in
// bench/reports/LOGISTIC_REGRESSION.md).
//
// Result (every round, and final after the T steps), on the scaled features:
// "theta[j]" (j in the order of the `features` parameter) and "bias", the
// released model so far — the mean of the averaging window's iterates seen
// so far, or the current iterate before the window starts; "iterate_theta[j]"
// and "iterate_bias", the current iterate θ_t; "averaged_iterates", how many
// iterates the mean holds (0 before the window); "gradient_steps", t, the
// steps taken so far (it stays the same over a step's k rounds). Plus
// "raw_theta[j]" and "raw_bias", the released model on the raw (clamped) field
// values: z = Σ raw_theta[j]·x_j + raw_bias.
//
// Parameters:
//   features       comma-separated names of real or int fields (required, ≤
//   128) label          a bool field, the class y (required) rounds         T,
//   default 50, in [1, 1000] learning_rate  η, default 4, in (0, 1000] schedule
//   "constant" (default) or "inverse_sqrt" (η_t = η/√(t + 1)) average_tail
//   share of the last iterates averaged, default 0.5, in [0, 1] clip c, default
//   0.25, in (0, 1] radius         R, default 20, in (0, 1e6] l2             λ,
//   default 0, in [0, 100] (not applied to the bias) coordinates_per_agent  k,
//   "auto" (default: the planner's) or an
//                  integer in [1, min(d + 1, 16)]
#ifndef LDP_PLANNING_PROGRAMS_LOGISTIC_REGRESSION_H_
#define LDP_PLANNING_PROGRAMS_LOGISTIC_REGRESSION_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/tasks/study_spec.h"
#include "planning/programs/analyst_program.h"

namespace ldp {

inline constexpr int kMaxLogisticFeatures = 128;

// A fitted model on the scaled features x̃ (see above).
struct LogisticModel {
  std::vector<double> theta{};
  double bias = 0;
};

// The released model a program's result states ("theta[0]" … "theta[d−1]",
// "bias"). InvalidArgument if any is missing.
absl::StatusOr<LogisticModel> LogisticModelFromResult(
    const ProgramResult& result, int num_features);

// The current iterate a program's result states ("iterate_theta[j]",
// "iterate_bias"). InvalidArgument if any is missing.
absl::StatusOr<LogisticModel> LogisticIterateFromResult(
    const ProgramResult& result, int num_features);

absl::StatusOr<std::unique_ptr<AnalystProgram>> CreateLogisticRegressionProgram(
    const ProgramSpec& spec, const ProgramContext& context);

}  // namespace ldp

#endif  // LDP_PLANNING_PROGRAMS_LOGISTIC_REGRESSION_H_
