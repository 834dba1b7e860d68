#include "common/mechanisms/real/real_input.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "gtest/gtest.h"
#include "tests/testing/statistics.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/test_values.h"

namespace ldp {
namespace {

using ::ldp::testing::kInf;

using testing::ChiSquare;
using testing::SeededGenerator;
using testing::StatusIs;

TEST(ValidateEpsilonAndBound, AcceptsOnlyUsableParameters) {
  EXPECT_OK(ValidateEpsilonAndBound(1.0, 1.0));
  EXPECT_OK(ValidateEpsilonAndBound(kMaxRealMechanismEpsilon, 1e-300));
  for (double epsilon : {0.0, -1.0, std::nan(""), kInf, 50.5}) {
    EXPECT_THAT(ValidateEpsilonAndBound(epsilon, 1.0),
                StatusIs(absl::StatusCode::kInvalidArgument))
        << epsilon;
  }
  for (double bound : {0.0, -1.0, std::nan(""), kInf}) {
    EXPECT_THAT(ValidateEpsilonAndBound(1.0, bound),
                StatusIs(absl::StatusCode::kInvalidArgument))
        << bound;
  }
  EXPECT_NE(ValidateEpsilonAndBound(-1, 1).message().find("got -1"),
            std::string::npos);
}

TEST(ClampToBound, ClampsAndMapsNanToZero) {
  EXPECT_EQ(ClampToBound(0.25, 1.0), 0.25);
  EXPECT_EQ(ClampToBound(std::nan(""), 3.0), 0.0);
  EXPECT_EQ(ClampToBound(kInf, 3.0), 3.0);
  EXPECT_EQ(ClampToBound(-kInf, 3.0), -3.0);
  EXPECT_EQ(ClampToBound(-7.0, 3.0), -3.0);
}

TEST(RandomizedRounding, SplitsThePositionBetweenNeighbours) {
  const RandomizedRounding r = RandomizedRounding::Of(2.3, 5);
  EXPECT_EQ(r.lower(), 2);
  EXPECT_NEAR(r.up().value(), 0.3, std::ldexp(1.0, -33));
  EXPECT_EQ(r.Weight(0) + r.Weight(1), 1.0);
  EXPECT_NEAR(r.Mean(), 2.3, std::ldexp(1.0, -33));
  for (double integer : {0.0, 3.0, 5.0}) {
    const RandomizedRounding exact = RandomizedRounding::Of(integer, 5);
    EXPECT_EQ(exact.lower(), static_cast<int64_t>(integer));
    EXPECT_EQ(exact.up().numerator(), 0u);
  }
}

TEST(RandomizedRounding, ClampsOutOfRangePositions) {
  for (double low : {-1.0, -kInf, std::nan("")}) {
    const RandomizedRounding r = RandomizedRounding::Of(low, 4);
    EXPECT_EQ(r.lower(), 0) << low;
    EXPECT_EQ(r.up().numerator(), 0u) << low;
  }
  const RandomizedRounding high = RandomizedRounding::Of(9.5, 4);
  EXPECT_EQ(high.lower(), 4);
  EXPECT_EQ(high.up().numerator(), 0u);
}

// A fraction within 2^-33 of 1 rounds to the next point outright, so the
// result never exceeds n even just below it.
TEST(RandomizedRounding, FractionsNearOneMoveToTheNextPoint) {
  const RandomizedRounding r =
      RandomizedRounding::Of(std::nextafter(4.0, 0.0), 4);
  EXPECT_EQ(r.lower(), 4);
  EXPECT_EQ(r.up().numerator(), 0u);
  const RandomizedRounding mid =
      RandomizedRounding::Of(std::nextafter(2.0, 0.0), 4);
  EXPECT_EQ(mid.lower(), 2);
  EXPECT_EQ(mid.up().numerator(), 0u);
}

TEST(RandomizedRounding, SamplesFollowTheWeights) {
  SeededGenerator gen(8);
  const RandomizedRounding r = RandomizedRounding::Of(6.3, 10);
  constexpr int kDraws = 200'000;
  double up = 0;
  for (int i = 0; i < kDraws; ++i) {
    const int64_t s = r.Sample(gen);
    ASSERT_TRUE(s == 6 || s == 7) << s;
    up += s == 7;
  }
  const auto result = ChiSquare({kDraws - up, up},
                                {kDraws * r.Weight(0), kDraws * r.Weight(1)});
  EXPECT_TRUE(result.Passes()) << result.statistic;
}

}  // namespace
}  // namespace ldp
