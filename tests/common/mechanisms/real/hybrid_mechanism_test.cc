#include "common/mechanisms/real/hybrid_mechanism.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "tests/testing/real_mechanism_checks.h"
#include "tests/testing/statistics.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

using testing::ExactMoments;
using testing::Moments;
using testing::SeededGenerator;
using testing::StatusIs;

std::unique_ptr<HybridMechanism> MakeHybrid(const HybridOptions& options) {
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
  return testing::GridMidpointsAndOddInputs(m.piecewise().InputGrid());
}

// The paper's constant hybrid variance for ε > 0.61 (b = 1).
double PaperVariance(double epsilon) {
  const double h = std::exp(epsilon / 2), e = std::exp(epsilon);
  return (h + 3) / (3 * h * (h - 1)) +
         (e + 1) * (e + 1) / (h * (e - 1) * (e - 1));
}

TEST(HybridMechanism, CreateRejectsBadOptions) {
  testing::ExpectCreateRejectsBadEpsilonAndBound<HybridMechanism>();
  EXPECT_THAT(HybridMechanism::Create({.num_cells = 1}),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(HybridMechanism, UsesThePiecewiseBranchOnlyAboveThePapersThreshold) {
  for (double epsilon : {0.1, 0.5, 0.61}) {
    auto m = MakeHybrid({.epsilon = epsilon});
    EXPECT_EQ(m->piecewise_probability().numerator(), 0u);
    EXPECT_EQ(m->epsilon(), m->duchi().epsilon());
    EXPECT_EQ(m->WorstCaseVariance(), m->duchi().WorstCaseVariance());
    EXPECT_EQ(m->DecodeBound(), m->duchi().DecodeBound());
    EXPECT_THAT(m->Validate({.level = 0}),
                StatusIs(absl::StatusCode::kInvalidArgument));
  }
  for (double epsilon : {0.62, 1.0, 2.0, 4.0, 8.0}) {
    auto m = MakeHybrid({.epsilon = epsilon});
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
      auto m =
          MakeHybrid({.epsilon = epsilon, .bound = 2.0, .num_cells = cells});
      testing::ExpectExactEpsilonAndNormalized(*m, Inputs(*m), AllLevels(*m),
                                               1e-12, cells == 16 ? 1 : 97);
    }
  }
}

// Acceptance (2): samples follow Probability(), both branches together.
TEST(HybridMechanism, SamplesFollowTheExactDistribution) {
  constexpr int kDraws = 500'000;
  SeededGenerator gen(23);
  for (double epsilon : {0.5, 2.0}) {
    auto m = MakeHybrid({.epsilon = epsilon, .bound = 1.0, .num_cells = 16});
    for (double x : {0.3, -1.0}) {
      testing::ExpectRandomizeFollowsProbability(*m, x, AllLevels(*m), kDraws,
                                                 gen);
    }
  }
}

TEST(HybridMechanism, ExactMomentsMatchDecodeAndVariance) {
  for (double epsilon : {0.5, 1.0, 4.0}) {
    auto m = MakeHybrid({.epsilon = epsilon, .bound = 3.0, .num_cells = 256});
    for (double x : Inputs(*m)) {
      const double clamped = std::clamp(std::isnan(x) ? 0.0 : x, -3.0, 3.0);
      const Moments exact = ExactMoments(*m, x, AllLevels(*m));
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
    auto m = MakeHybrid({.epsilon = epsilon, .bound = kBound});
    double lowest = kInfinity, highest = 0;
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
    auto m = MakeHybrid({.epsilon = epsilon, .bound = 2.0});
    for (double x : {-2.0, 0.1234, 1.8}) {
      testing::ExpectEmpiricalMomentsMatchClosedForm(*m, x, kDraws, gen,
                                                     AllLevels(*m));
    }
  }
}

TEST(HybridMechanism, ValidateAcceptsExactlyTheLevelsOfBothBranches) {
  auto m = MakeHybrid({.epsilon = 2.0, .num_cells = 100});
  EXPECT_EQ(m->duchi_minus_level(), 100);
  EXPECT_EQ(m->duchi_plus_level(), 101);
  for (int64_t level : {0, 99, 100, 101})
    EXPECT_OK(m->Validate({.level = level}));
  testing::ExpectLevelsRejected(
      *m,
      {int64_t{-1}, int64_t{102}, std::numeric_limits<int64_t>::max(),
       std::numeric_limits<int64_t>::min()},
      /*impossible_from=*/0.5);
  testing::ExpectDecodeBoundAttained(*m, AllLevels(*m));
}

// Invariant 8: odd inputs take the same code path as their clamped value.
TEST(HybridMechanism, OddInputsAreClampedNotRejected) {
  auto m = MakeHybrid({.epsilon = 2.0, .bound = 2.0, .num_cells = 64});
  testing::ExpectOddInputsClamped(*m, AllLevels(*m));
}

}  // namespace
}  // namespace ldp
