// Shared helpers for the statistical tests: seeded generators, the exact
// likelihood-ratio check, Pearson χ² with bin merging, and variance checks.
//
// Every threshold is derived from the math at a false-failure rate of about
// 1e-6 per assertion, and every test uses a fixed seed, so the suites are
// deterministic and never flake.
#ifndef LDP_TESTS_TESTING_STATISTICS_H_
#define LDP_TESTS_TESTING_STATISTICS_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <utility>
#include <vector>

namespace ldp::testing {

// Tests inject this in place of SecureRandom (never used outside tests).
using SeededGenerator = std::mt19937_64;

// Upper 1 − 1e-6 quantile of χ²(df) by the Wilson–Hilferty approximation,
// which is conservative (slightly too large) for small df.
inline double ChiSquareCritical(int df) {
  constexpr double kZ = 4.753424;  // standard normal 1 − 1e-6 quantile
  const double d = static_cast<double>(std::max(df, 1));
  const double t = 1.0 - 2.0 / (9.0 * d) + kZ * std::sqrt(2.0 / (9.0 * d));
  return d * t * t * t;
}

struct ChiSquareResult {
  double statistic = 0;
  int degrees_of_freedom = 0;
  bool Passes() const {
    return statistic <= ChiSquareCritical(degrees_of_freedom);
  }
};

// Pearson χ² of observed counts against expected counts (same order). Bins
// are merged, smallest expectation first, until each expects ≥ min_expected.
// The merge order depends on the expectations alone (stable among equal
// ones): ordering by observed counts too would group the high and the low
// outcomes of a unary encoding's many equal bins and inflate the statistic.
inline ChiSquareResult ChiSquare(const std::vector<double>& observed,
                                 const std::vector<double>& expected,
                                 double min_expected = 50.0) {
  std::vector<std::pair<double, double>> bins;  // (expected, observed)
  for (size_t i = 0; i < observed.size(); ++i) {
    bins.emplace_back(expected[i], observed[i]);
  }
  std::stable_sort(bins.begin(), bins.end(), [](const auto& a, const auto& b) {
    return a.first < b.first;
  });
  std::vector<std::pair<double, double>> merged;
  std::pair<double, double> pending{0, 0};
  for (const auto& bin : bins) {
    pending.first += bin.first;
    pending.second += bin.second;
    if (pending.first >= min_expected) {
      merged.push_back(pending);
      pending = {0, 0};
    }
  }
  if (pending.first > 0 || pending.second > 0) {
    if (merged.empty()) {
      merged.push_back(pending);
    } else {
      merged.back().first += pending.first;
      merged.back().second += pending.second;
    }
  }
  ChiSquareResult result;
  for (const auto& [e, o] : merged) {
    if (e > 0) result.statistic += (o - e) * (o - e) / e;
  }
  result.degrees_of_freedom = static_cast<int>(merged.size()) - 1;
  return result;
}

// max over inputs u, u' and outputs w of Pr[w|u] / Pr[w|u'], where some
// input has positive probability of w. Returns +inf if some input can emit
// w and another cannot (an ε = ∞ leak).
template <typename Input, typename Output>
double MaxProbabilityRatio(
    const std::vector<Input>& inputs, const std::vector<Output>& outputs,
    const std::function<double(const Input&, const Output&)>& probability) {
  double worst = 1.0;
  for (const Output& w : outputs) {
    double lo = INFINITY, hi = 0;
    for (const Input& u : inputs) {
      const double p = probability(u, w);
      lo = std::min(lo, p);
      hi = std::max(hi, p);
    }
    if (hi == 0) continue;
    if (lo == 0) return INFINITY;
    worst = std::max(worst, hi / lo);
  }
  return worst;
}

// Running mean and variance (Welford) of repeated estimates.
class RunningMoments {
 public:
  void Add(double x) {
    ++n_;
    const double delta = x - mean_;
    mean_ += delta / static_cast<double>(n_);
    m2_ += delta * (x - mean_);
  }
  int64_t count() const { return n_; }
  double mean() const { return mean_; }
  double variance() const {
    return n_ > 1 ? m2_ / static_cast<double>(n_ - 1) : 0.0;
  }

 private:
  int64_t n_ = 0;
  double mean_ = 0;
  double m2_ = 0;
};

}  // namespace ldp::testing

#endif  // LDP_TESTS_TESTING_STATISTICS_H_
