// The fast pieces of the numerical bound against the brute force, which
// shares none of their shortcuts: the conditional divergence, the blocked
// δ(ε) (sandwiched between the exact sum and a shifted exact sum), and the
// resulting ε for small n.
#include "common/amplification/brute_force.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>

#include "common/amplification/clone_count.h"
#include "common/amplification/clone_divergence.h"
#include "common/amplification/numerical_bound.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using ::ldp::testing::StatusIs;
using ::testing::HasSubstr;

// The brute force's own rounding: every outcome's P − e^ε·Q is off by a few
// ulps of P + e^ε·Q (whose sum over outcomes is 1 + e^ε), and Pascal's rows
// and the Bin(n − 1, q) pmf by (c + 4) ulps relative.
double BruteError(int64_t c, double epsilon) {
  return static_cast<double>(c + 4) * DBL_EPSILON * (1 + std::exp(epsilon));
}

double Exact(double epsilon0, int64_t clones, double epsilon) {
  return ExactCloneDivergence(epsilon0, clones, epsilon).value_or(NAN);
}

// Pr[Bin(m, e^−ε0) = c], independently of the library.
double CloneProbability(double epsilon0, int64_t m, int64_t c) {
  const double q = std::exp(-epsilon0);
  return std::exp(std::lgamma(m + 1.0) - std::lgamma(c + 1.0) -
                  std::lgamma(m - c + 1.0) + c * std::log(q) +
                  (m - c) * std::log1p(-q));
}

// Σ_c Pr[C = c]·D_{max(0, c − step + 1)}(ε): what charging each c the D of a
// point up to step − 1 below it costs. Blocks of `step` charge each c the D
// at its block's lower end (D_c falls with c), which is no lower than that.
double ShiftedExactDelta(double epsilon0, int64_t n, double epsilon,
                         int64_t step) {
  double delta = 0;
  for (int64_t c = 0; c < n; ++c) {
    delta += CloneProbability(epsilon0, n - 1, c) *
             Exact(epsilon0, std::max<int64_t>(0, c - step + 1), epsilon);
  }
  return delta;
}

TEST(CloneDivergence, BoundsTheBruteForceTightly) {
  for (double epsilon0 : {0.5, 1.0, 2.0, 4.0}) {
    for (double share : {0.0, 0.01, 0.1, 0.5, 0.9, 1.0, 1.5}) {
      const double epsilon = share * epsilon0;
      const CloneDivergence divergence(epsilon0, epsilon);
      for (int64_t c : {0, 1, 2, 3, 10, 49, 200, 999}) {
        const double exact = Exact(epsilon0, c, epsilon);
        const double fast = divergence.UpperBound(c);
        const double error = BruteError(c, epsilon);
        EXPECT_GE(fast, exact - error)
            << epsilon0 << " " << epsilon << " " << c;
        // clone_divergence.h: within 1e-10 relative for c ≤ 1000.
        EXPECT_LE(fast, exact * (1 + 1e-10) + kCloneDivergenceFloor + error)
            << epsilon0 << " " << epsilon << " " << c;
      }
    }
  }
}

TEST(CloneDivergence, FallsAsClonesAreAdded) {
  // (P_{c+1}, Q_{c+1}) post-processes (P_c, Q_c): one more fair coin.
  for (double epsilon0 : {0.5, 3.0}) {
    for (int64_t c = 0; c < 60; ++c) {
      EXPECT_GE(Exact(epsilon0, c, 0.2 * epsilon0) + BruteError(c, epsilon0),
                Exact(epsilon0, c + 1, 0.2 * epsilon0));
    }
  }
}

// exact ≤ blocked ≤ shifted·(1 + 1e-9) + outside mass + slack: the blocked
// sum charges each c at most the D of step − 1 below it; its masses exceed
// the true ones by at most 1/(1 − outside mass) and 8 ulps per value; each
// D by 1e-10 relative plus the floor.
TEST(ShuffledDeltaBound, LiesBetweenTheExactAndTheShiftedSums) {
  constexpr double kOutside = 1e-12;
  for (int64_t n : {10, 20, 50}) {
    for (double epsilon0 : {0.5, 1.0, 2.0, 4.0}) {
      for (double share : {0.1, 0.3, 0.6}) {
        const double epsilon = share * epsilon0;
        const double exact =
            ExactShuffledDelta(epsilon0, n, epsilon).value_or(NAN);
        const double error = BruteError(n, epsilon);
        for (int64_t step : {1, 3, 7}) {
          const double blocked =
              ShuffledDeltaBound(epsilon0, n, epsilon, kOutside, step)
                  .value_or(NAN);
          EXPECT_GE(blocked, exact - error)
              << n << " " << epsilon0 << " " << epsilon << " " << step;
          const double shifted = ShiftedExactDelta(epsilon0, n, epsilon, step);
          EXPECT_LE(blocked, (shifted + error) * (1 + 1e-9) + 2 * kOutside)
              << n << " " << epsilon0 << " " << epsilon << " " << step;
        }
      }
    }
  }
}

