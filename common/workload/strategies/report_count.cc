// Moments of a group's report count; see the header. The exact branch sums
// the probabilities from the mode outward with the ratio recurrence (one
// lgamma), ±14σ + 14 terms each way; beyond n·π = 4096,
// the Taylor series of 1/N about μ: with c = (1−π)/μ,
// E[1/N] = (1/μ)(1 + c + c²·(3 − (1−2π)/(1−π)) + O(μ⁻³)).
#include "common/workload/strategies/report_count.h"

#include <algorithm>
#include <cmath>

namespace ldp {

ReportCountMoments MomentsOfReportCount(int64_t n, double pi) {
  ReportCountMoments m;
  const double trials = static_cast<double>(n);
  if (pi >= 1) {
    m.inverse_mean = 1 / trials;
    return m;
  }
  const double mu = trials * pi;
  m.empty = std::exp(trials * std::log1p(-pi));
  if (mu >= 4096) {
    const double c = (1 - pi) / mu;
    // Third and fourth central moments: μ(1−π)(1−2π) and 3μ²(1−π)² + O(μ).
    m.inverse_mean = (1 + c + c * c * (3 - (1 - 2 * pi) / (1 - pi))) / mu;
    return m;
  }
  const double sigma = std::sqrt(mu * (1 - pi));
  const int64_t mode = std::clamp<int64_t>(
      static_cast<int64_t>(std::floor((trials + 1) * pi)), 1, n);
  const int64_t low =
      std::max<int64_t>(1, mode - static_cast<int64_t>(14 * sigma) - 14);
  const int64_t high =
      std::min<int64_t>(n, mode + static_cast<int64_t>(14 * sigma) + 14);
  const double log_odds = std::log(pi) - std::log1p(-pi);
  const double log_mode =
      std::lgamma(trials + 1) - std::lgamma(static_cast<double>(mode) + 1) -
      std::lgamma(trials - static_cast<double>(mode) + 1) +
      static_cast<double>(mode) * std::log(pi) +
      (trials - static_cast<double>(mode)) * std::log1p(-pi);
  const double ratio = std::exp(log_odds);
  double pmf = std::exp(log_mode);
  for (int64_t k = mode; k <= high; ++k) {  // upward: pmf(k+1)/pmf(k)
    m.inverse_mean += pmf / static_cast<double>(k);
    pmf *= ratio * static_cast<double>(n - k) / static_cast<double>(k + 1);
  }
  pmf = std::exp(log_mode);
  for (int64_t k = mode - 1; k >= low; --k) {  // downward
    pmf *= static_cast<double>(k + 1) / (ratio * static_cast<double>(n - k));
    m.inverse_mean += pmf / static_cast<double>(k);
  }
  return m;
}

}  // namespace ldp
