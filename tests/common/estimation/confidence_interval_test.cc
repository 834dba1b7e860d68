#include "common/estimation/confidence_interval.h"

#include <cmath>

#include "common/base/coin.h"
#include "gtest/gtest.h"
#include "tests/testing/statistics.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

TEST(NormalQuantile, MatchesKnownValues) {
  EXPECT_NEAR(NormalQuantile(0.975), 1.959963984540054, 1e-12);
  EXPECT_NEAR(NormalQuantile(0.5), 0.0, 1e-15);
  EXPECT_NEAR(NormalQuantile(0.995), 2.5758293035489004, 1e-12);
  EXPECT_NEAR(NormalQuantile(1 - 1e-6), 4.753424308822899, 1e-9);
  EXPECT_NEAR(NormalQuantile(0.01), -2.3263478740408408, 1e-12);
  EXPECT_TRUE(std::isnan(NormalQuantile(0)));
  EXPECT_TRUE(std::isnan(NormalQuantile(1.5)));
}

TEST(ValidateConfidence, RejectsOutOfRange) {
  EXPECT_OK(ValidateConfidence(0.95));
  EXPECT_THAT(ValidateConfidence(1.0),
              testing::StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(ValidateConfidence(std::nan("")),
              testing::StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(NormalInterval, IsSymmetricWithTheRightWidth) {
  const Interval i = NormalInterval(10, 2, 0.95);
  EXPECT_NEAR(i.lower, 10 - 2 * 1.959963984540054, 1e-9);
  EXPECT_NEAR(i.upper, 10 + 2 * 1.959963984540054, 1e-9);
}

TEST(HoeffdingInterval, HalfWidthFormula) {
  const Interval i = HoeffdingInterval(0.5, 1.0, 1000, 0.95);
  EXPECT_NEAR(i.upper - 0.5, std::sqrt(std::log(2 / 0.05) / 2000), 1e-12);
}

// Coverage: for fair-coin means of 400 flips, each interval kind must cover
// the truth at least at its nominal rate. Over 4000 seeded repetitions the
// count of misses of a 95% interval is Binomial(4000, ≤0.05): mean ≤ 200,
// sd ≈ 13.8, so 200 + 5 sd = 269 bounds it.
TEST(Intervals, CoverAtLeastTheNominalRate) {
  testing::SeededGenerator gen(2024);
  constexpr int kReps = 4000, kFlips = 400;
  int normal_miss = 0, hoeffding_miss = 0, bernstein_miss = 0;
  for (int r = 0; r < kReps; ++r) {
    int heads = 0;
    for (int i = 0; i < kFlips; ++i)
      heads += FlipCoin(CoinProbability::Half(), gen);
    const double mean = heads / double(kFlips);
    const double var = mean * (1 - mean) * kFlips / (kFlips - 1);
    normal_miss +=
        !NormalInterval(mean, std::sqrt(var / kFlips), 0.95).Contains(0.5);
    hoeffding_miss += !HoeffdingInterval(mean, 1, kFlips, 0.95).Contains(0.5);
    bernstein_miss +=
        !BernsteinInterval(mean, var, 1, kFlips, 0.95).Contains(0.5);
  }
  EXPECT_LE(normal_miss, 269);
  EXPECT_LE(hoeffding_miss, 269);
  EXPECT_LE(bernstein_miss, 269);
  // The normal interval is not wildly conservative: misses ≥ 200 − 5 sd
  // (lattice effects of a Binomial(400) mean allow some slack below 5%).
  EXPECT_GE(normal_miss, 120);
}

}  // namespace
}  // namespace ldp
