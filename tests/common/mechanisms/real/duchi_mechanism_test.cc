#include "common/mechanisms/real/duchi_mechanism.h"

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
#include "tests/testing/test_values.h"

namespace ldp {
namespace {

using ::ldp::testing::kInf;

using testing::SeededGenerator;

constexpr ScalarReport kMinus{.level = DuchiMechanism::kMinus};
constexpr ScalarReport kPlus{.level = DuchiMechanism::kPlus};

std::unique_ptr<DuchiMechanism> MakeDuchi(const DuchiOptions& options) {
  auto mechanism = DuchiMechanism::Create(options);
  EXPECT_OK(mechanism);
  return std::move(mechanism).value();
}

// 1001 evenly spaced inputs over [−b, b], plus odd ones.
std::vector<double> Inputs(double bound) {
  std::vector<double> inputs;
  for (int i = 0; i <= 1000; ++i) inputs.push_back(bound * (i / 500.0 - 1));
  for (double odd : {std::nan(""), kInf, -1e300}) inputs.push_back(odd);
  return inputs;
}

TEST(DuchiMechanism, CreateRejectsBadOptions) {
  testing::ExpectCreateRejectsBadEpsilonAndBound<DuchiMechanism>();
  // Even at the largest ε the coin keeps A ≥ 1, so ε stays finite.
  auto extreme = MakeDuchi({.epsilon = 50});
  EXPECT_GE(extreme->plus_at_lower_bound().numerator(), 1u);
  EXPECT_LE(extreme->epsilon(), 50);
}

TEST(DuchiMechanism, ImplementedEpsilonIsJustBelowTheRequestedOne) {
  for (double epsilon : {0.01, 0.1, 0.5, 1.0, 2.0, 4.0, 8.0}) {
    auto m = MakeDuchi({.epsilon = epsilon});
    EXPECT_LE(m->epsilon(), epsilon);
    EXPECT_LE(epsilon - m->epsilon(), 1e-6) << epsilon;
    // C' is the paper's (e^ε + 1)/(e^ε − 1) at the implemented ε.
    const double e = std::exp(m->epsilon());
    EXPECT_NEAR(m->output_magnitude(), (e + 1) / (e - 1),
                1e-9 * (e + 1) / (e - 1));
  }
}

// Acceptance (1): exact pmf over all inputs and both outputs.
TEST(DuchiMechanism, LikelihoodRatioIsAtMostEToTheEpsilon) {
  for (double epsilon : {0.5, 1.0, 2.0, 4.0}) {
    auto m = MakeDuchi({.epsilon = epsilon, .bound = 2.0});
    const std::vector<double> inputs = Inputs(2.0);
    testing::ExpectExactEpsilonAndNormalized(*m, inputs, {kMinus, kPlus},
                                             1e-15);
    for (double x : inputs) EXPECT_EQ(m->Probability(x, {.level = 0}), 0) << x;
  }
}

// Acceptance (2): samples follow Probability().
TEST(DuchiMechanism, SamplesFollowTheExactDistribution) {
  constexpr int kDraws = 200'000;
  auto m = MakeDuchi({.epsilon = 1.0, .bound = 1.0});
  SeededGenerator gen(13);
  for (double x : {0.3, -1.0, 0.999}) {
    testing::ExpectRandomizeFollowsProbability(*m, x, {kMinus, kPlus}, kDraws,
                                               gen);
  }
}

// Decode is unbiased and Variance() is its variance, exactly.
TEST(DuchiMechanism, ExactMomentsMatchDecodeAndVariance) {
  for (double epsilon : {0.5, 1.0, 4.0}) {
    auto m = MakeDuchi({.epsilon = epsilon, .bound = 3.0});
    for (int i = 0; i <= 1000; ++i) {
      const double x = 3.0 * (i / 500.0 - 1);
      double mean = 0, second = 0;
      for (const ScalarReport& w : {kMinus, kPlus}) {
        mean += m->Probability(x, w) * m->Decode(w);
        second += m->Probability(x, w) * m->Decode(w) * m->Decode(w);
      }
      // Unbiased up to the rounding coin's 2^-32 resolution.
      EXPECT_NEAR(mean, x, 1e-9) << epsilon << " " << x;
      EXPECT_NEAR(second - mean * mean, m->Variance(x), 1e-9 * second);
      EXPECT_LE(m->Variance(x), m->WorstCaseVariance());
    }
    EXPECT_EQ(m->Variance(0), m->WorstCaseVariance());
  }
}

// Acceptance (3). A two-point output has excess kurtosis up to ~10 at
// these inputs, so the sample variance's relative SD is at most
// √(12/R) ≈ 0.8% at R = 200,000, and 10% is > 12 SD.
TEST(DuchiMechanism, EmpiricalMeanAndVarianceMatchTheClosedForm) {
  constexpr int kDraws = 200'000;
  SeededGenerator gen(31);
  for (double epsilon : {0.5, 1.0, 2.0, 4.0}) {
    auto m = MakeDuchi({.epsilon = epsilon, .bound = 2.0});
    for (double x : {-1.0, 0.2468, 1.8}) {
      testing::ExpectEmpiricalMomentsMatchClosedForm(*m, x, kDraws, gen);
    }
  }
}

TEST(DuchiMechanism, ValidateAcceptsOnlyTheTwoSigns) {
  auto m = MakeDuchi({});
  EXPECT_OK(m->Validate(kMinus));
  EXPECT_OK(m->Validate(kPlus));
  testing::ExpectLevelsRejected(*m, {int64_t{0}, int64_t{2}, int64_t{-2},
                                     std::numeric_limits<int64_t>::max(),
                                     std::numeric_limits<int64_t>::min()});
  testing::ExpectDecodeBoundAttained(*m, {kMinus, kPlus});
}

// Invariant 8: odd inputs take the same code path as their clamped value.
TEST(DuchiMechanism, OddInputsAreClampedNotRejected) {
  auto m = MakeDuchi({.epsilon = 1.0, .bound = 2.0});
  testing::ExpectOddInputsClamped(*m, {kMinus, kPlus});
}

}  // namespace
}  // namespace ldp
