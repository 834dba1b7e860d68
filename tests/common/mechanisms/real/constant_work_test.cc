// DESIGN invariant 8, "time does not tell the record": the work a
// randomizer does must not depend on its input. Work is measured here by
// what can be counted exactly, the generator draws (a seeded generator
// wrapped in a counter); there are no wall-clock assertions. With the same
// seed every input must take the same draws call by call, and mechanisms
// whose draws are fixed must take them whatever the seed, so that the work
// does not reveal their coins either (whether a report is the truth, how
// large the Laplace noise is). Also here: the discrete Laplace padding
// budget against its exact tail, and the constant-work category lookup.
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/random/bit_gen_ref.h"
#include "absl/strings/str_cat.h"
#include "common/mechanisms/frequency_oracle_factory.h"
#include "common/mechanisms/longitudinal/longitudinal_oracle.h"
#include "common/mechanisms/real/discrete_laplace.h"
#include "common/mechanisms/real/real_mechanism_factory.h"
#include "common/queries/record_schema.h"
#include "gtest/gtest.h"
#include "tests/testing/frequency_oracle_checks.h"
#include "tests/testing/real_mechanism_checks.h"
#include "tests/testing/statistics.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using testing::CountingGenerator;

constexpr uint64_t kSeeds[] = {1, 7, 1234, 99991};
constexpr int kCallsPerSeed = 20;

// Draws of each of `calls` consecutive calls from one seeded generator.
template <typename Input>
std::vector<int64_t> DrawsPerCall(
    const std::function<void(Input, absl::BitGenRef)>& randomize, Input input,
    uint64_t seed, int calls) {
  CountingGenerator gen(seed);
  std::vector<int64_t> draws;
  for (int i = 0; i < calls; ++i) {
    const int64_t before = gen.draws();
    randomize(input, gen);
    draws.push_back(gen.draws() - before);
  }
  return draws;
}

// Same seed, same draws call by call, for every input.
template <typename Input>
void ExpectSameDrawsForEveryInput(
    const std::function<void(Input, absl::BitGenRef)>& randomize,
    const std::vector<Input>& inputs, const std::string& name) {
  for (uint64_t seed : kSeeds) {
    const std::vector<int64_t> first =
        DrawsPerCall(randomize, inputs[0], seed, kCallsPerSeed);
    for (const Input& input : inputs) {
      EXPECT_EQ(DrawsPerCall(randomize, input, seed, kCallsPerSeed), first)
          << name << " input " << input << " seed " << seed;
    }
  }
}

// Every call of every seed takes exactly `expected` draws.
template <typename Input>
void ExpectFixedDraws(
    const std::function<void(Input, absl::BitGenRef)>& randomize,
    const std::vector<Input>& inputs, int64_t expected,
    const std::string& name) {
  for (uint64_t seed : kSeeds) {
    for (const Input& input : inputs) {
      for (int64_t draws :
           DrawsPerCall(randomize, input, seed, kCallsPerSeed)) {
        ASSERT_EQ(draws, expected)
            << name << " input " << input << " seed " << seed;
      }
    }
  }
}

// A small instance of every frequency oracle kind; fails on a kind this
// test does not know yet, so a new oracle cannot skip the check.
FrequencyOracleSpec SmallOracle(FrequencyOracleKind kind, double epsilon,
                                uint32_t domain_size) {
  FrequencyOracleSpec spec{
      .kind = kind, .epsilon = epsilon, .domain_size = domain_size};
  switch (kind) {
    case FrequencyOracleKind::kGeneralizedRandomizedResponse:
    case FrequencyOracleKind::kOptimizedUnaryEncoding:
    case FrequencyOracleKind::kSymmetricUnaryEncoding:
    case FrequencyOracleKind::kOptimizedLocalHashing:
    case FrequencyOracleKind::kHadamardResponse:
      return spec;
    case FrequencyOracleKind::kSubsetSelection:
      spec.subset_size = domain_size / 3;
      return spec;
    case FrequencyOracleKind::kCountMeanSketch:
    case FrequencyOracleKind::kHadamardCountMeanSketch:
      spec.num_hashes = 4;
      spec.num_columns = 16;
      return spec;
    case FrequencyOracleKind::kLongitudinalUnaryEncoding:
    case FrequencyOracleKind::kLongitudinalGrr:
    case FrequencyOracleKind::kLongitudinalLocalHashing:
    case FrequencyOracleKind::kRappor:
      spec.epsilon_permanent = 2 * epsilon;
      return spec;
    case FrequencyOracleKind::kDBitFlip:
      return spec;
  }
  ADD_FAILURE() << "no small instance for " << FrequencyOracleKindName(kind);
  return spec;
}

