// Transient-error classification and jittered exponential backoff.
#include "client/core/retry.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "common/base/coin.h"

namespace ldp {

bool IsTransient(absl::StatusCode code) {
  switch (code) {
    case absl::StatusCode::kUnavailable:
    case absl::StatusCode::kDeadlineExceeded:
    case absl::StatusCode::kAborted:
    case absl::StatusCode::kResourceExhausted:
    case absl::StatusCode::kCancelled:
    case absl::StatusCode::kInternal:
    case absl::StatusCode::kUnknown:
      return true;
    default:
      return false;
  }
}

absl::StatusOr<Backoff> Backoff::Create(const BackoffOptions& options) {
  if (!(options.initial_delay > absl::ZeroDuration()) ||
      options.max_delay == absl::InfiniteDuration() ||
      options.max_delay < options.initial_delay) {
    return absl::InvalidArgumentError(absl::StrCat(
        "backoff delays must satisfy 0 < initial_delay <= max_delay < inf, "
        "got initial ",
        absl::FormatDuration(options.initial_delay), " and max ",
        absl::FormatDuration(options.max_delay)));
  }
  if (!(options.multiplier >= 1.0) || !std::isfinite(options.multiplier)) {
    return absl::InvalidArgumentError(
        absl::StrCat("backoff multiplier must be finite and >= 1, got ",
                     options.multiplier));
  }
  return Backoff(options);
}

absl::Duration Backoff::NextDelay(absl::BitGenRef gen) {
  const double growth = std::pow(options_.multiplier, attempt_);
  ++attempt_;
  const absl::Duration base =
      std::min(options_.max_delay, options_.initial_delay * growth);
  constexpr uint64_t kSteps = 1024;
  const double factor =
      0.5 + 0.5 * static_cast<double>(UniformBelow(kSteps + 1, gen)) / kSteps;
  return base * factor;
}

}  // namespace ldp
