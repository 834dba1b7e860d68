#include "common/mechanisms/frequency/hadamard_response.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/frequency_oracle_checks.h"
#include "tests/testing/statistics.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using testing::MaxProbabilityRatio;
using testing::SeededGenerator;
using testing::StatusIs;

std::unique_ptr<HadamardResponse> Make(double epsilon, uint32_t domain_size,
                                       uint32_t rows_per_item = 1) {
  auto oracle = HadamardResponse::Create({.epsilon = epsilon,
                                          .domain_size = domain_size,
                                          .rows_per_item = rows_per_item});
  EXPECT_OK(oracle);
  return *std::move(oracle);
}

// Local hashing's n·Var at f = 0 with g buckets (Wang et al. 2017).
double LocalHashingUnitVariance(double epsilon, double g) {
  const double e = std::exp(epsilon);
  return (e - 1 + g) * (e - 1 + g) / ((e - 1) * (e - 1) * (g - 1));
}

TEST(HadamardResponse, RejectsBadOptions) {
  testing::ExpectCreateRejectsBadEpsilonAndDomain<HadamardResponse>();
}

TEST(HadamardResponse, OutputSizeIsThePowerOfTwoAboveTheDomain) {
  EXPECT_EQ(Make(1, 2)->output_size(), 4u);
  EXPECT_EQ(Make(1, 3)->output_size(), 4u);
  EXPECT_EQ(Make(1, 4)->output_size(), 8u);
  EXPECT_EQ(Make(1, 1024)->output_size(), 2048u);
  EXPECT_EQ(Make(1, 1023)->output_size(), 1024u);
}

// Every input and output of small domains (plus indices past K, which are
// never emitted): ratio ≤ e^ε, implemented ε close to requested, and each
// input's distribution sums to one.
TEST(HadamardResponse, EnumeratedPrivacyLossIsAtMostEpsilon) {
  for (uint32_t rows : {1u, 2u, 3u})
    for (double epsilon : {0.05, 0.5, 1.0, 3.0}) {
      for (uint32_t n : {2u, 5u, 7u, 12u}) {
        const auto oracle = Make(epsilon, n, rows);
        EXPECT_LE(oracle->epsilon(), epsilon);
        EXPECT_LE(epsilon - oracle->epsilon(), 1e-6);
        std::vector<uint32_t> inputs(n);
        for (uint32_t v = 0; v < n; ++v) inputs[v] = v;
        std::vector<FrequencyReport> outputs;
        for (uint32_t y = 0; y < oracle->output_size() + 3; ++y) {
          outputs.push_back(ItemReport{.item = y});
        }
        const double ratio = MaxProbabilityRatio<uint32_t, FrequencyReport>(
            inputs, outputs, [&](const uint32_t& v, const FrequencyReport& w) {
              return oracle->Probability(v, w);
            });
        EXPECT_LE(ratio, std::exp(epsilon) * (1 + 1e-9))
            << epsilon << " " << n << " rows " << rows;
        EXPECT_NEAR(ratio, std::exp(oracle->epsilon()), 1e-9);
        for (uint32_t v : inputs) {
          double total = 0;
          for (const auto& w : outputs) total += oracle->Probability(v, w);
          EXPECT_NEAR(total, 1.0, 1e-12);
        }
      }
    }
}

// Randomize(v) against Probability(v, ·) over every column, by χ².
void ExpectColumnsFollowProbability(const HadamardResponse& oracle,
                                    const std::vector<uint32_t>& items,
                                    int draws, uint64_t seed) {
  std::vector<FrequencyReport> columns;
  for (uint32_t y = 0; y < oracle.output_size(); ++y) {
    columns.push_back(ItemReport{.item = y});
  }
  testing::ExpectSamplesFollowProbability(
      oracle, columns, items, draws,
      [&oracle](const FrequencyReport& r) -> int64_t {
        if (!oracle.Validate(r).ok()) return -1;
        return std::get<ItemReport>(r).item;
      },
      seed);
}

TEST(HadamardResponse, SamplesFollowProbability) {
  ExpectColumnsFollowProbability(*Make(1.0, 6), {0, 3, 5}, 200'000,
                                 /*seed=*/21);  // K = 8
}

// K = 16 (t = 2) and 64 (t = 3).
TEST(HadamardResponse, GeneralFormSamplesFollowProbability) {
  for (uint32_t rows : {2u, 3u}) {
    const auto oracle = Make(2.0, 6, rows);
    ExpectColumnsFollowProbability(
        *oracle, {0, 4, 5}, 4000 * static_cast<int>(oracle->output_size()),
        /*seed=*/22 + rows);
  }
}