std::vector<FrequencyOracleKind> AllOracleKinds() {
  std::vector<FrequencyOracleKind> kinds;
  for (int i = 0;; ++i) {
    const auto kind = static_cast<FrequencyOracleKind>(i);
    if (FrequencyOracleKindName(kind) == "unknown") return kinds;
    kinds.push_back(kind);
  }
}

std::vector<RealMechanismKind> AllRealKinds() {
  std::vector<RealMechanismKind> kinds;
  for (int i = 0;; ++i) {
    const auto kind = static_cast<RealMechanismKind>(i);
    if (RealMechanismKindName(kind) == "unknown") return kinds;
    kinds.push_back(kind);
  }
}

// Every item, and items past the domain (clamped to the last).
std::vector<uint32_t> EveryItem(uint32_t domain_size) {
  std::vector<uint32_t> items;
  for (uint32_t v = 0; v < domain_size; ++v) items.push_back(v);
  items.push_back(domain_size);
  items.push_back(std::numeric_limits<uint32_t>::max());
  return items;
}

// The bounds, points inside, out-of-range and non-finite values.
std::vector<double> RealInputs(double bound) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  return {-bound, -0.999 * bound, -0.3 * bound, 0.0,  1e-12, 0.5 * bound,
          bound,  3 * bound,      -1e300,       kInf, -kInf, std::nan("")};
}

std::function<void(uint32_t, absl::BitGenRef)> OracleCall(
    const FrequencyOracle& oracle) {
  return [&oracle](uint32_t item, absl::BitGenRef gen) {
    oracle.Randomize(item, gen);
  };
}

std::function<void(double, absl::BitGenRef)> MechanismCall(
    const RealMechanism& mechanism) {
  return [&mechanism](double x, absl::BitGenRef gen) {
    mechanism.Randomize(x, gen);
  };
}

TEST(ConstantWork, EveryFrequencyOracleDrawsAlikeForEveryItem) {
  const std::vector<FrequencyOracleKind> kinds = AllOracleKinds();
  ASSERT_EQ(kinds.size(), 13u);
  for (FrequencyOracleKind kind : kinds) {
    // 70 items span two bitmap words (subset selection, unary encodings).
    for (uint32_t domain_size : {5u, 70u}) {
      for (double epsilon : {0.5, 3.0}) {
        auto oracle =
            CreateFrequencyOracle(SmallOracle(kind, epsilon, domain_size));
        ASSERT_OK(oracle);
        ExpectSameDrawsForEveryInput(
            OracleCall(**oracle), EveryItem(domain_size),
            std::string(FrequencyOracleKindName(kind)));
      }
    }
  }
}

// The memo of a longitudinal oracle is drawn once per value, so the work of
// drawing it must not tell the value either (nor whether it is new: the
// agent draws a candidate every time, client/core/agent.cc).
TEST(ConstantWork, EveryLongitudinalMemoDrawsAlikeForEveryItem) {
  int longitudinal = 0;
  for (FrequencyOracleKind kind : AllOracleKinds()) {
    for (uint32_t domain_size : {5u, 70u}) {
      auto oracle = CreateFrequencyOracle(SmallOracle(kind, 1.0, domain_size));
      ASSERT_OK(oracle);
      const auto* memoizing =
          dynamic_cast<const LongitudinalOracle*>(oracle->get());
      if (memoizing == nullptr) continue;
      ++longitudinal;
      ExpectSameDrawsForEveryInput<uint32_t>(
          [memoizing](uint32_t item, absl::BitGenRef gen) {
            memoizing->Memoize(item, gen);
          },
          EveryItem(domain_size), std::string(FrequencyOracleKindName(kind)));
    }
  }
  // L-UE, L-GRR, L-OLH, dBitFlipPM, RAPPOR; two sizes each.
  EXPECT_EQ(longitudinal, 10);
}

