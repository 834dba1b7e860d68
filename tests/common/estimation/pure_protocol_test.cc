#include "common/estimation/pure_protocol.h"

#include <cmath>
#include <vector>

#include "gtest/gtest.h"

namespace ldp {
namespace {

TEST(PureProtocol, OueVarianceMatchesTheClosedForm) {
  const double e = std::exp(1.0);
  const PureProtocol oue{.p = 0.5, .q = 1 / (e + 1)};
  // Wang et al. 2017: Var = 4e^ε / (n (e^ε − 1)²) + f/n.
  EXPECT_NEAR(oue.Variance(0.0, 1) * 1, 4 * e / ((e - 1) * (e - 1)), 1e-12);
  EXPECT_NEAR(oue.Variance(0.3, 100), (4 * e / ((e - 1) * (e - 1)) + 0.3) / 100,
              1e-12);
}

TEST(PureProtocol, EstimateInvertsExpectedSupport) {
  const PureProtocol grr{.p = 0.6, .q = 0.1};
  // Expected support for f = (0.5, 0.25, 0.25) with n = 1000.
  const std::vector<int64_t> support = {350, 225, 225};
  const HistogramEstimate est = grr.Estimate(support, 1000, 1.0);
  EXPECT_NEAR(est.frequencies[0], 0.5, 1e-12);
  EXPECT_NEAR(est.frequencies[1], 0.25, 1e-12);
  EXPECT_NEAR(est.variances[0], grr.Variance(0.5, 1000), 1e-15);
  EXPECT_EQ(est.num_reports, 1000);
}

TEST(PureProtocol, NoReportsGivesInfiniteVariance) {
  const PureProtocol grr{.p = 0.6, .q = 0.1};
  const HistogramEstimate est = grr.Estimate(std::vector<int64_t>{0, 0}, 0, 1);
  EXPECT_TRUE(std::isinf(est.variances[0]));
}

}  // namespace
}  // namespace ldp
