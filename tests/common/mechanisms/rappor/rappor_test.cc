#include "common/mechanisms/rappor/rappor.h"

#include <cmath>
#include <memory>
#include <vector>

#include "common/mechanisms/rappor/rappor_accumulator.h"
#include "common/mechanisms/rappor/rappor_decoder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/frequency_oracle_checks.h"
#include "tests/testing/longitudinal_checks.h"
#include "tests/testing/statistics.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using testing::SeededGenerator;
using testing::StatusIs;

// The enumerable shape: k = 4 bits, h = 2 hashes, C = 2 cohorts, N = 6.
std::unique_ptr<Rappor> MakeSmallRappor(double eps_inf = 4, double eps_1 = 2) {
  auto oracle = Rappor::Create({.epsilon_permanent = eps_inf,
                                .epsilon_report = eps_1,
                                .domain_size = 6,
                                .num_bits = 4,
                                .num_hashes = 2,
                                .num_cohorts = 2,
                                .hash_seed = 7});
  EXPECT_OK(oracle);
  return *std::move(oracle);
}

// Every filter of cohort `cohort` with k ≤ 63 bits.
std::vector<FrequencyReport> RapporFiltersOf(uint32_t cohort, uint32_t k) {
  std::vector<FrequencyReport> out;
  for (uint64_t bits = 0; bits < (uint64_t{1} << k); ++bits) {
    out.push_back(SketchReport{.row = cohort, .bits = {bits}, .num_bits = k});
  }
  return out;
}

// ln of the worst ratio between two items' filters in `cohort`: bits only u
// sets weigh P/Q (a 1), bits only v sets (1 − Q)/(1 − P) (a 0).
double PairFormulaEpsilon(const Rappor& oracle, uint32_t cohort) {
  const PureProtocol bit = oracle.layers().composed();
  double worst = 0;
  for (uint32_t u = 0; u < oracle.domain_size(); ++u) {
    for (uint32_t v = 0; v < oracle.domain_size(); ++v) {
      const uint64_t a = oracle.bloom().Filter(cohort, u)[0];
      const uint64_t b = oracle.bloom().Filter(cohort, v)[0];
      worst = std::max(worst, std::popcount(a & ~b) * std::log(bit.p / bit.q) +
                                  std::popcount(b & ~a) *
                                      std::log((1 - bit.q) / (1 - bit.p)));
    }
  }
  return worst;
}

// The cohort whose worst pair reaches epsilon() (two disjoint full filters).
uint32_t ExtremeCohort(const Rappor& oracle) {
  for (uint32_t c = 0; c < oracle.bloom().num_cohorts(); ++c) {
    if (std::abs(PairFormulaEpsilon(oracle, c) - oracle.epsilon()) < 1e-9) {
      return c;
    }
  }
  ADD_FAILURE() << "no cohort reaches epsilon(); pick another hash_seed";
  return 0;
}

TEST(Rappor, RejectsBadOptions) {
  testing::ExpectCreateRejectsBadEpsilonsAndDomain<Rappor>();
  for (const RapporOptions& bad : std::vector<RapporOptions>{
           {.num_bits = 4097},
           {.num_hashes = 17},
           {.num_cohorts = 1025},
           {.domain_size = 65, .num_bits = 8, .num_cohorts = 8}}) {
    RapporOptions options = bad;
    options.epsilon_permanent = 2;
    options.epsilon_report = 1;
    if (options.domain_size == 0) options.domain_size = 8;
    EXPECT_THAT(Rappor::Create(options),
                StatusIs(absl::StatusCode::kInvalidArgument));
  }
  auto defaults = Rappor::Create(
      {.epsilon_permanent = 2, .epsilon_report = 1, .domain_size = 8});
  ASSERT_OK(defaults);
  EXPECT_EQ((*defaults)->bloom(), RapporBloom(128, 2, 64, 0));
  EXPECT_EQ((*defaults)->kind(), FrequencyOracleKind::kRappor);
  EXPECT_EQ(FrequencyOracleKindName(FrequencyOracleKind::kRappor), "rappor");
}

