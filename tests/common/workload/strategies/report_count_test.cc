// MomentsOfReportCount against a brute-force sum over every count.
#include "common/workload/strategies/report_count.h"

#include <cmath>
#include <cstdint>

#include "gtest/gtest.h"

namespace ldp {
namespace {

// In long double: lgamma(10^6) ≈ 1.3·10^7 leaves a double only ~10⁻⁹ of
// relative precision in each probability.
ReportCountMoments BruteForce(int64_t n, double pi) {
  long double empty = 0, inverse_mean = 0;
  const long double trials = n, p = pi;
  for (int64_t k = 0; k <= n; ++k) {
    const long double kk = k;
    const long double pmf =
        std::exp(std::lgamma(trials + 1) - std::lgamma(kk + 1) -
                 std::lgamma(trials - kk + 1) + kk * std::log(p) +
                 (trials - kk) * std::log1p(-p));
    if (k == 0) {
      empty = pmf;
    } else {
      inverse_mean += pmf / kk;
    }
  }
  return {.inverse_mean = static_cast<double>(inverse_mean),
          .empty = static_cast<double>(empty)};
}

TEST(ReportCount, MatchesTheBinomialSum) {
  struct Case {
    int64_t n;
    double pi;
  };
  for (const Case& c :
       {Case{1, 0.5}, Case{10, 0.3}, Case{50, 1e-3}, Case{1000, 1.0 / 192},
        Case{5000, 0.5}, Case{10'000, 1.0 / 1024}, Case{409'000, 0.01},
        Case{409'600, 0.01}, Case{1'000'000, 0.125}}) {
    SCOPED_TRACE(::testing::Message() << "n=" << c.n << " pi=" << c.pi);
    const ReportCountMoments got = MomentsOfReportCount(c.n, c.pi);
    const ReportCountMoments want = BruteForce(c.n, c.pi);
    EXPECT_NEAR(got.inverse_mean, want.inverse_mean, 1e-9 * want.inverse_mean);
    EXPECT_NEAR(got.empty, want.empty, 1e-12 + 1e-9 * want.empty);
  }
}

TEST(ReportCount, EveryAgentInTheGroup) {
  const ReportCountMoments m = MomentsOfReportCount(40, 1.0);
  EXPECT_DOUBLE_EQ(m.inverse_mean, 1.0 / 40);
  EXPECT_EQ(m.empty, 0);
}

// E[1/N; N > 0] exceeds 1/(n·π) by about (1 − π)/(n·π)² when n·π is large
// (Jensen), and falls below it when most groups are empty.
TEST(ReportCount, ApproachesTheLimitFromAbove) {
  const double pi = 1.0 / 1024;
  const ReportCountMoments m = MomentsOfReportCount(10'000'000, pi);
  const double mu = 10'000'000 * pi;
  EXPECT_GT(m.inverse_mean * mu, 1);
  EXPECT_NEAR(m.inverse_mean * mu - 1, (1 - pi) / mu, 0.01 * (1 - pi) / mu);
  EXPECT_LT(MomentsOfReportCount(100, pi).inverse_mean * 100 * pi, 1);
}

}  // namespace
}  // namespace ldp
