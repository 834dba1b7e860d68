#include "common/mechanisms/real/piecewise_mechanism.h"

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

using testing::ExactMoments;
using testing::Moments;
using testing::SeededGenerator;
using testing::StatusIs;

std::unique_ptr<PiecewiseMechanism> MakePiecewise(
    const PiecewiseOptions& options) {
  auto mechanism = PiecewiseMechanism::Create(options);
  EXPECT_OK(mechanism);
  return std::move(mechanism).value();
}

std::vector<ScalarReport> AllCells(const PiecewiseMechanism& m) {
  std::vector<ScalarReport> cells;
  for (int64_t c = 0; c < m.num_cells(); ++c) cells.push_back({.level = c});
  return cells;
}

// The input grid, the midpoints between its points, and odd inputs.
std::vector<double> Inputs(const PiecewiseMechanism& m) {
  return testing::GridMidpointsAndOddInputs(m.InputGrid());
}

// The paper's continuous variance (b = 1) and its worst case.
double PaperVariance(double t, double epsilon) {
  const double e = std::exp(epsilon / 2);
  return t * t / (e - 1) + (e + 3) / (3 * (e - 1) * (e - 1));
}
double PaperWorstCase(double epsilon) {
  const double e = std::exp(epsilon / 2);
  return 4 * e / (3 * (e - 1) * (e - 1));
}