// The layers run at ε/h; the oracle's ε is h times the unary loss.
TEST(Rappor, EpsilonIsHashesTimesTheLayersUnaryLoss) {
  for (uint32_t h : {1u, 2u, 5u}) {
    auto oracle = Rappor::Create({.epsilon_permanent = 6,
                                  .epsilon_report = 3,
                                  .domain_size = 16,
                                  .num_bits = 32,
                                  .num_hashes = h});
    ASSERT_OK(oracle);
    const PureProtocol bit = (*oracle)->layers().composed();
    EXPECT_NEAR((*oracle)->epsilon(), h * UnaryEpsilon(bit.p, bit.q), 1e-12);
    EXPECT_LE((*oracle)->epsilon(), 3);
    EXPECT_GT((*oracle)->epsilon(), 3 - 1e-6);
    EXPECT_LE((*oracle)->epsilon_infinity(), 6);
    EXPECT_GT((*oracle)->epsilon_infinity(), 6 - 1e-6);
  }
}

TEST(Rappor, EnumeratedPrivacyLossIsExactPerCohort) {
  const auto oracle = MakeSmallRappor();
  double worst = 0;
  for (uint32_t c = 0; c < 2; ++c) {
    const std::vector<FrequencyReport> outputs = RapporFiltersOf(c, 4);
    const double ratio =
        testing::MaxProbabilityRatio<uint32_t, FrequencyReport>(
            testing::AllItems(*oracle), outputs,
            [&](const uint32_t& v, const FrequencyReport& w) {
              return oracle->Probability(v, w);
            });
    EXPECT_NEAR(std::log(ratio), PairFormulaEpsilon(*oracle, c), 1e-9);
    worst = std::max(worst, std::log(ratio));
    for (uint32_t v = 0; v < 6; ++v) {
      double total = 0;
      for (const FrequencyReport& w : outputs)
        total += oracle->Probability(v, w);
      EXPECT_NEAR(total, 1.0, 1e-12);
    }
  }
  EXPECT_NEAR(worst, oracle->epsilon(), 1e-9);
  ExtremeCohort(*oracle);
}

TEST(Rappor, MemoLayersComposeAndRepeatsStayWithinEpsilonInfinity) {
  const auto oracle = MakeSmallRappor();
  const uint32_t cohort = ExtremeCohort(*oracle);
  const std::vector<FrequencyReport> filters = RapporFiltersOf(cohort, 4);
  testing::ExpectMemoIsEpsilonInfinityPrivate(*oracle, *oracle, filters, 4);
  testing::ExpectLayersComposeToProbability(*oracle, *oracle, filters, filters);
  testing::ExpectRepeatedReportsStayWithinEpsilonInfinity(*oracle, *oracle,
                                                          filters, filters, 2);
  // A report never changes cohort.
  const FrequencyReport other =
      SketchReport{.row = 1 - cohort,
                   .bits = {std::get<SketchReport>(filters[3]).bits},
                   .num_bits = 4};
  EXPECT_EQ(oracle->ProbabilityFromMemo(filters[3], other), 0.0);
}

TEST(Rappor, SamplesFollowProbabilityWithUniformCohorts) {
  const auto oracle = MakeSmallRappor(3, 1.5);
  std::vector<FrequencyReport> outputs = RapporFiltersOf(0, 4);
  for (const FrequencyReport& w : RapporFiltersOf(1, 4)) outputs.push_back(w);
  SeededGenerator gen(5);
  for (uint32_t item = 0; item < 6; ++item) {
    const testing::ChiSquareResult result =
        testing::ChiSquareOfSamples<FrequencyReport>(
            outputs, 20000, [&] { return oracle->Randomize(item, gen); },
            [&](const FrequencyReport& w) {
              return oracle->Probability(item, w) / 2;
            },
            [](const FrequencyReport& w) -> int64_t {
              const auto& s = std::get<SketchReport>(w);
              return s.row * 16 + static_cast<int64_t>(s.bits[0]);
            });
    EXPECT_TRUE(result.Passes())
        << "item " << item << " chi2 " << result.statistic;
  }
}

