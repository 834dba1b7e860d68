// Privacy amplification by shuffling, closed form: n reports, each from a
// pure ε0-LDP randomizer, shuffled together are (ε, δ)-DP for the analyzer
// that sees only the shuffled batch (Feldman, McMillan, Talwar, "Hiding among
// the clones", FOCS 2021):
//
//   a = 8·sqrt(e^ε0·ln(4/δ)/n),  c = 8·e^ε0/n,  ε' = ln(1 + a + c)
//   ε = ln(1 + (1 − e^−ε0)/(1 + e^(−ε0−ε'))·(a + c))
//
// valid when ε0 < ln(n/(16·ln(4/δ))). Outside that regime the theorem says
// nothing, and ε = ε0 (shuffling is post-processing of ε0-DP reports) is the
// bound. The numerical bound (numerical_bound.h) is much tighter; this one
// is the quick, citable ceiling it is tested against.
#ifndef LDP_COMMON_AMPLIFICATION_CLOSED_FORM_H_
#define LDP_COMMON_AMPLIFICATION_CLOSED_FORM_H_

#include <cstdint>

#include "absl/status/statusor.h"

namespace ldp {

// Whether the closed form applies: ε0 < ln(n/(16·ln(4/δ))). Callers must
// have validated the inputs (shuffle_inputs.h).
bool ClosedFormApplies(double epsilon0, int64_t n, double delta);

// The central ε that shuffling n ε0-LDP reports guarantees at δ, by the
// closed form above; ε0 itself where the closed form does not apply, and
// never more than ε0. Guarantee: an upper bound on the true ε (the formula's
// own slack dwarfs floating-point error). InvalidArgument for ε0 ≤ 0 or
// > 50, n < 1, or δ outside (0, 1).
absl::StatusOr<double> ClosedFormShuffledEpsilon(double epsilon0, int64_t n,
                                                 double delta);

}  // namespace ldp

#endif  // LDP_COMMON_AMPLIFICATION_CLOSED_FORM_H_
