// The same divergence as the numerical bound (clone_divergence.h), computed
// the slow, obvious way for small n: every value of C, both directions, and
// every probability written out by Pascal-style recurrences (no lgamma, no
// cutoff, no blocks, no geometric tail). It exists so the tests can check
// the fast bound against something that shares none of its shortcuts.
#ifndef LDP_COMMON_AMPLIFICATION_BRUTE_FORCE_H_
#define LDP_COMMON_AMPLIFICATION_BRUTE_FORCE_H_

#include <cstdint>

#include "absl/status/statusor.h"

namespace ldp {

// The cost is O(n²) per ε; beyond this the numerical bound is the tool.
inline constexpr int64_t kMaxBruteForceReports = 1000;

// max(D_{e^ε}(P_c‖Q_c), D_{e^ε}(Q_c‖P_c)) for c clones (0 ≤ c <
// kMaxBruteForceReports) and ε ≥ 0, summing max(0, P − e^ε·Q) over every
// outcome. Exact up to floating-point rounding of positive sums.
absl::StatusOr<double> ExactCloneDivergence(double epsilon0, int64_t clones,
                                            double epsilon);

// δ(ε) = Σ_c Pr[C = c]·D_c(ε) over every c, C ~ Bin(n − 1, e^−ε0),
// 1 ≤ n ≤ kMaxBruteForceReports.
absl::StatusOr<double> ExactShuffledDelta(double epsilon0, int64_t n,
                                          double epsilon);

// The smallest ε ∈ [0, ε0] with ExactShuffledDelta ≤ δ, by bisection to an
// absolute `tolerance` in [1e-15, 1] (returning the upper end of the final
// bracket).
absl::StatusOr<double> ExactShuffledEpsilon(double epsilon0, int64_t n,
                                            double delta,
                                            double tolerance = 1e-9);

}  // namespace ldp

#endif  // LDP_COMMON_AMPLIFICATION_BRUTE_FORCE_H_