// The regression's estimates are unbiased and their spread is the exact
// variance of rappor_decoder.h (at the expected, equal cohort sizes): at
// small ε the bits' coin noise dominates it, at large ε the spread of the
// population over the cohorts.
TEST(Rappor, EstimatorIsUnbiasedWithTheDecodersVariance) {
  for (const auto& [eps_inf, eps_1] :
       std::vector<std::pair<double, double>>{{4, 2}, {10, 8}}) {
    SCOPED_TRACE(eps_1);
    auto oracle = Rappor::Create({.epsilon_permanent = eps_inf,
                                  .epsilon_report = eps_1,
                                  .domain_size = 4,
                                  .num_bits = 8,
                                  .num_hashes = 2,
                                  .num_cohorts = 4,
                                  .hash_seed = 3});
    ASSERT_OK(oracle);
    // 200 reports, 50 per cohort on average: the decoder's variance is
    // exact given the cohort sizes, and E[1/n_c] is within 1.5% of 1/50.
    const std::vector<int64_t> counts = {100, 50, 30, 20};
    const std::vector<uint32_t> items = {0, 1, 2, 3};
    const std::vector<double> truth = {0.5, 0.25, 0.15, 0.1};
    const RapporDecoder decoder((*oracle)->bloom(),
                                (*oracle)->layers().composed());
    const auto exact = decoder.Variances({50, 50, 50, 50}, items, truth);
    ASSERT_OK(exact);
    testing::ExpectUnbiasedWithClosedFormVariance(
        **oracle, counts, 5000, 11, [&](double f, int64_t) {
          for (size_t v = 0; v < 4; ++v) {
            if (truth[v] == f) return (*exact)[v];
          }
          return 0.0;
        });
  }
}

TEST(Rappor, DrawsClampingMalformedReportsAndMerging) {
  const auto oracle = MakeSmallRappor();
  testing::ExpectDrawCountIndependentOfInput(*oracle);
  testing::ExpectOutOfRangeItemsClampToLast(*oracle);
  testing::ExpectMalformedReportsRejected(
      *oracle,
      {ItemReport{1}, SketchReport{.row = 2, .bits = {1}, .num_bits = 4},
       SketchReport{.row = 0, .column = 1, .bits = {1}, .num_bits = 4},
       SketchReport{.row = 0, .bits = {1}, .num_bits = 0},
       SketchReport{.row = 0, .bits = {16}, .num_bits = 4},
       SketchReport{.row = 0, .bits = {1, 0}, .num_bits = 4}});
  const auto other_epsilon = MakeSmallRappor(4, 1);
  auto other_seed = Rappor::Create({.epsilon_permanent = 4,
                                    .epsilon_report = 2,
                                    .domain_size = 6,
                                    .num_bits = 4,
                                    .num_hashes = 2,
                                    .num_cohorts = 2,
                                    .hash_seed = 8});
  ASSERT_OK(other_seed);
  testing::ExpectMergeEqualsSingleAccumulator(
      *oracle, {other_epsilon.get(), other_seed->get()}, 200);
}

TEST(Rappor, MalformedMemosAreNormalizedIntoValidReports) {
  const auto oracle = MakeSmallRappor();
  SeededGenerator gen(2);
  for (const FrequencyReport& memo : std::vector<FrequencyReport>{
           ItemReport{3}, SketchReport{.row = 9, .bits = {0xFF}, .num_bits = 4},
           SketchReport{.row = 1, .bits = {}, .num_bits = 4}}) {
    EXPECT_THAT(oracle->ValidateMemo(memo),
                StatusIs(absl::StatusCode::kInvalidArgument));
    EXPECT_EQ(oracle->MemoProbability(0, memo), 0.0);
    EXPECT_OK(oracle->Validate(oracle->RandomizeFromMemo(memo, gen)));
  }
  EXPECT_EQ(std::get<SketchReport>(oracle->RandomizeFromMemo(
                                       SketchReport{.row = 9, .bits = {}}, gen))
                .row,
            1u);
}

}  // namespace
}  // namespace ldp
