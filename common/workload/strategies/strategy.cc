// The default iid sampler of StrategyMechanism and the multinomial draw
// the samplers share; see strategy.h.
#include "common/workload/strategies/strategy.h"

#include <algorithm>
#include <random>
#include <vector>

namespace ldp {

std::vector<int64_t> SampleMultinomialCounts(const Eigen::VectorXd& p,
                                             int64_t n, absl::BitGenRef gen) {
  std::vector<int64_t> counts(static_cast<size_t>(p.size()), 0);
  int64_t left = std::max<int64_t>(n, 0);
  double mass_left = 1;
  for (Eigen::Index x = 0; x < p.size() && left > 0; ++x) {
    const double share =
        x + 1 == p.size() ? 1.0 : std::clamp(p[x] / mass_left, 0.0, 1.0);
    counts[static_cast<size_t>(x)] =
        std::binomial_distribution<int64_t>(left, share)(gen);
    left -= counts[static_cast<size_t>(x)];
    mass_left -= p[x];
  }
  return counts;
}

Eigen::VectorXd StrategyMechanism::SampleIidEstimate(
    const Eigen::VectorXd& h, int64_t n, absl::BitGenRef gen) const {
  return SampleEstimate(SampleMultinomialCounts(h, n, gen), gen);
}

}  // namespace ldp
