// The closed form against the reference table, the numerical bound against
// the reference value and the closed form, the regimes without
// amplification, monotonicity, and the input checks.
#include <cmath>
#include <cstdint>
#include <iostream>
#include <vector>

#include "common/amplification/closed_form.h"
#include "common/amplification/numerical_bound.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using ::ldp::testing::StatusIs;
using ::testing::HasSubstr;

double Closed(double epsilon0, int64_t n, double delta) {
  absl::StatusOr<double> epsilon =
      ClosedFormShuffledEpsilon(epsilon0, n, delta);
  EXPECT_TRUE(epsilon.ok()) << epsilon.status();
  return epsilon.value_or(NAN);
}

double Numerical(double epsilon0, int64_t n, double delta) {
  absl::StatusOr<double> epsilon = NumericalShuffledEpsilon(epsilon0, n, delta);
  EXPECT_TRUE(epsilon.ok()) << epsilon.status();
  return epsilon.value_or(NAN);
}

struct ReferenceRow {
  int64_t n;
  double epsilon0;
  double delta;
  double epsilon;  // to 4 decimals
};

// /work/shared/reference/shuffle-model.md, "Reference values".
TEST(ClosedFormShuffledEpsilon, ReproducesTheReferenceTable) {
  const ReferenceRow rows[] = {
      {100'000, 4, 1e-6, 0.5378},    {1'000'000, 4, 1e-8, 0.2271},
      {10'000'000, 4, 1e-8, 0.0773}, {1'000'000, 2, 1e-8, 0.0719},
      {1'000'000, 8, 1e-8, 1.0875},  {100'000, 1, 1e-6, 0.0753},
  };
  for (const ReferenceRow& row : rows) {
    ASSERT_TRUE(ClosedFormApplies(row.epsilon0, row.n, row.delta));
    // Four decimals: within half a unit of the fourth.
    EXPECT_NEAR(Closed(row.epsilon0, row.n, row.delta), row.epsilon, 5e-5)
        << "n=" << row.n << " eps0=" << row.epsilon0;
  }
}

// Outside ε0 < ln(n/(16·ln(4/δ))) the theorem says nothing: ε = ε0.
TEST(ClosedFormShuffledEpsilon, ReturnsEpsilon0WithoutAmplification) {
  // ln(1000/(16·ln(4e6))) = ln(4.12) = 1.42.
  EXPECT_FALSE(ClosedFormApplies(2, 1000, 1e-6));
  EXPECT_EQ(Closed(2, 1000, 1e-6), 2);
  EXPECT_TRUE(ClosedFormApplies(1, 1000, 1e-6));
  EXPECT_LT(Closed(1, 1000, 1e-6), 1);
  EXPECT_EQ(Closed(0.5, 1, 0.5), 0.5);
}

// The reference gives 0.1675 to 0.1728 from the public implementation (its
// lower and upper modes with coarse blocks). This bound takes both block
// ends, with blocks of about sd(C)/32, so it may sit anywhere in that range;
// the only slack beyond it is the search's relative tolerance.
TEST(NumericalShuffledEpsilon, MatchesThePublicImplementation) {
  const double epsilon = Numerical(4, 100'000, 1e-6);
  std::cout << "numerical epsilon at n=1e5, eps0=4, delta=1e-6: " << epsilon
            << "\n";
  EXPECT_GE(epsilon, 0.1675);
  EXPECT_LE(epsilon, 0.1728 * (1 + NumericalBoundOptions{}.relative_tolerance));
}

// With n = 1 there are no clones: C = 0, δ(ε) = D_0(ε) = (e^ε0 − e^ε)/(1 +
// e^ε0), so the exact answer is ln(e^ε0 − δ·(1 + e^ε0)), just below ε0. The
// bound may exceed it by the search's tolerance (1e-6 of ε ≤ ε0) plus what
// the tail allowance (1e-6·δ, charged in full) and the floor cost: δ' =
// 1e-12 more divergence, ≤ δ'·(1 + e^ε0)/e^ε < 1e-11 more ε.
TEST(NumericalShuffledEpsilon, AloneThereIsNothingToHideAmong) {
  for (double epsilon0 : {0.5, 2.0, 6.0}) {
    const double exact =
        std::log(std::exp(epsilon0) - 1e-6 * (1 + std::exp(epsilon0)));
    const double epsilon = Numerical(epsilon0, 1, 1e-6);
    EXPECT_GE(epsilon, exact);
    EXPECT_LE(epsilon, epsilon0);
    EXPECT_LE(epsilon - exact, 1e-6 * epsilon0 + 1e-11);
  }
}

// Both are upper bounds on the same ε; the numerical one is the tighter by
// construction (FMT derive the closed form from the same divergence), so
// it must never exceed the closed form, and both must grow with ε0 and
// shrink with n.
TEST(NumericalShuffledEpsilon, NeverExceedsTheClosedFormAndIsMonotone) {
  const std::vector<int64_t> ns = {1'000, 10'000, 100'000, 1'000'000,
                                   10'000'000};
  const std::vector<double> epsilon0s = {0.5, 1, 2, 4, 6};
  for (double delta : {1e-6, 1e-8}) {
    std::vector<std::vector<double>> table(ns.size());
    for (size_t i = 0; i < ns.size(); ++i) {
      for (size_t j = 0; j < epsilon0s.size(); ++j) {
        const double numerical = Numerical(epsilon0s[j], ns[i], delta);
        const double closed = Closed(epsilon0s[j], ns[i], delta);
        EXPECT_LE(numerical, closed)
            << "n=" << ns[i] << " eps0=" << epsilon0s[j] << " delta=" << delta;
        EXPECT_GT(numerical, 0);
        table[i].push_back(numerical);
        if (j > 0) EXPECT_LT(table[i][j - 1], numerical);
        if (i > 0) EXPECT_LE(numerical, table[i - 1][j]);
      }
    }
  }
}

TEST(ShuffledEpsilon, IsTheSmallerBound) {
  const double best = ShuffledEpsilon(4, 1'000'000, 1e-8).value_or(NAN);
  EXPECT_EQ(best, std::min(Numerical(4, 1'000'000, 1e-8),
                           Closed(4, 1'000'000, 1e-8)));
}

TEST(NumericalShuffledEpsilon, CoarserBlocksNeverGiveASmallerEpsilon) {
  // At this n the adaptive step is 1 (sd(C) = 42), charging each c its own
  // D_c. A coarser block charges each of its c the D at its lower end, at
  // least D_c, so its bound is no smaller at any ε and its threshold no
  // lower; each result sits within the relative tolerance above its own.
  const double fine = Numerical(4, 100'000, 1e-6);
  for (int64_t step : {4, 16, 64}) {
    const double coarse =
        NumericalShuffledEpsilon(4, 100'000, 1e-6, {.step = step})
            .value_or(NAN);
    EXPECT_GE(coarse, fine * (1 - 1e-6)) << "step " << step;
  }
}

TEST(ShuffleAmplification, RejectsBadInputsWithActionableMessages) {
  const auto kInvalid = absl::StatusCode::kInvalidArgument;
  for (double epsilon0 : {0.0, -1.0, double{NAN}, double{INFINITY}, 51.0}) {
    EXPECT_THAT(ClosedFormShuffledEpsilon(epsilon0, 1000, 1e-6),
                StatusIs(kInvalid, HasSubstr("epsilon0 must be finite and in "
                                             "(0, 50]")));
    EXPECT_THAT(NumericalShuffledEpsilon(epsilon0, 1000, 1e-6),
                StatusIs(kInvalid, HasSubstr("epsilon0")));
  }
  for (int64_t n : {int64_t{0}, int64_t{-5}, int64_t{20'000'000'000}}) {
    EXPECT_THAT(ClosedFormShuffledEpsilon(1, n, 1e-6),
                StatusIs(kInvalid, HasSubstr("n (the reports shuffled")));
    EXPECT_THAT(ShuffledEpsilon(1, n, 1e-6), StatusIs(kInvalid));
  }
  for (double delta : {0.0, 1.0, -1e-6, double{NAN}}) {
    EXPECT_THAT(ClosedFormShuffledEpsilon(1, 1000, delta),
                StatusIs(kInvalid, HasSubstr("delta must be in (0, 1)")));
    EXPECT_THAT(NumericalShuffledEpsilon(1, 1000, delta), StatusIs(kInvalid));
  }
  EXPECT_THAT(NumericalShuffledEpsilon(1, 1000, 1e-6, {.step = -1}),
              StatusIs(kInvalid, HasSubstr("step must be >= 0")));
  EXPECT_THAT(
      NumericalShuffledEpsilon(1, 1000, 1e-6, {.relative_tolerance = 0}),
      StatusIs(kInvalid, HasSubstr("relative_tolerance")));
  EXPECT_THAT(ShuffledDeltaBound(1, 1000, -0.1, 1e-9),
              StatusIs(kInvalid, HasSubstr("epsilon must be finite")));
  EXPECT_THAT(ShuffledDeltaBound(1, 1000, 0.1, 0),
              StatusIs(kInvalid, HasSubstr("outside_mass")));
}

}  // namespace
}  // namespace ldp