// Why both ends: with D_c falling in c, charging each block the D at its
// upper end alone (the public Python's deltaq) undercounts δ(ε).
TEST(ShuffledDeltaBound, UpperEndsAloneWouldUndercount) {
  const double epsilon0 = 2;
  const int64_t n = 50;
  const double epsilon = 0.5;
  const CloneCountBlocks blocks = MakeCloneCountBlocks(epsilon0, n, 7, 1e-12);
  const CloneDivergence divergence(epsilon0, epsilon);
  double upper_ends_only = 0;
  for (size_t i = 0; i < blocks.masses.size(); ++i) {
    upper_ends_only +=
        blocks.masses[i] * divergence.UpperBound(blocks.edges[i + 1] - 1);
  }
  const double exact = ExactShuffledDelta(epsilon0, n, epsilon).value_or(NAN);
  EXPECT_LT(upper_ends_only, exact);
  EXPECT_GE(ShuffledDeltaBound(epsilon0, n, epsilon, 1e-12, 7).value_or(NAN),
            exact);
}

// The ε thresholds: the brute force's is certified by the exact δ; the
// numerical one must be certified too (so it is not below the brute force's
// but for the brute force's own 1e-9 tolerance) and must not exceed the
// threshold of the shifted sum at δ' = (δ − allowances)/(1 + 1e-9) by more
// than the search's tolerance (see LiesBetweenTheExactAndTheShiftedSums).
TEST(NumericalShuffledEpsilon, AgreesWithTheBruteForceForSmallN) {
  for (int64_t n : {10, 20, 50}) {
    for (double epsilon0 : {0.5, 1.0, 2.0, 4.0}) {
      for (double delta : {1e-3, 1e-6}) {
        const double brute =
            ExactShuffledEpsilon(epsilon0, n, delta).value_or(NAN);
        for (int64_t step : {0, 3}) {
          const NumericalBoundOptions options{.step = step};
          const double numerical =
              NumericalShuffledEpsilon(epsilon0, n, delta, options)
                  .value_or(NAN);
          const double error = BruteError(n, epsilon0);
          EXPECT_LE(ExactShuffledDelta(epsilon0, n, numerical).value_or(NAN),
                    delta + error);
          EXPECT_GE(numerical, brute - 1e-9);
          const double shifted_delta =
              (delta - kTailShareOfDelta * delta - 2 * kCloneDivergenceFloor) /
                  (1 + 1e-9) -
              error;
          const int64_t effective_step = step == 0 ? 1 : step;
          // Bisection for the shifted threshold, keeping the upper end.
          double low = 0;
          double high = epsilon0;
          while (high - low > 1e-9) {
            const double middle = (low + high) / 2;
            (ShiftedExactDelta(epsilon0, n, middle, effective_step) <=
                     shifted_delta
                 ? high
                 : low) = middle;
          }
          EXPECT_LE(numerical,
                    high + options.relative_tolerance * numerical + 1e-12)
              << n << " " << epsilon0 << " " << delta << " " << step;
        }
      }
    }
  }
}

TEST(BruteForce, RejectsWhatItCannotDo) {
  const auto kInvalid = absl::StatusCode::kInvalidArgument;
  EXPECT_THAT(ExactShuffledDelta(1, kMaxBruteForceReports + 1, 0.1),
              StatusIs(kInvalid, HasSubstr("use NumericalShuffledEpsilon")));
  EXPECT_THAT(ExactCloneDivergence(1, -1, 0.1),
              StatusIs(kInvalid, HasSubstr("clones must be in")));
  EXPECT_THAT(ExactShuffledEpsilon(1, 10, 1e-6, 0),
              StatusIs(kInvalid, HasSubstr("tolerance")));
  EXPECT_THAT(ExactShuffledDelta(0, 10, 0.1),
              StatusIs(kInvalid, HasSubstr("epsilon0")));
}

}  // namespace
}  // namespace ldp
