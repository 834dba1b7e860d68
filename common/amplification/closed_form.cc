// The closed-form amplification bound; see the header. expm1 and log1p keep
// the small quantities (e^−ε0 near 1, a + c near 0) accurate.
#include "common/amplification/closed_form.h"

#include <algorithm>
#include <cmath>

#include "common/amplification/shuffle_inputs.h"
#include "common/base/status_macros.h"

namespace ldp {

bool ClosedFormApplies(double epsilon0, int64_t n, double delta) {
  const double log_term = std::log(4 / delta);
  return epsilon0 < std::log(static_cast<double>(n) / (16 * log_term));
}

absl::StatusOr<double> ClosedFormShuffledEpsilon(double epsilon0, int64_t n,
                                                 double delta) {
  RETURN_IF_ERROR(ValidateShuffleInputs(epsilon0, n, delta));
  if (!ClosedFormApplies(epsilon0, n, delta)) return epsilon0;
  const double reports = static_cast<double>(n);
  const double e0 = std::exp(epsilon0);
  const double a = 8 * std::sqrt(e0 * std::log(4 / delta) / reports);
  const double c = 8 * e0 / reports;
  const double epsilon_prime = std::log1p(a + c);
  const double factor =
      -std::expm1(-epsilon0) / (1 + std::exp(-epsilon0 - epsilon_prime));
  return std::min(epsilon0, std::log1p(factor * (a + c)));
}

}  // namespace ldp