// GRR, local hashing, Hadamard response and the Hadamard sketch take a
// fixed number of draws, so the work does not even reveal their coins:
// e.g. whether the report is the item's own bucket (local hashing used to
// skip a draw then) or which half it fell in (Hadamard response used to
// redraw until it hit the chosen half, as often as the item dictated).
TEST(ConstantWork, FixedDrawOraclesDrawAlikeWhateverTheirCoins) {
  const struct {
    FrequencyOracleKind kind;
    int64_t draws;
  } kFixed[] = {
      {FrequencyOracleKind::kGeneralizedRandomizedResponse, 2},
      {FrequencyOracleKind::kOptimizedLocalHashing, 3},
      {FrequencyOracleKind::kLongitudinalGrr, 4},
      {FrequencyOracleKind::kLongitudinalLocalHashing, 5},
      {FrequencyOracleKind::kHadamardResponse, 2},
      {FrequencyOracleKind::kHadamardCountMeanSketch, 3},
  };
  for (const auto& fixed : kFixed) {
    for (double epsilon : {0.5, 3.0}) {
      auto oracle = CreateFrequencyOracle(SmallOracle(fixed.kind, epsilon, 70));
      ASSERT_OK(oracle);
      ExpectFixedDraws(OracleCall(**oracle), EveryItem(70), fixed.draws,
                       std::string(FrequencyOracleKindName(fixed.kind)));
    }
  }
}

// The general Hadamard response draws its coin, a nonzero coset and a
// column: three draws for every item, whichever coset the coin picks. The
// leader, syndrome and move are the same word operations for every item.
TEST(ConstantWork, GeneralHadamardResponseDrawsAlikeWhateverItsCoins) {
  for (uint32_t rows : {2u, 6u}) {
    for (double epsilon : {0.5, 4.0}) {
      auto oracle =
          CreateFrequencyOracle({.kind = FrequencyOracleKind::kHadamardResponse,
                                 .epsilon = epsilon,
                                 .domain_size = 70,
                                 .rows_per_item = rows});
      ASSERT_OK(oracle);
      ExpectFixedDraws(OracleCall(**oracle), EveryItem(70), 3,
                       absl::StrCat("hadamard_response t=", rows));
    }
  }
}

RealMechanismSpec SmallMechanism(RealMechanismKind kind, double epsilon) {
  return {.kind = kind,
          .epsilon = epsilon,
          .bound = 2.5,
          .resolution_bits = 3,
          .num_cells = 64};
}

TEST(ConstantWork, EveryRealMechanismDrawsAlikeForEveryInput) {
  const std::vector<RealMechanismKind> kinds = AllRealKinds();
  ASSERT_EQ(kinds.size(), 4u);
  for (RealMechanismKind kind : kinds) {
    for (double epsilon : {0.5, 1.0, 4.0}) {
      auto mechanism = CreateRealMechanism(SmallMechanism(kind, epsilon));
      ASSERT_OK(mechanism);
      ExpectSameDrawsForEveryInput(MechanismCall(**mechanism), RealInputs(2.5),
                                   std::string(RealMechanismKindName(kind)));
    }
  }
}

// Duchi and piecewise draw the same whatever their coins (piecewise used to
// draw its cell in one of two branches, inside the band at the input or
// outside it). The hybrid's branch coin changes its draws, but its report
// names the branch anyway.
TEST(ConstantWork, FixedDrawRealMechanismsDrawAlikeWhateverTheirCoins) {
  for (double epsilon : {0.5, 1.0, 4.0}) {
    auto duchi =
        CreateRealMechanism(SmallMechanism(RealMechanismKind::kDuchi, epsilon));
    ASSERT_OK(duchi);
    ExpectFixedDraws(MechanismCall(**duchi), RealInputs(2.5), 2, "duchi");
    auto piecewise = CreateRealMechanism(
        SmallMechanism(RealMechanismKind::kPiecewise, epsilon));
    ASSERT_OK(piecewise);
    ExpectFixedDraws(MechanismCall(**piecewise), RealInputs(2.5), 4,
                     "piecewise");
  }
}

