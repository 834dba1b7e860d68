#include "common/mechanisms/real/piecewise_quadratic.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "gtest/gtest.h"
#include "tests/testing/test_values.h"

namespace ldp {
namespace {

using ::ldp::testing::kInf;

TEST(MaxOfPiecewiseQuadratic, FindsAnInteriorVertex) {
  const std::vector<double> knots = {-1, 0, 0.5, 2};
  EXPECT_NEAR(MaxOfPiecewiseQuadratic(
                  [](double x) { return 3 - (x - 0.37) * (x - 0.37); }, knots),
              3.0, 1e-12);
}

TEST(MaxOfPiecewiseQuadratic, UsesEndpointsForConvexPieces) {
  const std::vector<double> knots = {-1, 0, 1, 2};
  EXPECT_DOUBLE_EQ(
      MaxOfPiecewiseQuadratic([](double x) { return x * x; }, knots), 4.0);
  EXPECT_DOUBLE_EQ(MaxOfPiecewiseQuadratic([](double x) { return -x; }, knots),
                   1.0);
  EXPECT_DOUBLE_EQ(MaxOfPiecewiseQuadratic([](double x) { return x; },
                                           std::vector<double>{0.5}),
                   0.5);
}

// The shape it exists for: a chord-interpolated convex function minus a
// convex one has its maximum inside a cell.
TEST(MaxOfPiecewiseQuadratic, MatchesADenseSweepOfAnInterpolatedVariance) {
  std::vector<double> knots;
  for (int j = 0; j <= 10; ++j) knots.push_back(j / 10.0);
  const auto variance = [&](double x) {
    const double j = std::min(std::floor(x * 10), 9.0);
    const double f = x * 10 - j;
    const auto second = [](double k) { return 1 + 0.5 * (k / 10) * (k / 10); };
    return (1 - f) * second(j) + f * second(j + 1) - 1.4 * x * x + x;
  };
  double sweep = -kInf;
  for (int i = 0; i <= 1'000'000; ++i)
    sweep = std::max(sweep, variance(i / 1e6));
  const double exact = MaxOfPiecewiseQuadratic(variance, knots);
  EXPECT_GE(exact, sweep - 1e-12);
  EXPECT_LE(exact, sweep + 1e-9);
}

}  // namespace
}  // namespace ldp
