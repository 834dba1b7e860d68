// Input checks shared by the amplification bounds; see the header.
#include "common/amplification/shuffle_inputs.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/base/validation.h"

namespace ldp {

absl::Status ValidateEpsilon0(double epsilon0) {
  return ValidateEpsilonField("shuffle amplification", "epsilon0", epsilon0,
                              kMaxShuffleEpsilon0);
}

absl::Status ValidateShuffledReports(int64_t n) {
  if (n >= 1 && n <= kMaxShuffledReports) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "shuffle amplification: n (the reports shuffled together, the "
      "protected one included) must be in [1, ",
      kMaxShuffledReports, "], got ", n));
}

absl::Status ValidateDelta(double delta) {
  if (delta > 0 && delta < 1) return absl::OkStatus();  // false for NaN
  return absl::InvalidArgumentError(absl::StrCat(
      "shuffle amplification: delta must be in (0, 1), got ", delta,
      " (the chance the epsilon guarantee fails; pick one well below 1/n, "
      "e.g. 1e-8 for a million reports)"));
}

absl::Status ValidateShuffleInputs(double epsilon0, int64_t n, double delta) {
  RETURN_IF_ERROR(ValidateEpsilon0(epsilon0));
  RETURN_IF_ERROR(ValidateShuffledReports(n));
  return ValidateDelta(delta);
}

}  // namespace ldp
