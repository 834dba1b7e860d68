// Input checks, clamping and randomized rounding for bounded-real
// mechanisms; see real_input.h for why.
#include "common/mechanisms/real/real_input.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/base/validation.h"

namespace ldp {

absl::Status ValidateEpsilonAndBound(double epsilon, double bound) {
  // Unnamed: the calling mechanism adds no prefix to this message.
  RETURN_IF_ERROR(ValidateEpsilon("", epsilon, kMaxRealMechanismEpsilon));
  if (!(bound > 0 && std::isfinite(bound))) {
    return absl::InvalidArgumentError(absl::StrCat(
        "bound must be finite and > 0 (inputs live in [-bound, bound]), got ",
        bound));
  }
  return absl::OkStatus();
}

double ClampToBound(double x, double bound) {
  // Computed either way, then selected: NaN takes no path of its own.
  const double clamped = std::fmin(std::fmax(x, -bound), bound);
  return std::isnan(x) ? 0.0 : clamped;
}

RandomizedRounding RandomizedRounding::Of(double position, int64_t n) {
  // Clamping first (fmax maps NaN to 0) sends every position through the
  // same operations: an out-of-range or odd input differs from a normal one
  // only in the values selected below, not in the work (DESIGN invariant 8).
  const double clamped =
      std::fmin(std::fmax(position, 0.0), static_cast<double>(n));
  int64_t lower = static_cast<int64_t>(std::floor(clamped));
  // Nearest multiple of 2^-32: the rounding coin only needs to be close to
  // the fraction (pre-processing), and nearest halves the residual bias.
  uint64_t up = static_cast<uint64_t>(std::llround(std::ldexp(
      clamped - static_cast<double>(lower), CoinProbability::kBits)));
  const bool carry = up >= CoinProbability::kDenominator;
  lower += carry ? 1 : 0;
  const bool at_top = lower >= n;
  const uint64_t fraction = carry || at_top ? 0 : up;
  return RandomizedRounding(at_top ? n : lower,
                            CoinProbability::FromNumerator(fraction));
}

}  // namespace ldp