TEST(HadamardResponse, ItemsPastTheDomainAreClamped) {
  const auto oracle = Make(1.0, 6);
  EXPECT_EQ(oracle->Probability(100, ItemReport{.item = 3}),
            oracle->Probability(5, ItemReport{.item = 3}));
  SeededGenerator a(4), b(4);
  EXPECT_EQ(oracle->Randomize(1000, a), oracle->Randomize(5, b));
}

// 5000 repetitions of n = 1000 reports from a fixed population: per item the
// mean is within 5 SE of the truth and the sample variance within 10% of the
// closed form (its relative SD is √(2/4999) = 2%, so 10% is 5 SD).
TEST(HadamardResponse, EstimatorIsUnbiasedWithTheClosedFormVariance) {
  const auto oracle = Make(1.0, 6);
  testing::ExpectUnbiasedWithClosedFormVariance(
      *oracle, {400, 250, 150, 100, 100, 0}, /*repetitions=*/5000,
      /*seed=*/31);
}

// t = 3 (q = 1/8) at ε = 2, N = 6: K = 64.
TEST(HadamardResponse, GeneralFormIsUnbiasedWithTheClosedFormVariance) {
  const auto oracle = Make(2.0, 6, 3);
  ASSERT_EQ(oracle->output_size(), 64u);
  testing::ExpectUnbiasedWithClosedFormVariance(
      *oracle, {400, 250, 150, 100, 100, 0}, /*repetitions=*/5000,
      /*seed=*/32);
}

// Exact correlations of two items' support counts on one report from each
// item (t = 3, r = 2, K = 64, ε = 4): two sets meet in one column, which
// the offsets put in about 1/8 of the other sets, so |ρ| stays near
// p·(|S|/N − 1/8) for the few items S holding it (the worst pair: 0.13).
// Had every set been a subspace (no offsets), every pair would meet at
// column 0, inside every other set: the worst pair then has ρ = 0.68.
TEST(HadamardResponse, GeneralFormSupportsAreNearlyUncorrelated) {
  const auto oracle = Make(4.0, 9, 3);
  ASSERT_EQ(oracle->output_size(), 64u);
  const uint32_t n = 9, k = 64;
  double in_set = 0;  // Pr[R(v) = y] for y ∈ C_v
  for (uint32_t y = 0; y < k; ++y) {
    in_set = std::max(in_set, oracle->Probability(0, ItemReport{.item = y}));
  }
  const auto supports = [&](uint32_t v, uint32_t y) {
    return oracle->Probability(v, ItemReport{.item = y}) == in_set;
  };
  double worst = 0;
  for (uint32_t u = 0; u < n; ++u) {
    for (uint32_t v = u + 1; v < n; ++v) {
      double covariance = 0, var_u = 0, var_v = 0;
      for (uint32_t w = 0; w < n; ++w) {
        double both = 0, pu = 0, pv = 0;
        for (uint32_t y = 0; y < k; ++y) {
          const double pr = oracle->Probability(w, ItemReport{.item = y});
          both += pr * (supports(u, y) && supports(v, y));
          pu += pr * supports(u, y);
          pv += pr * supports(v, y);
        }
        covariance += both - pu * pv;
        var_u += pu * (1 - pu);
        var_v += pv * (1 - pv);
      }
      worst = std::max(worst, std::fabs(covariance) / std::sqrt(var_u * var_v));
    }
  }
  EXPECT_LT(worst, 0.3);
}

// q = 2^-t and p = e^ε/(e^ε + 2^t − 1): local hashing's variance with
// g = 2^t, up to the 2^-32 coin rounding.
TEST(HadamardResponse, GeneralVarianceIsLocalHashingsWithTwoToTheTBuckets) {
  for (uint32_t rows : {1u, 2u, 4u, 6u}) {
    for (double epsilon : {0.5, 2.0, 4.0}) {
      const auto oracle = Make(epsilon, 1024, rows);
      EXPECT_NEAR(oracle->Variance(0.0, 1) /
                      LocalHashingUnitVariance(epsilon, std::exp2(rows)),
                  1.0, 1e-6)
          << rows << " " << epsilon;
      EXPECT_EQ(oracle->protocol().q, std::exp2(-static_cast<double>(rows)));
    }
  }
}

