// What every bounded-real mechanism does to its input before its privacy
// coin: check the public parameters, clamp the value, and round it onto the
// mechanism's grid by unbiased randomized rounding.
//
// Why randomized rounding: each mechanism's privacy coin acts on a finite
// grid, so its output distribution is exactly computable (transparency,
// DESIGN invariant 3) and its ε follows from integers. Rounding x to a
// neighbouring grid point with probability proportional to its distance is
// input pre-processing: whichever grid point results, the privacy coin is
// ε-indistinguishable across all grid points, so ε is unaffected, and a
// mechanism whose expected output is affine on the grid stays unbiased.
// The rounding coin has 2^-32 resolution (coin.h), so a mechanism is
// unbiased for x up to 2^-33 of one grid step; `Probability` uses that same
// rounded coin, so it stays exact.
#ifndef LDP_COMMON_MECHANISMS_REAL_REAL_INPUT_H_
#define LDP_COMMON_MECHANISMS_REAL_REAL_INPUT_H_

#include <cstdint>

#include "absl/random/bit_gen_ref.h"
#include "absl/status/status.h"
#include "common/base/coin.h"

namespace ldp {

// Largest ε a bounded-real mechanism accepts. Beyond it a 32-bit coin can no
// longer represent the privacy probabilities, and the local guarantee means
// nothing anyway.
inline constexpr double kMaxRealMechanismEpsilon = 50;

// InvalidArgument unless 0 < epsilon ≤ kMaxRealMechanismEpsilon and
// bound is finite and > 0.
absl::Status ValidateEpsilonAndBound(double epsilon, double bound);

// x clamped to [-bound, bound]; NaN becomes 0 (DESIGN invariant 8: an odd
// value still yields one well-formed report, on the same code path).
double ClampToBound(double x, double bound);

// Rounds a position in [0, n] to `lower` or `lower + 1`.
class RandomizedRounding {
 public:
  // `position` is clamped to [0, n] (NaN to 0); n must be ≥ 0.
  static RandomizedRounding Of(double position, int64_t n);

  // The grid point below (or at) the position, in [0, n].
  int64_t lower() const { return lower_; }
  // Pr[round up to lower() + 1]; zero when lower() == n.
  CoinProbability up() const { return up_; }
  // Pr[result == lower() + offset] for offset 0 or 1.
  double Weight(int offset) const {
    return offset == 0 ? 1 - up_.value() : up_.value();
  }
  // The implemented expected result, lower() + up().value().
  double Mean() const { return static_cast<double>(lower_) + up_.value(); }

  int64_t Sample(absl::BitGenRef gen) const {
    return lower_ + (FlipCoin(up_, gen) ? 1 : 0);
  }

 private:
  RandomizedRounding(int64_t lower, CoinProbability up)
      : lower_(lower), up_(up) {}
  int64_t lower_;
  CoinProbability up_;
};

}  // namespace ldp

#endif  // LDP_COMMON_MECHANISMS_REAL_REAL_INPUT_H_
