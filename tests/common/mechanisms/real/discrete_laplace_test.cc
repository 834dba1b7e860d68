#include "common/mechanisms/real/discrete_laplace.h"

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "tests/testing/real_mechanism_checks.h"
#include "tests/testing/statistics.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using testing::SeededGenerator;
using testing::StatusIs;

std::unique_ptr<DiscreteLaplaceMechanism> Make(
    const DiscreteLaplaceOptions& options) {
  auto mechanism = DiscreteLaplaceMechanism::Create(options);
  EXPECT_OK(mechanism);
  return std::move(mechanism).value();
}

double Scale(const DiscreteLaplaceMechanism& m) {
  return static_cast<double>(m.scale_numerator()) /
         static_cast<double>(m.scale_denominator());
}

// Levels within ±(2^k + scales·s): all but e^-scales of every input's mass.
std::vector<ScalarReport> Window(const DiscreteLaplaceMechanism& m,
                                 int resolution_bits, double scales) {
  const int64_t half = (int64_t{1} << resolution_bits) +
                       static_cast<int64_t>(std::ceil(scales * Scale(m)));
  std::vector<ScalarReport> window;
  for (int64_t level = -half; level <= half; ++level) {
    window.push_back({.level = level});
  }
  return window;
}

// Every lattice point, and points between them (exercising the rounding).
std::vector<double> Inputs(double bound, int resolution_bits) {
  std::vector<double> inputs;
  const int64_t steps = int64_t{1} << resolution_bits;
  for (int64_t i = -steps; i <= steps; ++i) {
    inputs.push_back(bound * static_cast<double>(i) /
                     static_cast<double>(steps));
  }
  for (double f : {-0.93, -0.3, 0.01, 0.55, 0.999}) inputs.push_back(f * bound);
  return inputs;
}

