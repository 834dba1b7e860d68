#include "common/hybrid_mechanism.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "tests/testing/statistics.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

using testing::ChiSquare;
using testing::MaxProbabilityRatio;
using testing::RunningMoments;
using testing::SeededGenerator;
using testing::StatusIs;

std::unique_ptr<HybridMechanism> Make(const HybridOptions& options) {
  auto mechanism = HybridMechanism::Create(options);
  EXPECT_OK(mechanism);
  return std::move(mechanism).value();
}

// Every level either branch can emit: cells [0, L), then Duchi's − and +.
std::vector<ScalarReport> AllLevels(const HybridMechanism& m) {
  std::vector<ScalarReport> levels;
  for (int64_t l = 0; l <= m.duchi_plus_level(); ++l)
    levels.push_back({.level = l});
  return levels;
}

// The piecewise input grid, midpoints between its points, and odd inputs.
std::vector<double> Inputs(const HybridMechanism& m) {
  std::vector<double> inputs = m.piecewise().InputGrid();
  const size_t points = inputs.size();
  for (size_t i = 1; i < points; ++i) {
    inputs.push_back((inputs[i - 1] + inputs[i]) / 2);
  }
  for (double odd : {std::nan(""), kInf, -1e300}) inputs.push_back(odd);
  return inputs;
}

// The paper's constant hybrid variance for ε > 0.61 (b = 1).
double PaperVariance(double epsilon) {
  const double h = std::exp(epsilon / 2), e = std::exp(epsilon);
  return (h + 3) / (3 * h * (h - 1)) +
         (e + 1) * (e + 1) / (h * (e - 1) * (e - 1));
}

struct Moments {
  double mean = 0, variance = 0, excess_kurtosis = 0;
};
Moments ExactMoments(const HybridMechanism& m, double x) {
  Moments result;
  const std::vector<ScalarReport> levels = AllLevels(m);
  for (const ScalarReport& w : levels) {
    result.mean += m.Probability(x, w) * m.Decode(w);
  }
  double fourth = 0;
  for (const ScalarReport& w : levels) {
    const double d = m.Decode(w) - result.mean;
    result.variance += m.Probability(x, w) * d * d;
    fourth += m.Probability(x, w) * d * d * d * d;
  }
  result.excess_kurtosis = fourth / (result.variance * result.variance) - 3;
  return result;
}