TEST(PiecewiseMechanism, CreateRejectsBadOptions) {
  testing::ExpectCreateRejectsBadEpsilonAndBound<PiecewiseMechanism>();
  for (int64_t cells : {int64_t{-5}, int64_t{0}, int64_t{1},
                        PiecewiseMechanism::kMaxCells + 1}) {
    EXPECT_THAT(PiecewiseMechanism::Create({.num_cells = cells}),
                StatusIs(absl::StatusCode::kInvalidArgument))
        << cells;
  }
  // So small an ε rounds the inside and outside cell probabilities equal.
  EXPECT_THAT(PiecewiseMechanism::Create({.epsilon = 1e-12}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_OK(PiecewiseMechanism::Create({.epsilon = 50, .num_cells = 2}));
}

TEST(PiecewiseMechanism, ImplementedEpsilonIsJustBelowTheRequestedOne) {
  for (int64_t cells : {16, 2048}) {
    for (double epsilon : {0.1, 0.5, 1.0, 2.0, 4.0, 8.0}) {
      auto m = MakePiecewise({.epsilon = epsilon, .num_cells = cells});
      EXPECT_LE(m->epsilon(), epsilon);
      EXPECT_LE(epsilon - m->epsilon(), 1e-6) << cells << " " << epsilon;
      // The band is the paper's fraction 1/(e^{ε/2} + 1) of the range, and
      // at least one cell.
      EXPECT_NEAR(m->band_cells(),
                  std::max(1.0, cells / (std::exp(epsilon / 2) + 1)), 0.5);
    }
  }
}

// Acceptance (1): exact pmf over every cell and every grid input.
TEST(PiecewiseMechanism, LikelihoodRatioIsAtMostEToTheEpsilon) {
  for (int64_t cells : {16, 2048}) {
    for (double epsilon : {0.5, 1.0, 2.0, 4.0}) {
      auto m =
          MakePiecewise({.epsilon = epsilon, .bound = 2.0, .num_cells = cells});
      testing::ExpectExactEpsilonAndNormalized(*m, Inputs(*m), AllCells(*m),
                                               1e-12, cells == 16 ? 1 : 97);
    }
  }
}

// Acceptance (2): samples follow Probability().
TEST(PiecewiseMechanism, SamplesFollowTheExactDistribution) {
  SeededGenerator gen(19);
  // Few cells give power against small errors in the band coin; many cells
  // exercise the default layout.
  for (const auto& [cells, draws] :
       {std::pair<int64_t, int>{16, 1'000'000}, {2048, 500'000}}) {
    auto m = MakePiecewise({.epsilon = 1.0, .bound = 1.0, .num_cells = cells});
    for (double x : {0.3, -1.0}) {
      SCOPED_TRACE(cells);
      testing::ExpectRandomizeFollowsProbability(*m, x, AllCells(*m), draws,
                                                 gen);
    }
  }
}

// Decode is unbiased and Variance() is its variance, by exact summation.
TEST(PiecewiseMechanism, ExactMomentsMatchDecodeAndVariance) {
  for (int64_t cells : {16, 2048}) {
    for (double epsilon : {0.5, 2.0}) {
      auto m =
          MakePiecewise({.epsilon = epsilon, .bound = 3.0, .num_cells = cells});
      const std::vector<double> inputs = Inputs(*m);
      for (size_t i = 0; i < inputs.size(); i += cells == 16 ? 1 : 41) {
        const double x =
            std::clamp(std::isnan(inputs[i]) ? 0.0 : inputs[i], -3.0, 3.0);
        const Moments exact = ExactMoments(*m, inputs[i], AllCells(*m));
        EXPECT_NEAR(exact.mean, x, 1e-9) << cells << " " << epsilon << " " << x;
        EXPECT_NEAR(exact.variance, m->Variance(inputs[i]),
                    1e-9 * exact.variance);
      }
    }
  }
}

// The grid mechanism tracks the paper's continuous one, and WorstCaseVariance
// is the maximum of Variance over [−b, b].
TEST(PiecewiseMechanism, VarianceIsCloseToThePapersAndItsMaximumIsExact) {
  constexpr double kBound = 2.0;
  for (double epsilon : {0.5, 1.0, 2.0, 4.0}) {
    auto m = MakePiecewise({.epsilon = epsilon, .bound = kBound});
    double sweep_max = 0;
    for (int i = 0; i <= 20'000; ++i) {
      const double x = kBound * (i / 10'000.0 - 1);
      sweep_max = std::max(sweep_max, m->Variance(x));
      if (i % 500 == 0) {
        EXPECT_NEAR(m->Variance(x) / (kBound * kBound),
                    PaperVariance(x / kBound, epsilon),
                    0.02 * PaperVariance(x / kBound, epsilon))
            << epsilon << " " << x;
      }
    }
    EXPECT_GE(m->WorstCaseVariance(), sweep_max * (1 - 1e-12));
    EXPECT_LE(m->WorstCaseVariance(), sweep_max * (1 + 1e-6));
    EXPECT_NEAR(m->WorstCaseVariance() / (kBound * kBound),
                PaperWorstCase(epsilon), 0.02 * PaperWorstCase(epsilon))
        << epsilon;
  }
}

// Acceptance (3): single reports are unbiased with the closed-form
// variance. R = 50,000; the test checks that 10% is ≥ 5 SD of the sample
// variance, SD ≈ √((2 + excess kurtosis)/R), using the exact kurtosis.
TEST(PiecewiseMechanism, EmpiricalMeanAndVarianceMatchTheClosedForm) {
  constexpr int kDraws = 50'000;
  SeededGenerator gen(37);
  for (double epsilon : {0.5, 1.0, 2.0, 4.0}) {
    auto m = MakePiecewise({.epsilon = epsilon, .bound = 2.0});
    for (double x : {-2.0, 0.1234, 1.8}) {
      testing::ExpectEmpiricalMomentsMatchClosedForm(*m, x, kDraws, gen,
                                                     AllCells(*m));
    }
  }
}

TEST(PiecewiseMechanism, ValidateAcceptsExactlyTheCells) {
  auto m = MakePiecewise({.num_cells = 100});
  EXPECT_OK(m->Validate({.level = 0}));
  EXPECT_OK(m->Validate({.level = 99}));
  testing::ExpectLevelsRejected(
      *m,
      {int64_t{-1}, int64_t{100}, std::numeric_limits<int64_t>::max(),
       std::numeric_limits<int64_t>::min()},
      /*impossible_from=*/0.5);
  for (double epsilon : {0.5, 4.0}) {
    auto other = MakePiecewise({.epsilon = epsilon, .bound = 3.0});
    testing::ExpectDecodeBoundAttained(*other, AllCells(*other));
  }
}

// Invariant 8: odd inputs take the same code path as their clamped value.
TEST(PiecewiseMechanism, OddInputsAreClampedNotRejected) {
  auto m = MakePiecewise({.epsilon = 1.0, .bound = 2.0, .num_cells = 64});
  testing::ExpectOddInputsClamped(*m, AllCells(*m));
}

}  // namespace
}  // namespace ldp
