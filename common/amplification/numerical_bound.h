// Privacy amplification by shuffling, numerical bound (Feldman, McMillan,
// Talwar, "Hiding among the clones", FOCS 2021; their public code is
// apple/ml-shuffling-amplification, computeamplification.py): the smallest
// ε whose divergence bound δ(ε) = Σ_c Pr[C = c]·D_c(ε) (clone_divergence.h)
// stays ≤ δ, found by binary search. Much tighter than the closed form
// (closed_form.h): at n = 10^5, ε0 = 4, δ = 1e-6 it gives ε ≈ 0.170, the
// closed form 0.538.
//
// Why it is an upper bound, step by step:
//  * C's values are cut into blocks (clone_count.h), and each block is
//    charged its mass times the larger of D at its two ends. D_c is monotone
//    in c, so that is its largest value over the block. (The public Python
//    writes max(deltaq_upperc, deltaq_upperc), checking only the upper end
//    in one direction, where a decreasing D_c peaks at the lower one.) Here
//    block i is [e_i, e_{i+1}) and its ends are taken as e_i and e_{i+1}: the
//    closed interval holds the block, and each D is computed once for the
//    two blocks that share it.
//  * C's values outside the blocks are charged in full (D_c ≤ 1), for at
//    most kTailShareOfDelta·δ of probability.
//  * Every rounding is covered (clone_divergence.h, clone_count.h).
//  * The search keeps an upper end whose bound was computed ≤ δ (or ε0,
//    which holds with δ = 0: shuffling post-processes ε0-DP reports) and
//    returns that upper end.
#ifndef LDP_COMMON_AMPLIFICATION_NUMERICAL_BOUND_H_
#define LDP_COMMON_AMPLIFICATION_NUMERICAL_BOUND_H_

#include <cstdint>

#include "absl/status/statusor.h"

namespace ldp {

// The share of δ spent on C's values outside the blocks.
inline constexpr double kTailShareOfDelta = 1e-6;

struct NumericalBoundOptions {
  // Values of C per block; 0 picks AdaptiveCloneStep (clone_count.h).
  int64_t step = 0;
  // The search stops when its bracket is narrower than this times its upper
  // end (or than 1e-12); in [1e-12, 0.1].
  double relative_tolerance = 1e-6;
};

// An upper bound on δ(ε) for n shuffled ε0-LDP reports at ε ≥ 0, with
// blocks of `step` values of C (0: adaptive) and Pr[C outside the blocks]
// ≤ outside_mass ∈ (0, 1), charged in full. InvalidArgument for bad inputs.
absl::StatusOr<double> ShuffledDeltaBound(double epsilon0, int64_t n,
                                          double epsilon, double outside_mass,
                                          int64_t step = 0);

// The smallest ε (to the options' tolerance, rounded up) whose bound is ≤
// δ: an upper bound on the central ε of n shuffled ε0-LDP reports at δ.
// Never above ε0. Cost: about 500 blocks, each end's divergence a sum of up
// to ~√(20·E[C]) terms, times ~25 search steps; in a -O0 build 0.02 to 0.4 s
// at n = 10^7 (ε0 = 6 down to 0.5), up to about 1 s at n = 10^8.
// InvalidArgument for ε0 ≤ 0 or > 50, n < 1, δ outside (0, 1), or bad
// options.
absl::StatusOr<double> NumericalShuffledEpsilon(
    double epsilon0, int64_t n, double delta,
    const NumericalBoundOptions& options = {});

// The best bound this library has: the smaller of the numerical bound and
// the closed form (both are upper bounds, so the smaller one is too).
absl::StatusOr<double> ShuffledEpsilon(double epsilon0, int64_t n,
                                       double delta);

}  // namespace ldp

#endif  // LDP_COMMON_AMPLIFICATION_NUMERICAL_BOUND_H_
