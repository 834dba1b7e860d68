// The default iid sampler of StrategyMechanism; see strategy.h.
#include "common/workload/strategy.h"

#include <algorithm>
#include <random>
#include <vector>

namespace ldp {

Eigen::VectorXd StrategyMechanism::SampleIidEstimate(
    const Eigen::VectorXd& h, int64_t n, absl::BitGenRef gen) const {
  // Multinomial counts as sequential binomials over the items.
  std::vector<int64_t> counts(static_cast<size_t>(h.size()), 0);
  int64_t left = n;
  double mass_left = 1;
  for (Eigen::Index x = 0; x < h.size() && left > 0; ++x) {
    const double p = x + 1 == h.size()
                         ? 1.0
                         : std::clamp(h[x] / mass_left, 0.0, 1.0);
    counts[static_cast<size_t>(x)] =
        std::binomial_distribution<int64_t>(left, p)(gen);
    left -= counts[static_cast<size_t>(x)];
    mass_left -= h[x];
  }
  return SampleEstimate(counts, gen);
}

}  // namespace ldp
