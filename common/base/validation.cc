// Shared option checks; see validation.h.
#include "common/base/validation.h"

#include <cmath>
#include <string>

#include "absl/strings/str_cat.h"

namespace ldp {
namespace {

// "<mechanism>: ", or nothing for an unnamed caller. (Debian's Abseil
// StrCat does not take std::string_view.)
std::string Prefix(std::string_view mechanism) {
  return mechanism.empty() ? std::string()
                           : absl::StrCat(std::string(mechanism), ": ");
}

// " (<hint>)", or nothing.
std::string Suffix(std::string_view hint) {
  return hint.empty() ? std::string()
                      : absl::StrCat(" (", std::string(hint), ")");
}

}  // namespace

absl::Status ValidateEpsilonField(std::string_view mechanism,
                                  std::string_view field, double value,
                                  double max_value) {
  if (std::isfinite(value) && value > 0 && value <= max_value) {
    return absl::OkStatus();
  }
  const std::string range = max_value == kUnboundedEpsilon
                                ? std::string("> 0")
                                : absl::StrCat("in (0, ", max_value, "]");
  return absl::InvalidArgumentError(
      absl::StrCat(Prefix(mechanism), std::string(field),
                   " must be finite and ", range, ", got ", value));
}

absl::Status ValidateEpsilon(std::string_view mechanism, double epsilon,
                             double max_epsilon) {
  return ValidateEpsilonField(mechanism, "epsilon", epsilon, max_epsilon);
}

absl::Status ValidateDomainSize(std::string_view mechanism,
                                uint32_t domain_size, uint32_t min,
                                uint32_t max, std::string_view hint) {
  if (domain_size >= min && domain_size <= max) return absl::OkStatus();
  const std::string range = max == kUnboundedDomainSize
                                ? absl::StrCat("at least ", min)
                                : absl::StrCat("in [", min, ", ", max, "]");
  return absl::InvalidArgumentError(
      absl::StrCat(Prefix(mechanism), "domain_size must be ", range, ", got ",
                   domain_size, Suffix(hint)));
}

}  // namespace ldp
