// Checks every bounded-real mechanism must pass (real_mechanism.h contract):
// option validation, the exact e^ε likelihood ratio by enumeration, samples
// that follow Probability(), unbiased decoding with the closed-form
// variance, rejection of impossible levels, and clamping of odd inputs.
// Shared so that each mechanism's test states only what is particular to it
// (its output levels, inputs and sample sizes). Thresholds follow
// statistics.h (5 standard errors, χ² at 1 − 1e-6).
#ifndef LDP_TESTS_TESTING_REAL_MECHANISM_CHECKS_H_
#define LDP_TESTS_TESTING_REAL_MECHANISM_CHECKS_H_

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "absl/random/bit_gen_ref.h"
#include "common/mechanisms/real/real_mechanism.h"
#include "gtest/gtest.h"
#include "tests/testing/statistics.h"
#include "tests/testing/status_matchers.h"

namespace ldp::testing {

// Create rejects ε and bounds that are not finite and > 0, and ε above the
// library-wide cap of 50, with InvalidArgument.
template <typename Mechanism>
void ExpectCreateRejectsBadEpsilonAndBound() {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  for (double epsilon : {0.0, -1.0, std::nan(""), kInf, 51.0}) {
    EXPECT_THAT(Mechanism::Create({.epsilon = epsilon}),
                StatusIs(absl::StatusCode::kInvalidArgument))
        << epsilon;
  }
  for (double bound : {0.0, -2.0, std::nan(""), kInf}) {
    EXPECT_THAT(Mechanism::Create({.bound = bound}),
                StatusIs(absl::StatusCode::kInvalidArgument))
        << bound;
  }
}

// `grid`, the midpoints between its neighbours (which exercise the
// randomized rounding), and odd inputs that must clamp.
inline std::vector<double> GridMidpointsAndOddInputs(std::vector<double> grid) {
  const size_t points = grid.size();
  for (size_t i = 1; i < points; ++i) {
    grid.push_back((grid[i - 1] + grid[i]) / 2);
  }
  for (double odd :
       {std::nan(""), std::numeric_limits<double>::infinity(), -1e300}) {
    grid.push_back(odd);
  }
  return grid;
}

// Over `inputs` × `outputs` the max likelihood ratio is e^epsilon() within
// 1e-9: never more, and attained, so ε is not overstated either. Every
// `sum_stride`-th input's probabilities over `outputs` sum to 1 within
// `sum_tolerance`.
inline void ExpectExactEpsilonAndNormalized(
    const RealMechanism& m, const std::vector<double>& inputs,
    const std::vector<ScalarReport>& outputs, double sum_tolerance,
    size_t sum_stride = 1) {
  const double ratio = MaxProbabilityRatio<double, ScalarReport>(
      inputs, outputs, [&](const double& x, const ScalarReport& w) {
        return m.Probability(x, w);
      });
  EXPECT_LE(ratio, std::exp(m.epsilon()) * (1 + 1e-9)) << "ε " << m.epsilon();
  EXPECT_GE(ratio, std::exp(m.epsilon()) * (1 - 1e-9)) << "ε " << m.epsilon();
  for (size_t i = 0; i < inputs.size(); i += sum_stride) {
    double total = 0;
    for (const ScalarReport& w : outputs) total += m.Probability(inputs[i], w);
    EXPECT_NEAR(total, 1.0, sum_tolerance)
        << "ε " << m.epsilon() << " x " << inputs[i];
  }
}

// Pearson χ² of `draws` samples of Randomize(x) against Probability(x, ·)
// over `outputs` (sorted by level). With `pool_the_rest` (unbounded noise)
// the levels outside `outputs` form one more category expecting the
// remaining mass; without it they are impossible and fail the check.
inline void ExpectRandomizeFollowsProbability(
    const RealMechanism& m, double x, const std::vector<ScalarReport>& outputs,
    int draws, absl::BitGenRef gen, bool pool_the_rest = false) {
  std::vector<int64_t> levels;
  for (const ScalarReport& w : outputs) levels.push_back(w.level);
  ASSERT_TRUE(std::is_sorted(levels.begin(), levels.end()));
  const size_t categories = outputs.size() + (pool_the_rest ? 1 : 0);
  std::vector<double> observed(categories, 0), expected(categories, 0);
  double inside = 0;
  for (size_t i = 0; i < outputs.size(); ++i) {
    expected[i] = draws * m.Probability(x, outputs[i]);
    inside += expected[i];
  }
  if (pool_the_rest) expected.back() = draws - inside;
  int impossible = 0;
  for (int i = 0; i < draws; ++i) {
    const int64_t level = m.Randomize(x, gen).level;
    const auto it = std::lower_bound(levels.begin(), levels.end(), level);
    if (it != levels.end() && *it == level) {
      observed[it - levels.begin()] += 1;
    } else if (pool_the_rest) {
      observed.back() += 1;
    } else {
      ++impossible;
    }
  }
  EXPECT_EQ(impossible, 0) << "x " << x;
  const ChiSquareResult result = ChiSquare(observed, expected);
  EXPECT_TRUE(result.Passes())
      << "ε " << m.epsilon() << " x " << x << ": chi2 " << result.statistic
      << " df " << result.degrees_of_freedom;
}

// Exact mean, variance and excess kurtosis of Decode(R(x)), summed over
// `outputs` (every level R can emit).
struct Moments {
  double mean = 0, variance = 0, excess_kurtosis = 0;
};
inline Moments ExactMoments(const RealMechanism& m, double x,
                            const std::vector<ScalarReport>& outputs) {
  Moments result;
  for (const ScalarReport& w : outputs) {
    result.mean += m.Probability(x, w) * m.Decode(w);
  }
  double fourth = 0;
  for (const ScalarReport& w : outputs) {
    const double d = m.Decode(w) - result.mean;
    result.variance += m.Probability(x, w) * d * d;
    fourth += m.Probability(x, w) * d * d * d * d;
  }
  result.excess_kurtosis = fourth / (result.variance * result.variance) - 3;
  return result;
}

// `draws` single reports of x decode to a mean within 5 standard errors of
// x and an empirical variance within 10% of Variance(x). The sample
// variance's relative SD is √((2 + excess kurtosis)/draws); given every
// level in `outputs`, the exact kurtosis checks that 10% is ≥ 5 SD (callers
// that omit it argue the bound in a comment).
inline void ExpectEmpiricalMomentsMatchClosedForm(
    const RealMechanism& m, double x, int draws, absl::BitGenRef gen,
    const std::vector<ScalarReport>& outputs = {}) {
  if (!outputs.empty()) {
    const Moments exact = ExactMoments(m, x, outputs);
    ASSERT_LE(5 * std::sqrt((2 + exact.excess_kurtosis) / draws), 0.1);
  }
  RunningMoments moments;
  for (int i = 0; i < draws; ++i) {
    moments.Add(m.Decode(m.Randomize(x, gen)));
  }
  const double variance = m.Variance(x);
  EXPECT_LE(std::fabs(moments.mean() - x), 5 * std::sqrt(variance / draws))
      << "ε " << m.epsilon() << " x " << x;
  EXPECT_NEAR(moments.variance() / variance, 1.0, 0.1)
      << "ε " << m.epsilon() << " x " << x;
}

// Validate says InvalidArgument for each of `levels`; given
// `impossible_from`, Probability says 0 for each from that input too.
inline void ExpectLevelsRejected(
    const RealMechanism& m, const std::vector<int64_t>& levels,
    std::optional<double> impossible_from = std::nullopt) {
  for (int64_t level : levels) {
    EXPECT_THAT(m.Validate({.level = level}),
                StatusIs(absl::StatusCode::kInvalidArgument))
        << level;
    if (impossible_from.has_value()) {
      EXPECT_EQ(m.Probability(*impossible_from, {.level = level}), 0) << level;
    }
  }
}

// DecodeBound() is the largest |Decode| over `levels`: levels Validate
// accepts, which must include the extreme ones.
inline void ExpectDecodeBoundAttained(const RealMechanism& m,
                                      const std::vector<ScalarReport>& levels) {
  double largest = 0;
  for (const ScalarReport& w : levels) {
    ASSERT_OK(m.Validate(w)) << w.level;
    largest = std::max(largest, std::fabs(m.Decode(w)));
  }
  EXPECT_EQ(largest, m.DecodeBound());
}

// DESIGN invariant 8: NaN, infinite and out-of-range inputs take the same
// code path as their clamped value: equal Probability over `outputs` and
// identical draws from identically seeded generators.
inline void ExpectOddInputsClamped(const RealMechanism& m,
                                   const std::vector<ScalarReport>& outputs) {
  const double b = m.bound();
  const std::vector<std::pair<double, double>> cases = {
      {std::nan(""), 0.0},
      {std::numeric_limits<double>::infinity(), b},
      {-1e300, -b},
      {3.5 * b, b}};
  for (const auto& [odd, clamped] : cases) {
    for (const ScalarReport& w : outputs) {
      EXPECT_EQ(m.Probability(odd, w), m.Probability(clamped, w)) << odd;
    }
    SeededGenerator a(9), c(9);
    for (int i = 0; i < 1000; ++i) {
      ASSERT_EQ(m.Randomize(odd, a), m.Randomize(clamped, c)) << odd;
    }
  }
}

}  // namespace ldp::testing

#endif  // LDP_TESTS_TESTING_REAL_MECHANISM_CHECKS_H_
