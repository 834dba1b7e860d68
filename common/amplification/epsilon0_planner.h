// The planner's inverse of the amplification bound: given the central ε an
// analyst wants for a shuffled batch of n reports, the largest local ε0 each
// report may use. A larger ε0 means less local noise, so the planner wants
// the largest ε0 that still meets the target; an overestimate would break
// the promise, so every rounding is downward.
//
// Shuffling never hurts (the shuffled batch of ε0-DP reports is ε0-DP), so
// ε0 = target always meets the target: the answer is never below it, and it
// is exactly the target, with `amplified` false, when n is too small for
// shuffling to buy anything at this δ.
#ifndef LDP_COMMON_AMPLIFICATION_EPSILON0_PLANNER_H_
#define LDP_COMMON_AMPLIFICATION_EPSILON0_PLANNER_H_

#include <cstdint>

#include "absl/status/statusor.h"

namespace ldp {

// How close to the true largest ε0 the answer is (from below).
inline constexpr double kEpsilon0Tolerance = 1e-4;

struct Epsilon0Plan {
  // The local ε0 to use; ≥ the target.
  double epsilon0 = 0;
  // ShuffledEpsilon(epsilon0, n, δ) (numerical_bound.h): ≤ the target.
  double shuffled_epsilon = 0;
  // False when shuffling buys nothing: epsilon0 is the target itself.
  bool amplified = false;
};

// The largest ε0 ≤ 50 (to kEpsilon0Tolerance, rounded down) whose
// ShuffledEpsilon at (n, δ) is ≤ target_epsilon. Guarantees: the returned
// ε0 meets the target, and ε0 + kEpsilon0Tolerance does not (unless ε0 is
// within it of 50). InvalidArgument for a target outside (0, 50], n < 1 or
// δ outside (0, 1).
absl::StatusOr<Epsilon0Plan> LargestEpsilon0ForTarget(double target_epsilon,
                                                      int64_t n, double delta);

}  // namespace ldp

#endif  // LDP_COMMON_AMPLIFICATION_EPSILON0_PLANNER_H_