// The padding: every report takes the same draws, whatever the seed and
// however large its noise, from tiny scales (ε = 50 on a coarse lattice,
// s ≈ 0.04 steps) to large ones (s = 2^31 steps).
TEST(ConstantWork, DiscreteLaplaceDrawsAlikeWhateverItsNoise) {
  constexpr int64_t kDraws = 2 * DiscreteLaplaceMechanism::kPaddedSteps + 1;
  const DiscreteLaplaceOptions kOptions[] = {
      {.epsilon = 1.0, .bound = 2.5, .resolution_bits = 3},
      {.epsilon = 1.0, .bound = 2.5, .resolution_bits = 10},
      {.epsilon = 50, .bound = 2.5, .resolution_bits = 0},
      {.epsilon = 0.5, .bound = 2.5, .resolution_bits = 30},
  };
  for (const DiscreteLaplaceOptions& options : kOptions) {
    auto m = DiscreteLaplaceMechanism::Create(options);
    ASSERT_OK(m);
    ExpectFixedDraws(MechanismCall(**m), RealInputs(2.5), kDraws,
                     "discrete Laplace");
  }
  // The reports above included large noise, which the unpadded sampler
  // took many more draws for: at s = 16 lattice steps, over 1000 reports
  // of x = 0, the largest |noise| exceeds 5 s (each report does with
  // probability e^-5, so all of them miss with probability < 1e-2.9).
  auto m = DiscreteLaplaceMechanism::Create(kOptions[0]);
  ASSERT_OK(m);
  const double scale = static_cast<double>((*m)->scale_numerator()) /
                       static_cast<double>((*m)->scale_denominator());
  CountingGenerator gen(kSeeds[0]);
  int64_t largest = 0;
  for (int i = 0; i < 1000; ++i) {
    const int64_t before = gen.draws();
    const int64_t level = (*m)->Randomize(0.0, gen).level;
    ASSERT_EQ(gen.draws() - before, kDraws);
    largest = std::max(largest, level < 0 ? -level : level);
  }
  EXPECT_GT(static_cast<double>(largest), 5 * scale);
}

// The budget is what the header claims: the unpadded sampler (four runs of
// coin chains, see discrete_laplace.cc) needs more than kPaddedSteps
// uniforms with probability below 2^-64, and one uniform fewer would not
// do. A chain stops at coin K with Pr[K ≥ k] = γ^(k−1)/(k−1)!; U-chains
// draw γ uniform in [0, 1) first (one uniform) and take K coins, V-chains
// have γ = 1 and skip the certain first coin. γ on the grid u/num instead
// of [0, 1) changes these probabilities by a relative 2^-30 or less, and
// the tail no more.
std::vector<double> RunSteps(bool u_run, int max_steps) {
  std::vector<double> at_least(max_steps + 3, 0);  // Pr[K ≥ k]
  for (int k = 1; k < static_cast<int>(at_least.size()); ++k) {
    at_least[k] = 1 / std::tgamma(u_run ? k + 1 : k);
  }
  // Pr[the run ends / a new chain starts after exactly n steps].
  std::vector<double> ends(max_steps + 1, 0), runs(max_steps + 1, 0);
  runs[0] = 1;
  for (int n = 0; n <= max_steps; ++n) {
    for (int k = u_run ? 1 : 2; k + 1 < static_cast<int>(at_least.size());
         ++k) {
      const int steps = n + (u_run ? k + 1 : k - 1);
      if (steps > max_steps) break;
      const double p = runs[n] * (at_least[k] - at_least[k + 1]);
      // U-runs end with an odd chain, V-runs with an even one.
      ((k % 2 == 1) == u_run ? ends : runs)[steps] += p;
    }
  }
  return ends;
}

