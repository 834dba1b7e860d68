// Option checks every mechanism's Create() shares: ε must be a usable
// positive number and the domain size must fit the mechanism's tables.
//
// Why one place: users act on these messages ("GRR: epsilon must be finite
// and in (0, 20], got -1"), so every mechanism should phrase the same
// mistake the same way, and NaN/∞ must be rejected by the same comparison
// everywhere (a stray `epsilon > 0` alone lets +∞ through).
#ifndef LDP_COMMON_BASE_VALIDATION_H_
#define LDP_COMMON_BASE_VALIDATION_H_

#include <cstdint>
#include <limits>
#include <string_view>

#include "absl/status/status.h"

namespace ldp {

// For mechanisms whose ε has no upper limit.
inline constexpr double kUnboundedEpsilon =
    std::numeric_limits<double>::infinity();
// For mechanisms whose domain size has no upper limit.
inline constexpr uint32_t kUnboundedDomainSize =
    std::numeric_limits<uint32_t>::max();

// InvalidArgument unless `value` is finite and in (0, max_value]:
//   "<mechanism>: <field> must be finite and in (0, <max>], got <value>"
// (or "... finite and > 0, got ..." when max_value is kUnboundedEpsilon).
// An empty `mechanism` drops the "<mechanism>: " prefix.
absl::Status ValidateEpsilonField(std::string_view mechanism,
                                  std::string_view field, double value,
                                  double max_value);

// ValidateEpsilonField for the usual field name "epsilon".
absl::Status ValidateEpsilon(std::string_view mechanism, double epsilon,
                             double max_epsilon = kUnboundedEpsilon);

// InvalidArgument unless min ≤ domain_size ≤ max:
//   "<mechanism>: domain_size must be in [<min>, <max>], got <n>"
// (or "... must be at least <min>, got ..." when max is
// kUnboundedDomainSize), followed by " (<hint>)" when `hint` is not empty.
absl::Status ValidateDomainSize(std::string_view mechanism,
                                uint32_t domain_size, uint32_t min,
                                uint32_t max, std::string_view hint = {});

}  // namespace ldp

#endif  // LDP_COMMON_BASE_VALIDATION_H_
