#include "common/estimation/consistency.h"

#include <cmath>
#include <numeric>
#include <vector>

#include "common/base/coin.h"
#include "gtest/gtest.h"
#include "tests/testing/statistics.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

double Sum(const std::vector<double>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0);
}

TEST(ProjectOntoSimplex, KeepsPointsAlreadyOnTheSimplex) {
  const std::vector<double> f = {0.2, 0.3, 0.5};
  const auto p = ProjectOntoSimplex(f);
  for (size_t i = 0; i < f.size(); ++i) EXPECT_NEAR(p[i], f[i], 1e-15);
}

TEST(ProjectOntoSimplex, SubtractsACommonShiftAndClips) {
  const auto p = ProjectOntoSimplex(std::vector<double>{0.9, 0.5, -0.2, 0.1});
  // δ = 0.2: (0.7, 0.3, 0, 0).
  EXPECT_NEAR(p[0], 0.7, 1e-12);
  EXPECT_NEAR(p[1], 0.3, 1e-12);
  EXPECT_EQ(p[2], 0.0);
  EXPECT_EQ(p[3], 0.0);
}

// The projection is the closest point of the simplex: no random simplex
// point is closer.
TEST(ProjectOntoSimplex, IsTheNearestSimplexPoint) {
  testing::SeededGenerator gen(9);
  std::vector<double> f(8);
  for (double& x : f) x = (UniformBelow(2001, gen) / 1000.0) - 1.0;
  const auto p = ProjectOntoSimplex(f);
  EXPECT_NEAR(Sum(p), 1.0, 1e-12);
  auto dist = [&](const std::vector<double>& x) {
    double d = 0;
    for (size_t i = 0; i < f.size(); ++i) d += (x[i] - f[i]) * (x[i] - f[i]);
    return d;
  };
  for (int t = 0; t < 2000; ++t) {
    std::vector<double> other(f.size());
    for (double& x : other)
      x = static_cast<double>(UniformBelow(1000, gen)) + 1e-9;
    const double s = Sum(other);
    for (double& x : other) x /= s;
    EXPECT_LE(dist(p), dist(other) + 1e-12);
  }
}

TEST(ProjectOntoSimplex, HandlesEmptyAndNonFinite) {
  EXPECT_TRUE(ProjectOntoSimplex({}).empty());
  const auto p = ProjectOntoSimplex(std::vector<double>{NAN, 0.5, INFINITY});
  EXPECT_NEAR(Sum(p), 1.0, 1e-12);
  for (double x : p) EXPECT_GE(x, 0.0);
}

TEST(ClipAndNormalize, ClipsThenRescales) {
  const auto p = ClipAndNormalize(std::vector<double>{0.6, -0.1, 0.2});
  EXPECT_NEAR(p[0], 0.75, 1e-12);
  EXPECT_EQ(p[1], 0.0);
  EXPECT_NEAR(p[2], 0.25, 1e-12);
  const auto uniform = ClipAndNormalize(std::vector<double>{-1, -2});
  EXPECT_NEAR(uniform[0], 0.5, 1e-12);
}

}  // namespace
}  // namespace ldp
