// Synthetic populations; see the header.
#include "common/estimation/population.h"

#include <algorithm>
#include <cmath>

#include "absl/random/uniform_real_distribution.h"
#include "absl/strings/str_cat.h"

namespace ldp {

absl::StatusOr<std::vector<double>> ZipfDistribution(uint32_t domain_size,
                                                     double exponent) {
  if (domain_size == 0) {
    return absl::InvalidArgumentError("Zipf domain size must be >= 1");
  }
  if (!std::isfinite(exponent) || exponent < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("Zipf exponent must be finite and >= 0, got ", exponent));
  }
  std::vector<double> p(domain_size);
  double total = 0;
  for (uint32_t i = 0; i < domain_size; ++i) {
    p[i] = std::pow(static_cast<double>(i) + 1.0, -exponent);
    total += p[i];
  }
  for (double& x : p) x /= total;
  return p;
}

std::vector<uint32_t> SampleItems(absl::Span<const double> probabilities,
                                  int64_t n, absl::BitGenRef gen) {
  std::vector<double> cdf(probabilities.size());
  double running = 0;
  for (size_t i = 0; i < probabilities.size(); ++i) {
    running += probabilities[i];
    cdf[i] = running;
  }
  std::vector<uint32_t> items(static_cast<size_t>(std::max<int64_t>(n, 0)));
  absl::uniform_real_distribution<double> uniform(0.0, running);
  for (uint32_t& item : items) {
    const double u = uniform(gen);
    const auto it = std::upper_bound(cdf.begin(), cdf.end(), u);
    item = static_cast<uint32_t>(
        std::min<size_t>(it - cdf.begin(), probabilities.size() - 1));
  }
  return items;
}

std::vector<double> EmpiricalFrequencies(absl::Span<const uint32_t> items,
                                         uint32_t domain_size) {
  std::vector<double> f(domain_size, 0.0);
  for (uint32_t item : items) {
    if (item < domain_size) f[item] += 1;
  }
  if (!items.empty()) {
    for (double& x : f) x /= static_cast<double>(items.size());
  }
  return f;
}

double MeanSquaredError(absl::Span<const double> estimate,
                        absl::Span<const double> truth) {
  const size_t n = std::min(estimate.size(), truth.size());
  if (n == 0) return 0;
  double total = 0;
  for (size_t i = 0; i < n; ++i) {
    total += (estimate[i] - truth[i]) * (estimate[i] - truth[i]);
  }
  return total / static_cast<double>(n);
}

}  // namespace ldp