TEST(HybridMechanism, CreateRejectsBadOptions) {
  for (double epsilon : {0.0, -1.0, std::nan(""), kInf, 51.0}) {
    EXPECT_THAT(HybridMechanism::Create({.epsilon = epsilon}),
                StatusIs(absl::StatusCode::kInvalidArgument))
        << epsilon;
  }
  for (double bound : {0.0, -2.0, std::nan(""), kInf}) {
    EXPECT_THAT(HybridMechanism::Create({.bound = bound}),
                StatusIs(absl::StatusCode::kInvalidArgument))
        << bound;
  }
  EXPECT_THAT(HybridMechanism::Create({.num_cells = 1}),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(HybridMechanism, UsesThePiecewiseBranchOnlyAboveThePapersThreshold) {
  for (double epsilon : {0.1, 0.5, 0.61}) {
    auto m = Make({.epsilon = epsilon});
    EXPECT_EQ(m->piecewise_probability().numerator(), 0u);
    EXPECT_EQ(m->epsilon(), m->duchi().epsilon());
    EXPECT_EQ(m->WorstCaseVariance(), m->duchi().WorstCaseVariance());
    EXPECT_THAT(m->Validate({.level = 0}),
                StatusIs(absl::StatusCode::kInvalidArgument));
  }
  for (double epsilon : {0.62, 1.0, 2.0, 4.0, 8.0}) {
    auto m = Make({.epsilon = epsilon});
    EXPECT_NEAR(m->piecewise_probability().value(), 1 - std::exp(-epsilon / 2),
                1e-9);
    EXPECT_LE(m->epsilon(), epsilon);
    EXPECT_LE(epsilon - m->epsilon(), 1e-6) << epsilon;
    EXPECT_EQ(m->epsilon(),
              std::max(m->duchi().epsilon(), m->piecewise().epsilon()));
  }
}

// Acceptance (1): exact pmf over every level of both branches.
TEST(HybridMechanism, LikelihoodRatioIsAtMostEToTheEpsilon) {
  for (int64_t cells : {16, 2048}) {
    for (double epsilon : {0.5, 1.0, 2.0, 4.0}) {
      auto m = Make({.epsilon = epsilon, .bound = 2.0, .num_cells = cells});
      const std::vector<double> inputs = Inputs(*m);
      const std::vector<ScalarReport> outputs = AllLevels(*m);
      const double ratio = MaxProbabilityRatio<double, ScalarReport>(
          inputs, outputs, [&](const double& x, const ScalarReport& w) {
            return m->Probability(x, w);
          });
      EXPECT_LE(ratio, std::exp(m->epsilon()) * (1 + 1e-9)) << epsilon;
      EXPECT_GE(ratio, std::exp(m->epsilon()) * (1 - 1e-9)) << epsilon;
      for (size_t i = 0; i < inputs.size(); i += cells == 16 ? 1 : 97) {
        double total = 0;
        for (const ScalarReport& w : outputs)
          total += m->Probability(inputs[i], w);
        EXPECT_NEAR(total, 1.0, 1e-12) << inputs[i];
      }
    }
  }
}

// Acceptance (2): samples follow Probability(), both branches together.
TEST(HybridMechanism, SamplesFollowTheExactDistribution) {
  constexpr int kDraws = 500'000;
  SeededGenerator gen(23);
  for (double epsilon : {0.5, 2.0}) {
    auto m = Make({.epsilon = epsilon, .bound = 1.0, .num_cells = 16});
    const std::vector<ScalarReport> levels = AllLevels(*m);
    for (double x : {0.3, -1.0}) {
      std::vector<double> observed(levels.size(), 0),
          expected(levels.size(), 0);
      for (size_t l = 0; l < levels.size(); ++l) {
        expected[l] = kDraws * m->Probability(x, levels[l]);
      }
      for (int i = 0; i < kDraws; ++i)
        observed[m->Randomize(x, gen).level] += 1;
      const auto result = ChiSquare(observed, expected);
      EXPECT_TRUE(result.Passes())
          << epsilon << " " << x << ": chi2 " << result.statistic;
    }
  }
}

TEST(HybridMechanism, ExactMomentsMatchDecodeAndVariance) {
  for (double epsilon : {0.5, 1.0, 4.0}) {
    auto m = Make({.epsilon = epsilon, .bound = 3.0, .num_cells = 256});
    for (double x : Inputs(*m)) {
      const double clamped = std::clamp(std::isnan(x) ? 0.0 : x, -3.0, 3.0);
      const Moments exact = ExactMoments(*m, x);
      EXPECT_NEAR(exact.mean, clamped, 1e-9) << epsilon << " " << x;
      EXPECT_NEAR(exact.variance, m->Variance(x), 1e-9 * exact.variance);
    }
  }
}

// The paper's claim: α = 1 − e^{−ε/2} makes the variance constant in x.
// On the grid it holds to within 1%, and WorstCaseVariance is the exact
// maximum of Variance.
TEST(HybridMechanism, VarianceIsNearlyConstantAndItsMaximumIsExact) {
  constexpr double kBound = 2.0;
  for (double epsilon : {1.0, 2.0, 4.0}) {
    auto m = Make({.epsilon = epsilon, .bound = kBound});
    double lowest = kInf, highest = 0;
    for (int i = 0; i <= 20'000; ++i) {
      const double v = m->Variance(kBound * (i / 10'000.0 - 1));
      lowest = std::min(lowest, v);
      highest = std::max(highest, v);
    }
    EXPECT_LE(highest / lowest, 1.01) << epsilon;
    EXPECT_NEAR(highest / (kBound * kBound), PaperVariance(epsilon),
                0.02 * PaperVariance(epsilon))
        << epsilon;
    EXPECT_GE(m->WorstCaseVariance(), highest * (1 - 1e-12));
    EXPECT_LE(m->WorstCaseVariance(), highest * (1 + 1e-6));
    // And it beats both of its branches' worst cases.
    EXPECT_LT(m->WorstCaseVariance(), m->duchi().WorstCaseVariance());
    EXPECT_LT(m->WorstCaseVariance(), m->piecewise().WorstCaseVariance());
  }
}

// Acceptance (3): single reports are unbiased with the closed-form
// variance; 10% is checked to be ≥ 5 SD of the sample variance.
TEST(HybridMechanism, EmpiricalMeanAndVarianceMatchTheClosedForm) {
  constexpr int kDraws = 50'000;
  SeededGenerator gen(41);
  for (double epsilon : {0.5, 1.0, 2.0, 4.0}) {
    auto m = Make({.epsilon = epsilon, .bound = 2.0});
    for (double x : {-2.0, 0.1234, 1.8}) {
      const Moments exact = ExactMoments(*m, x);
      ASSERT_LE(5 * std::sqrt((2 + exact.excess_kurtosis) / kDraws), 0.1);
      RunningMoments moments;
      for (int i = 0; i < kDraws; ++i) {
        moments.Add(m->Decode(m->Randomize(x, gen)));
      }
      const double variance = m->Variance(x);
      EXPECT_LE(std::fabs(moments.mean() - x), 5 * std::sqrt(variance / kDraws))
          << epsilon << " " << x;
      EXPECT_NEAR(moments.variance() / variance, 1.0, 0.1)
          << epsilon << " " << x;
    }
  }
}

TEST(HybridMechanism, ValidateAcceptsExactlyTheLevelsOfBothBranches) {
  auto m = Make({.epsilon = 2.0, .num_cells = 100});
  EXPECT_EQ(m->duchi_minus_level(), 100);
  EXPECT_EQ(m->duchi_plus_level(), 101);
  for (int64_t level : {0, 99, 100, 101})
    EXPECT_OK(m->Validate({.level = level}));
  for (int64_t level :
       {int64_t{-1}, int64_t{102}, std::numeric_limits<int64_t>::max(),
        std::numeric_limits<int64_t>::min()}) {
    EXPECT_THAT(m->Validate({.level = level}),
                StatusIs(absl::StatusCode::kInvalidArgument))
        << level;
    EXPECT_EQ(m->Probability(0.5, {.level = level}), 0);
  }
}

// Invariant 8: odd inputs take the same code path as their clamped value.
TEST(HybridMechanism, OddInputsAreClampedNotRejected) {
  auto m = Make({.epsilon = 2.0, .bound = 2.0, .num_cells = 64});
  const std::vector<std::pair<double, double>> cases = {
      {std::nan(""), 0.0}, {kInf, 2.0}, {-1e300, -2.0}, {7.0, 2.0}};
  for (const auto& [odd, clamped] : cases) {
    for (const ScalarReport& w : AllLevels(*m)) {
      EXPECT_EQ(m->Probability(odd, w), m->Probability(clamped, w)) << odd;
    }
    SeededGenerator a(9), b(9);
    for (int i = 0; i < 1000; ++i) {
      ASSERT_EQ(m->Randomize(odd, a), m->Randomize(clamped, b)) << odd;
    }
  }
}

}  // namespace
}  // namespace ldp