TEST(DiscreteLaplaceMechanism, CreateRejectsBadOptions) {
  testing::ExpectCreateRejectsBadEpsilonAndBound<DiscreteLaplaceMechanism>();
  for (int bits : {-1, 31}) {
    EXPECT_THAT(DiscreteLaplaceMechanism::Create({.resolution_bits = bits}),
                StatusIs(absl::StatusCode::kInvalidArgument))
        << bits;
  }
  // 2^31 / 1e-9 lattice steps of noise would overflow the level range.
  EXPECT_THAT(DiscreteLaplaceMechanism::Create(
                  {.epsilon = 1e-9, .resolution_bits = 30}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_OK(
      DiscreteLaplaceMechanism::Create({.epsilon = 50, .resolution_bits = 0}));
}

TEST(DiscreteLaplaceMechanism, ImplementedEpsilonIsJustBelowTheRequestedOne) {
  for (int bits : {0, 3, 10, 30}) {
    for (double epsilon : {0.01, 0.5, 1.0, 2.0, 4.0, 8.0, 50.0}) {
      auto m =
          Make({.epsilon = epsilon, .bound = 2.5, .resolution_bits = bits});
      EXPECT_LE(m->epsilon(), epsilon) << bits << " " << epsilon;
      EXPECT_LE(epsilon - m->epsilon(), 1e-6) << bits << " " << epsilon;
      // ε' = Δ/s' exactly, Δ = 2^(k+1).
      EXPECT_NEAR(m->epsilon() * Scale(*m), std::ldexp(2.0, bits),
                  1e-12 * std::ldexp(2.0, bits));
      EXPECT_EQ(m->lattice_step(), std::ldexp(2.5, -bits));
    }
  }
}

// Acceptance (1) and (a): exact pmf, every input, a window of ±(2^k + 40 s).
TEST(DiscreteLaplaceMechanism, LikelihoodRatioIsAtMostEToTheEpsilon) {
  constexpr int kBits = 3;
  for (double epsilon : {0.5, 1.0, 2.0}) {
    auto m = Make({.epsilon = epsilon, .bound = 1.5, .resolution_bits = kBits});
    // The bound is attained (between x = ±b far from the centre), so ε is
    // not overstated either.
    testing::ExpectExactEpsilonAndNormalized(*m, Inputs(1.5, kBits),
                                             Window(*m, kBits, 40), 1e-9);
  }
}

// (b) "No holes": the set of possible outputs does not depend on the input.
TEST(DiscreteLaplaceMechanism, EveryLevelIsPossibleFromEveryInput) {
  constexpr int kBits = 3;
  auto m = Make({.epsilon = 1.0, .bound = 1.0, .resolution_bits = kBits});
  for (double x : {-1.0, -1.0 / 3, 0.0, 0.7, 1.0}) {
    for (const ScalarReport& w : Window(*m, kBits, 40)) {
      ASSERT_GT(m->Probability(x, w), 0) << x << " " << w.level;
    }
  }
  SeededGenerator gen(21);
  constexpr int kDraws = 100'000;
  for (double x : {-1.0, 1.0}) {
    for (int i = 0; i < kDraws; ++i) {
      const ScalarReport w = m->Randomize(x, gen);
      ASSERT_OK(m->Validate(w));
      ASSERT_GT(m->Probability(-x, w), 0) << x << " " << w.level;
    }
  }
}

// The textbook floating-point local Laplace, x + Lap(scale) from a uniform
// double. Test-only: the negative control for the check below.
double NaiveLaplace(double x, double scale, SeededGenerator& gen) {
  std::uniform_real_distribution<double> uniform(-0.5, 0.5);
  const double u = uniform(gen);
  return x - scale * std::copysign(std::log1p(-2 * std::fabs(u)), u);
}

// Haney et al.'s precision event: a double in (−0.5, 0.5) that is not a
// multiple of 2^-53. x + noise for x = 1 can never produce one (1 + n is a
// multiple of 2^-53, and exact when it lands there); x = 0 often does.
bool PrecisionEvent(double y) {
  return std::fabs(y) < 0.5 &&
         std::ldexp(y, 53) != std::floor(std::ldexp(y, 53));
}

struct EventCounts {
  int from_zero = 0;
  int from_one = 0;
  // An output event that one input produces and the other never does.
  bool Leaks() const { return (from_zero > 0) != (from_one > 0); }
};

EventCounts CountPrecisionEvents(const std::function<double(double)>& release) {
  EventCounts counts;
  for (int i = 0; i < 100'000; ++i) {
    counts.from_zero += PrecisionEvent(release(0.0));
    counts.from_one += PrecisionEvent(release(1.0));
  }
  return counts;
}

// (c) The check has teeth: it catches the floating-point mechanism and
// passes ours on the same inputs, scale and event.
TEST(DiscreteLaplaceMechanism,
     NaiveFloatingPointLaplaceLeaksButLatticeDoesNot) {
  SeededGenerator gen(5);
  const EventCounts naive =
      CountPrecisionEvents([&](double x) { return NaiveLaplace(x, 1.0, gen); });
  EXPECT_TRUE(naive.Leaks());
  EXPECT_GT(naive.from_zero, 10'000);  // measured: ≈ 27% of draws
  EXPECT_EQ(naive.from_one, 0);

  auto m = Make({.epsilon = 1.0, .bound = 1.0, .resolution_bits = 10});
  const EventCounts ours = CountPrecisionEvents(
      [&](double x) { return m->Decode(m->Randomize(x, gen)); });
  EXPECT_FALSE(ours.Leaks());
  // And by the exact pmf: each input's samples are possible for the other.
  for (int i = 0; i < 10'000; ++i) {
    ASSERT_GT(m->Probability(1.0, m->Randomize(0.0, gen)), 0);
    ASSERT_GT(m->Probability(0.0, m->Randomize(1.0, gen)), 0);
  }
}

// Acceptance (2): samples follow Probability().
TEST(DiscreteLaplaceMechanism, SamplesFollowTheExactDistribution) {
  constexpr int kBits = 3;
  constexpr int kDraws = 1'000'000;
  auto m = Make({.epsilon = 1.0, .bound = 1.0, .resolution_bits = kBits});
  const std::vector<ScalarReport> window = Window(*m, kBits, 12);
  SeededGenerator gen(17);
  for (double x : {0.3, -1.0}) {
    // Levels outside the window pool into one category.
    testing::ExpectRandomizeFollowsProbability(*m, x, window, kDraws, gen,
                                               /*pool_the_rest=*/true);
  }
}

// Decode is unbiased and Variance() is its variance, by exact summation.
TEST(DiscreteLaplaceMechanism, ExactMomentsMatchDecodeAndVariance) {
  constexpr int kBits = 3;
  for (double epsilon : {0.5, 2.0}) {
    auto m = Make({.epsilon = epsilon, .bound = 2.0, .resolution_bits = kBits});
    const std::vector<ScalarReport> window = Window(*m, kBits, 60);
    for (double x : Inputs(2.0, kBits)) {
      double mean = 0, second = 0;
      for (const ScalarReport& w : window) {
        const double p = m->Probability(x, w);
        mean += p * m->Decode(w);
        second += p * m->Decode(w) * m->Decode(w);
      }
      EXPECT_NEAR(mean, x, 1e-9) << epsilon << " " << x;
      EXPECT_NEAR(second - mean * mean, m->Variance(x), 1e-9 * m->Variance(x))
          << epsilon << " " << x;
      EXPECT_LE(m->Variance(x), m->WorstCaseVariance() * (1 + 1e-12));
    }
    // The worst case is rounding halfway between lattice points.
    EXPECT_NEAR(m->Variance(m->lattice_step() / 2), m->WorstCaseVariance(),
                1e-12 * m->WorstCaseVariance());
  }
}

// Acceptance (3): single reports are unbiased with the closed-form
// variance. R = 50,000: Laplace noise has excess kurtosis 3, so the
// sample variance's relative SD is √(2/R + 3/R) = 1%, and 10% is 10 SD.
TEST(DiscreteLaplaceMechanism, EmpiricalMeanAndVarianceMatchTheClosedForm) {
  constexpr int kDraws = 50'000;
  SeededGenerator gen(29);
  for (double epsilon : {0.5, 1.0, 2.0, 4.0}) {
    auto m = Make({.epsilon = epsilon, .bound = 3.0});
    for (double x : {-3.0, 0.1234, 2.9}) {
      testing::ExpectEmpiricalMomentsMatchClosedForm(*m, x, kDraws, gen);
    }
  }
}

// (d) Reports are lattice indices: integers, decoding to multiples of γ.
TEST(DiscreteLaplaceMechanism, ReportsDecodeToLatticePoints) {
  auto m = Make({.epsilon = 1.0, .bound = 3.0, .resolution_bits = 10});
  SeededGenerator gen(3);
  for (int i = 0; i < 10'000; ++i) {
    const double x = -3.0 + 6.0 * (i % 997) / 996.0;
    const ScalarReport w = m->Randomize(x, gen);
    ASSERT_OK(m->Validate(w));
    const double y = m->Decode(w);
    ASSERT_EQ(y / m->lattice_step(), static_cast<double>(w.level));
    ASSERT_EQ(y, static_cast<double>(w.level) * m->lattice_step());
  }
}

TEST(DiscreteLaplaceMechanism, ValidateAcceptsExactlyTheDocumentedWindow) {
  auto m = Make({.epsilon = 1.0, .bound = 1.0, .resolution_bits = 10});
  EXPECT_EQ(m->max_level(),
            1024 + static_cast<int64_t>(std::ceil(64 * Scale(*m))));
  EXPECT_OK(m->Validate({.level = 0}));
  EXPECT_OK(m->Validate({.level = m->max_level()}));
  EXPECT_OK(m->Validate({.level = -m->max_level()}));
  const std::vector<int64_t> bad = {m->max_level() + 1, -m->max_level() - 1,
                                    std::numeric_limits<int64_t>::max(),
                                    std::numeric_limits<int64_t>::min()};
  testing::ExpectLevelsRejected(*m, bad);
  for (int64_t level : bad) {
    EXPECT_GE(m->Probability(0.0, {.level = level}), 0) << level;
  }
  // An honest report beyond the window has probability below e^-64.
  EXPECT_LT(m->Probability(1.0, {.level = m->max_level() + 1}),
            std::exp(-64.0));
  testing::ExpectDecodeBoundAttained(
      *m,
      {{.level = -m->max_level()}, {.level = 0}, {.level = m->max_level()}});
}

// Invariant 8: odd inputs take the same code path as their clamped value.
TEST(DiscreteLaplaceMechanism, OddInputsAreClampedNotRejected) {
  auto m = Make({.epsilon = 1.0, .bound = 2.0, .resolution_bits = 4});
  testing::ExpectOddInputsClamped(*m, Window(*m, 4, 5));
}

}  // namespace
}  // namespace ldp
