// Input checks, clamping and randomized rounding for bounded-real
// mechanisms; see real_input.h for why.
#include "common/real_input.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "common/validation.h"

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
  if (std::isnan(x)) return 0;
  return std::fmin(std::fmax(x, -bound), bound);
}

RandomizedRounding RandomizedRounding::Of(double position, int64_t n) {
  constexpr CoinProbability kNever = CoinProbability::FromNumerator(0);
  if (!(position > 0)) return RandomizedRounding(0, kNever);  // also NaN
  if (position >= static_cast<double>(n)) return RandomizedRounding(n, kNever);
  int64_t lower = static_cast<int64_t>(std::floor(position));
  // Nearest multiple of 2^-32: the rounding coin only needs to be close to
  // the fraction (pre-processing), and nearest halves the residual bias.
  uint64_t up = static_cast<uint64_t>(std::llround(std::ldexp(
      position - static_cast<double>(lower), CoinProbability::kBits)));
  if (up >= CoinProbability::kDenominator) {
    ++lower;
    up = 0;
  }
  if (lower >= n) return RandomizedRounding(n, kNever);
  return RandomizedRounding(lower, CoinProbability::FromNumerator(up));
}

}  // namespace ldp