std::vector<double> Convolve(const std::vector<double>& a,
                             const std::vector<double>& b) {
  std::vector<double> c(a.size(), 0);
  for (size_t i = 0; i < a.size(); ++i) {
    for (size_t j = 0; i + j < a.size(); ++j) c[i + j] += a[i] * b[j];
  }
  return c;
}

TEST(ConstantWork, DiscreteLaplacePaddingCoversAllButTwoToTheMinus64) {
  constexpr int kMax = 400;  // the mass beyond is below 2^-150
  const std::vector<double> geometric =
      Convolve(RunSteps(true, kMax), RunSteps(false, kMax));
  const std::vector<double> steps = Convolve(geometric, geometric);
  // Pr[more than n uniforms], summed from the small end of the tail.
  std::vector<double> beyond(kMax + 1, 0);
  for (int n = kMax - 1; n >= 0; --n) beyond[n] = beyond[n + 1] + steps[n + 1];
  EXPECT_NEAR(beyond[0] + steps[0], 1.0, 1e-12);
  constexpr int kBudget = DiscreteLaplaceMechanism::kPaddedSteps;
  EXPECT_LT(beyond[kBudget], std::ldexp(1.0, -64));
  EXPECT_GE(beyond[kBudget - 1], std::ldexp(1.0, -64));
}

// The sampler was rebuilt (two geometrics instead of a sign and a rejected
// zero); discrete_laplace_test checks s = 16 steps, this the scales where
// den > num (s ≈ 0.04) and den ≈ num (s ≈ 1).
TEST(ConstantWork, PaddedDiscreteLaplaceFollowsProbabilityAtSmallScales) {
  constexpr int kDraws = 100'000;
  testing::SeededGenerator gen(41);
  for (double epsilon : {50.0, 2.0}) {
    auto m = DiscreteLaplaceMechanism::Create(
        {.epsilon = epsilon, .bound = 1.0, .resolution_bits = 0});
    ASSERT_OK(m);
    std::vector<ScalarReport> window;
    for (int64_t level = -12; level <= 12; ++level) {
      window.push_back({.level = level});
    }
    for (double x : {-1.0, 0.3, 1.0}) {
      testing::ExpectRandomizeFollowsProbability(**m, x, window, kDraws, gen,
                                                 /*pool_the_rest=*/true);
    }
  }
}

FieldSpec Colours() {
  // Prefixes, a shared prefix, equal lengths and a byte that differs only
  // in case: an early-exit comparison would take different times for them.
  return FieldSpec::Categorical("colour",
                                {"red", "re", "green", "greed", "Red", "blue"});
}

TEST(CategoryIndex, FindsEveryCategory) {
  const FieldSpec spec = Colours();
  ASSERT_OK(RecordSchema::Create({spec}));
  for (uint32_t i = 0; i < spec.categories.size(); ++i) {
    EXPECT_EQ(CategoryIndex(spec, spec.categories[i]), i) << spec.categories[i];
  }
}

TEST(CategoryIndex, GivesTheDefaultForUnknownValues) {
  FieldSpec spec = Colours();
  const std::vector<std::string> unknown = {"",
                                            "r",
                                            "reds",
                                            "RED",
                                            "gree",
                                            "greens",
                                            std::string("re\0", 3),
                                            std::string(300, 'x')};
  for (const std::string& value : unknown) {
    EXPECT_EQ(CategoryIndex(spec, value), 0u) << value;
  }
  spec.default_value = std::string("greed");
  ASSERT_OK(RecordSchema::Create({spec}));
  for (const std::string& value : unknown) {
    EXPECT_EQ(CategoryIndex(spec, value), 3u) << value;
    const FieldValue given = value;
    EXPECT_EQ(SanitizeValue(spec, &given), FieldValue(std::string("greed")));
  }
  // A value of the wrong type takes the same lookup and the same default.
  const FieldValue number = int64_t{2};
  EXPECT_EQ(SanitizeValue(spec, &number), FieldValue(std::string("greed")));
  const FieldValue blue = std::string("blue");
  EXPECT_EQ(SanitizeValue(spec, &blue), blue);
}

}  // namespace
}  // namespace ldp
