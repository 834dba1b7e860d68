#include "common/base/coin.h"

#include <cmath>
#include <vector>

#include "gtest/gtest.h"
#include "tests/testing/statistics.h"

namespace ldp {
namespace {

using testing::ChiSquare;
using testing::SeededGenerator;

TEST(CoinProbability, RoundsInTheStatedDirection) {
  const double p = 1.0 / (std::exp(1.0) + 1.0);
  EXPECT_LE(CoinProbability::RoundDown(p).value(), p);
  EXPECT_GE(CoinProbability::RoundUp(p).value(), p);
  EXPECT_LE(CoinProbability::RoundUp(p).numerator() -
                CoinProbability::RoundDown(p).numerator(),
            1u);
  EXPECT_EQ(CoinProbability::RoundDown(std::nan("")).numerator(), 0u);
  EXPECT_EQ(CoinProbability::RoundUp(2.0).numerator(),
            CoinProbability::kDenominator);
  EXPECT_EQ(CoinProbability::Half().value(), 0.5);
  EXPECT_EQ(CoinProbability::Half().Complement(), CoinProbability::Half());
}

TEST(FlipCoin, ExtremesAreDeterministic) {
  SeededGenerator gen(1);
  for (int i = 0; i < 1000; ++i) {
    EXPECT_FALSE(FlipCoin(CoinProbability::FromNumerator(0), gen));
    EXPECT_TRUE(FlipCoin(
        CoinProbability::FromNumerator(CoinProbability::kDenominator), gen));
  }
  EXPECT_EQ(FlipCoins64(CoinProbability::FromNumerator(0), gen), 0u);
  EXPECT_EQ(
      FlipCoins64(CoinProbability::FromNumerator(CoinProbability::kDenominator),
                  gen),
      ~uint64_t{0});
}

TEST(FlipCoin, FrequencyMatchesProbability) {
  SeededGenerator gen(7);
  const CoinProbability p = CoinProbability::RoundDown(0.3);
  constexpr int kFlips = 1'000'000;
  int heads = 0;
  for (int i = 0; i < kFlips; ++i) heads += FlipCoin(p, gen);
  const auto result = ChiSquare({double(heads), double(kFlips - heads)},
                                {kFlips * p.value(), kFlips * (1 - p.value())});
  EXPECT_TRUE(result.Passes()) << result.statistic;
}

// Each of the 64 lanes must be an independent coin of the same probability:
// per-lane counts and adjacent-lane pairs both follow the stated law.
TEST(FlipCoins64, LanesAreIndependentCoinsOfTheStatedProbability) {
  SeededGenerator gen(11);
  const CoinProbability p = CoinProbability::RoundUp(1.0 / (std::exp(1.0) + 1));
  constexpr int kWords = 200'000;
  std::vector<double> lane_heads(64, 0);
  std::vector<double> pair_counts(4, 0);  // lanes 5 and 6 jointly
  for (int i = 0; i < kWords; ++i) {
    const uint64_t w = FlipCoins64(p, gen);
    for (int lane = 0; lane < 64; ++lane) lane_heads[lane] += (w >> lane) & 1;
    pair_counts[((w >> 5) & 1) * 2 + ((w >> 6) & 1)] += 1;
  }
  const double q = p.value();
  for (int lane = 0; lane < 64; ++lane) {
    const auto r = ChiSquare({lane_heads[lane], kWords - lane_heads[lane]},
                             {kWords * q, kWords * (1 - q)});
    EXPECT_TRUE(r.Passes()) << "lane " << lane << " chi2 " << r.statistic;
  }
  const auto pairs =
      ChiSquare(pair_counts, {kWords * (1 - q) * (1 - q), kWords * (1 - q) * q,
                              kWords * q * (1 - q), kWords * q * q});
  EXPECT_TRUE(pairs.Passes()) << pairs.statistic;
}

TEST(UniformBelow, HasNoModuloBias) {
  // n = 3·2^62: a naive `% n` puts half the mass below 2^62 instead of 1/3.
  SeededGenerator gen(3);
  const uint64_t n = 3 * (uint64_t{1} << 62);
  constexpr int kDraws = 300'000;
  int below = 0;
  for (int i = 0; i < kDraws; ++i) {
    const uint64_t x = UniformBelow(n, gen);
    ASSERT_LT(x, n);
    below += x < (uint64_t{1} << 62);
  }
  const auto r = ChiSquare({double(below), double(kDraws - below)},
                           {kDraws / 3.0, kDraws * 2 / 3.0});
  EXPECT_TRUE(r.Passes()) << r.statistic;
}

TEST(UniformBelow, SmallRangesAreUniform) {
  SeededGenerator gen(5);
  constexpr int kDraws = 700'000;
  std::vector<double> counts(7, 0);
  for (int i = 0; i < kDraws; ++i) counts[UniformBelow(7, gen)] += 1;
  const auto r = ChiSquare(counts, std::vector<double>(7, kDraws / 7.0));
  EXPECT_TRUE(r.Passes()) << r.statistic;
}

}  // namespace
}  // namespace ldp