// The chosen t: 1 at small ε, log₂ of about e^ε + 1 at large ε, and at
// ε = 4, N = 1024 within 1% of the unary encodings' 4e^ε/(e^ε − 1)².
TEST(HadamardResponse, BestRowsPerItemFollowsEpsilon) {
  EXPECT_EQ(HadamardResponse::BestRowsPerItem(0.5, 1024), 1u);
  EXPECT_EQ(HadamardResponse::BestRowsPerItem(4.0, 1024), 6u);
  const auto oracle = Make(4.0, 1024, 6);
  EXPECT_EQ(oracle->output_size(), uint32_t{1} << 18);
  const double e = std::exp(4.0);
  EXPECT_LT(oracle->Variance(0.0, 1) / (4 * e / ((e - 1) * (e - 1))), 1.01);
  // ε = 8 would like t = 11; K ≤ 2^20 allows t = 10 (r = 2).
  EXPECT_EQ(HadamardResponse::BestRowsPerItem(8.0, 1024), 10u);
  for (double epsilon : {0.5, 1.0, 2.0, 4.0, 8.0}) {
    const uint32_t t = HadamardResponse::BestRowsPerItem(epsilon, 1 << 16);
    EXPECT_LE(Make(epsilon, 1 << 16, t)->output_size(),
              HadamardResponse::kMaxChosenOutputSize);
  }
}

TEST(HadamardResponse, RejectsBadRowsPerItem) {
  // t = 12 and 2 digits: 2^24 counters for a 100-item domain.
  EXPECT_THAT(HadamardResponse::Create(
                  {.epsilon = 1, .domain_size = 100, .rows_per_item = 12}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       ::testing::HasSubstr("server counters")));
  EXPECT_OK(HadamardResponse::Create(
      {.epsilon = 1, .domain_size = 100, .rows_per_item = 11}));  // 2^22
  for (uint32_t rows : {0u, 13u}) {
    EXPECT_THAT(HadamardResponse::Create(
                    {.epsilon = 1, .domain_size = 8, .rows_per_item = rows}),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         ::testing::HasSubstr("rows_per_item")));
  }
  EXPECT_THAT(HadamardResponse::Create(
                  {.epsilon = 1, .domain_size = 5000, .rows_per_item = 12}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       ::testing::HasSubstr("fewer rows")));
}

TEST(HadamardResponse, VarianceIsThePureProtocolWithHalf) {
  const auto oracle = Make(1.0, 1024);
  const double e = std::exp(1.0);
  // (e^ε + 1)²/(n (e^ε − 1)²) − f/n, up to the 2^-32 coin rounding.
  EXPECT_NEAR(oracle->Variance(0.0, 1), (e + 1) * (e + 1) / ((e - 1) * (e - 1)),
              1e-6);
  EXPECT_NEAR(oracle->Variance(0.2, 100),
              ((e + 1) * (e + 1) / ((e - 1) * (e - 1)) - 0.2) / 100, 1e-8);
}

TEST(HadamardResponse, ValidateRejectsMalformedReports) {
  const auto oracle = Make(1.0, 6);
  const std::vector<FrequencyReport> bad = {
      ItemReport{.item = 8},
      ItemReport{.item = 0xFFFFFFFF},
      BitVectorReport{.words = {1}},
      HashedReport{.seed = 1, .bucket = 0},
      SubsetReport{.items = {1}},
      SketchReport{.row = 0, .column = 0, .bits = {0}},
  };
  SeededGenerator gen(5);
  auto acc = oracle->NewAccumulator();
  for (int i = 0; i < 100; ++i) ASSERT_OK(acc->Add(oracle->Randomize(2, gen)));
  testing::ExpectMalformedReportsRejectedBy(*oracle, *acc, bad);
  EXPECT_EQ(acc->num_reports(), 100);
  EXPECT_OK(oracle->Validate(ItemReport{.item = 7}));
}

TEST(HadamardResponse, MergeEqualsAddingEverythingToOne) {
  const auto oracle = Make(1.0, 10);
  SeededGenerator gen(6);
  testing::ExpectMergedSplitEqualsAll(
      *oracle, *oracle->NewAccumulator(), *oracle->NewAccumulator(),
      *oracle->NewAccumulator(), /*num_items=*/10, /*num_reports=*/300, gen);
}

TEST(HadamardResponse, MergeRejectsADifferentOracle) {
  const auto oracle = Make(1.0, 10);
  auto acc = oracle->NewAccumulator();
  EXPECT_THAT(acc->Merge(*Make(2.0, 10)->NewAccumulator()),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(acc->Merge(*Make(1.0, 20)->NewAccumulator()),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(acc->Merge(*Make(1.0, 10, 2)->NewAccumulator()),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_EQ(acc->num_reports(), 0);
}

TEST(HadamardResponse, NoReportsGivesZeroEstimatesWithInfiniteVariance) {
  const HistogramEstimate est = Make(1.0, 4)->NewAccumulator()->Estimate();
  ASSERT_EQ(est.frequencies.size(), 4u);
  EXPECT_EQ(est.frequencies[0], 0.0);
  EXPECT_TRUE(std::isinf(est.variances[0]));
}

}  // namespace
}  // namespace ldp
