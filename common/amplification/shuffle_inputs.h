// The checks every shuffle-amplification bound applies to its inputs, in one
// place so the closed form, the numerical bound, the brute force and the
// planner reject the same mistake with the same message.
//
// Why the upper limits: beyond ε0 = 50 a report is e^-50 < 2e-22 likely to
// look like any other's, so no real n hides it (and e^ε0 would overflow
// beyond 709); beyond n = 10^10 reports the lgamma error allowance of the
// numerical bound (clone_divergence.h) would no longer be negligible.
#ifndef LDP_COMMON_AMPLIFICATION_SHUFFLE_INPUTS_H_
#define LDP_COMMON_AMPLIFICATION_SHUFFLE_INPUTS_H_

#include <cstdint>

#include "absl/status/status.h"

namespace ldp {

inline constexpr double kMaxShuffleEpsilon0 = 50;
inline constexpr int64_t kMaxShuffledReports = 10'000'000'000;

// InvalidArgument unless ε0 is finite and in (0, kMaxShuffleEpsilon0].
absl::Status ValidateEpsilon0(double epsilon0);

// InvalidArgument unless 1 ≤ n ≤ kMaxShuffledReports (n counts every report
// shuffled together, the one being protected included).
absl::Status ValidateShuffledReports(int64_t n);

// InvalidArgument unless 0 < δ < 1.
absl::Status ValidateDelta(double delta);

// The three checks above, in that order.
absl::Status ValidateShuffleInputs(double epsilon0, int64_t n, double delta);

}  // namespace ldp

#endif  // LDP_COMMON_AMPLIFICATION_SHUFFLE_INPUTS_H_
