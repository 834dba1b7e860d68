// The planner's inverse: the ε0 it returns meets the target, ε0 + the
// tolerance does not, and shuffling is never worse than no shuffling.
#include "common/amplification/epsilon0_planner.h"

#include <cmath>
#include <cstdint>
#include <iostream>

#include "common/amplification/closed_form.h"
#include "common/amplification/numerical_bound.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using ::ldp::testing::StatusIs;
using ::testing::HasSubstr;

double Shuffled(double epsilon0, int64_t n, double delta) {
  return ShuffledEpsilon(epsilon0, n, delta).value_or(NAN);
}

void ExpectTheGuarantees(double target, int64_t n, double delta,
                         const Epsilon0Plan& plan) {
  EXPECT_GE(plan.epsilon0, target);
  EXPECT_LE(plan.shuffled_epsilon, target);
  EXPECT_EQ(plan.shuffled_epsilon, Shuffled(plan.epsilon0, n, delta));
  EXPECT_GT(Shuffled(plan.epsilon0 + kEpsilon0Tolerance, n, delta), target)
      << "target " << target << " n " << n << " delta " << delta;
  EXPECT_EQ(plan.amplified, plan.epsilon0 > target);
}

// The OLH planning note: at n = 10^6 and δ = 1e-8 a central ε = 0.5 allows
// ε0 ≈ 5.8 by the closed form alone. ShuffledEpsilon is never above the
// closed form, so every ε0 the closed form admits is admitted: the answer
// is at least the closed form's own inverse (found here by bisection,
// keeping the end that meets the target).
TEST(LargestEpsilon0ForTarget, AllowsAtLeastWhatTheClosedFormDoes) {
  const int64_t n = 1'000'000;
  const double delta = 1e-8;
  absl::StatusOr<Epsilon0Plan> plan = LargestEpsilon0ForTarget(0.5, n, delta);
  ASSERT_TRUE(plan.ok()) << plan.status();
  double low = 0.5;
  double high = 50;
  while (high - low > 1e-9) {
    const double middle = (low + high) / 2;
    (ClosedFormShuffledEpsilon(middle, n, delta).value_or(NAN) <= 0.5 ? low
                                                                      : high) =
        middle;
  }
  std::cout << "target 0.5 at n=1e6, delta=1e-8: eps0 = " << plan->epsilon0
            << " (shuffled " << plan->shuffled_epsilon
            << "); closed form alone: " << low << "\n";
  EXPECT_NEAR(low, 5.8, 0.05);  // the project's note
  EXPECT_GE(plan->epsilon0, low - kEpsilon0Tolerance);
  EXPECT_TRUE(plan->amplified);
  ExpectTheGuarantees(0.5, n, delta, *plan);
}

TEST(LargestEpsilon0ForTarget, MeetsTheTargetAndNoMore) {
  struct Case {
    double target;
    int64_t n;
    double delta;
  };
  for (const Case& c : {Case{1.0, 100'000, 1e-6}, Case{0.1, 10'000'000, 1e-8},
                        Case{2.0, 10'000, 1e-6}}) {
    absl::StatusOr<Epsilon0Plan> plan =
        LargestEpsilon0ForTarget(c.target, c.n, c.delta);
    ASSERT_TRUE(plan.ok()) << plan.status();
    ExpectTheGuarantees(c.target, c.n, c.delta, *plan);
  }
}

// With n = 2 the one other report is a clone only with probability e^−ε0,
// so Pr[C = 0] = 1 − e^−ε0 and δ(ε) ≥ (1 − e^−ε0)·(e^ε0 − e^ε)/(1 + e^ε0).
// At ε0 = target + tolerance and ε = target that is far above δ: shuffling
// buys nothing, and the answer is the target itself.
TEST(LargestEpsilon0ForTarget, FallsBackToTheTargetWithoutAmplification) {
  const double target = 0.5;
  const double delta = 1e-8;
  const double epsilon0 = target + kEpsilon0Tolerance;
  const double floor_on_delta = -std::expm1(-epsilon0) *
                                (std::exp(epsilon0) - std::exp(target)) /
                                (1 + std::exp(epsilon0));
  ASSERT_GT(floor_on_delta, delta);
  absl::StatusOr<Epsilon0Plan> plan =
      LargestEpsilon0ForTarget(target, 2, delta);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->epsilon0, target);
  EXPECT_FALSE(plan->amplified);
  ExpectTheGuarantees(target, 2, delta, *plan);
}

TEST(LargestEpsilon0ForTarget, RejectsBadTargets) {
  const auto kInvalid = absl::StatusCode::kInvalidArgument;
  for (double target : {0.0, -0.5, double{NAN}, 60.0}) {
    EXPECT_THAT(LargestEpsilon0ForTarget(target, 1000, 1e-6),
                StatusIs(kInvalid, HasSubstr("target_epsilon must be finite")));
  }
  EXPECT_THAT(LargestEpsilon0ForTarget(1, 0, 1e-6),
              StatusIs(kInvalid, HasSubstr("n (the reports")));
  EXPECT_THAT(LargestEpsilon0ForTarget(1, 1000, 2),
              StatusIs(kInvalid, HasSubstr("delta must be in (0, 1)")));
}

}  // namespace
}  // namespace ldp
