#include "common/mechanisms/longitudinal/longitudinal_local_hashing.h"

#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include "common/mechanisms/frequency/local_hashing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/frequency_oracle_checks.h"
#include "tests/testing/longitudinal_checks.h"
#include "tests/testing/statistics.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using testing::ChiSquare;
using ::testing::HasSubstr;
using testing::SeededGenerator;
using testing::StatusIs;

std::unique_ptr<LongitudinalLocalHashing> MakeLolh(double eps_inf, double eps_1,
                                                   uint32_t n, uint32_t g = 0) {
  auto oracle = LongitudinalLocalHashing::Create({.epsilon_permanent = eps_inf,
                                                  .epsilon_report = eps_1,
                                                  .domain_size = n,
                                                  .num_buckets = g});
  EXPECT_OK(oracle);
  return *std::move(oracle);
}

// Every (seed, bucket) for one seed.
std::vector<FrequencyReport> LolhBuckets(uint64_t seed, uint32_t g) {
  std::vector<FrequencyReport> all;
  for (uint32_t b = 0; b < g; ++b) {
    all.push_back(HashedReport{.seed = seed, .bucket = b});
  }
  return all;
}

// n·Var at f = 0 for g buckets: the layers' two GRRs composed with real
// (unrounded) probabilities, then the pure-protocol formula with q = 1/g.
double LolhUnitVariance(uint32_t g, double eps_inf, double eps_1) {
  const double a = std::exp(eps_inf), e = std::exp(eps_1), o = g - 1.0;
  const double p1 = a / (a + o), q1 = (1 - p1) / o;
  const double p2 =
      (e * (1 - q1) - (1 - p1)) / (o * p1 - (1 - p1) - e * (o * q1 - (1 - q1)));
  const double big_p = p1 * p2 + (1 - p1) * (1 - p2) / o;
  const double q = 1.0 / g;
  return q * (1 - q) / ((big_p - q) * (big_p - q));
}

TEST(LongitudinalLocalHashing, RejectsInvalidOptions) {
  testing::ExpectCreateRejectsBadEpsilonsAndDomain<LongitudinalLocalHashing>();
  for (uint32_t g : {1u, LongitudinalLocalHashing::kMaxBuckets + 1}) {
    auto oracle = LongitudinalLocalHashing::Create({.epsilon_permanent = 2,
                                                    .epsilon_report = 1,
                                                    .domain_size = 8,
                                                    .num_buckets = g});
    EXPECT_THAT(oracle, StatusIs(absl::StatusCode::kInvalidArgument));
    EXPECT_THAT(std::string(oracle.status().message()),
                HasSubstr("num_buckets"));
  }
}

// The default g is the variance minimizer of the composed layers over a
// range far wider than the scan's bound, whatever ε∞ (one report is GRR over
// [g] at ε1, so its variance is OLH's at ε1: checked against the built
// oracle too).
TEST(LongitudinalLocalHashing, DefaultBucketsMinimizeTheVariance) {
  for (const auto& [eps_inf, eps_1] : {std::pair{1.0, 0.5},
                                       {2.0, 1.0},
                                       {4.0, 1.0},
                                       {4.0, 3.0},
                                       {8.0, 4.0},
                                       {3.0, 2.9}}) {
    SCOPED_TRACE(::testing::Message() << eps_inf << "/" << eps_1);
    const uint32_t best = LongitudinalLocalHashing::BestNumBuckets(eps_1);
    const double best_variance = LolhUnitVariance(best, eps_inf, eps_1);
    for (uint32_t g = 2; g <= 2000; ++g) {
      ASSERT_LE(best_variance, LolhUnitVariance(g, eps_inf, eps_1) * (1 + 1e-9))
          << "g " << g << " beats " << best;
    }
    const auto oracle = MakeLolh(eps_inf, eps_1, 100);
    EXPECT_EQ(oracle->num_buckets(), best);
    const auto olh = *OptimizedLocalHashing::Create(
        {.epsilon = eps_1, .domain_size = 100, .num_buckets = best});
    EXPECT_NEAR(oracle->Variance(0, 1), olh->Variance(0, 1),
                1e-6 * olh->Variance(0, 1));
  }
}

// Reports and memos over 20 seeds of 6 items: per seed, the layers compose
// and each item's probabilities sum to 1; over all of them the ratios reach
// e^{ε1} (one report) and e^{ε∞} (the memo) exactly, which needs a seed
// that separates two items (every one of 20 seeds failing to has
// probability below 2^-20 even at g = 2).
TEST(LongitudinalLocalHashing, PrivacyOfOneReportTheMemoAndManyReports) {
  SeededGenerator gen(31);
  for (uint32_t g : {2u, 3u, 0u}) {
    for (const auto& [eps_inf, eps_1] :
         {std::pair{1.0, 0.5}, {2.0, 1.0}, {4.0, 1.0}}) {
      const auto oracle = MakeLolh(eps_inf, eps_1, 6, g);
      SCOPED_TRACE(::testing::Message() << "g " << oracle->num_buckets()
                                        << " eps " << eps_inf << "/" << eps_1);
      const std::vector<uint32_t> items = testing::AllItems(*oracle);
      std::vector<FrequencyReport> outputs;
      for (int s = 0; s < 20; ++s) {
        const std::vector<FrequencyReport> all =
            LolhBuckets(gen(), oracle->num_buckets());
        for (uint32_t v : items) {
          double total = 0;
          for (const FrequencyReport& w : all)
            total += oracle->Probability(v, w);
          EXPECT_NEAR(total, 1.0, 1e-12);
        }
        testing::ExpectLayersComposeToProbability(*oracle, *oracle, all, all);
        if (s < 3) {
          testing::ExpectRepeatedReportsStayWithinEpsilonInfinity(
              *oracle, *oracle, all, all, 3, /*exact_first=*/false);
        }
        outputs.insert(outputs.end(), all.begin(), all.end());
      }
      const auto ratio = [&](auto probability) {
        return testing::MaxProbabilityRatio<uint32_t, FrequencyReport>(
            items, outputs, probability);
      };
      EXPECT_NEAR(
          std::log(ratio([&](const uint32_t& v, const FrequencyReport& w) {
            return oracle->Probability(v, w);
          })),
          oracle->epsilon(), 1e-9);
      EXPECT_NEAR(
          std::log(ratio([&](const uint32_t& v, const FrequencyReport& m) {
            return oracle->MemoProbability(v, m);
          })),
          oracle->epsilon_infinity(), 1e-9);
      EXPECT_LE(oracle->epsilon(), eps_1);
      EXPECT_GT(oracle->epsilon(), eps_1 - 1e-6);
      EXPECT_LE(oracle->epsilon_infinity(), eps_inf);
      EXPECT_GT(oracle->epsilon_infinity(), eps_inf - 1e-6);
    }
  }
}

// Given the seed, memo and report are GRR around H_seed(v): the offset
// (bucket − H) mod g follows the composed probabilities, and a report keeps
// its memo's seed.
TEST(LongitudinalLocalHashing, SamplesFollowProbability) {
  SeededGenerator gen(32);
  const auto oracle = MakeLolh(3, 1, 50, 4);
  const uint32_t g = oracle->num_buckets();
  constexpr int kDraws = 200'000;
  for (uint32_t v : {0u, 37u}) {
    std::vector<double> observed(g, 0), memo_observed(g, 0), expected(g, 0),
        memo_expected(g, 0);
    for (int i = 0; i < kDraws; ++i) {
      const FrequencyReport memo = oracle->Memoize(v, gen);
      const FrequencyReport report = oracle->RandomizeFromMemo(memo, gen);
      ASSERT_OK(oracle->Validate(report));
      const auto& m = std::get<HashedReport>(memo);
      const auto& r = std::get<HashedReport>(report);
      ASSERT_EQ(m.seed, r.seed);
      const uint32_t y = OptimizedLocalHashing::HashBucket(m.seed, v, g);
      observed[(r.bucket + g - y) % g] += 1;
      memo_observed[(m.bucket + g - y) % g] += 1;
      for (uint32_t offset = 0; offset < g; ++offset) {
        const HashedReport w{.seed = m.seed, .bucket = (y + offset) % g};
        expected[offset] += oracle->Probability(v, w);
        memo_expected[offset] += oracle->MemoProbability(v, w);
      }
    }
    const auto chi = ChiSquare(observed, expected);
    EXPECT_TRUE(chi.Passes()) << "item " << v << " chi2 " << chi.statistic;
    const auto memo_chi = ChiSquare(memo_observed, memo_expected);
    EXPECT_TRUE(memo_chi.Passes())
        << "item " << v << " chi2 " << memo_chi.statistic;
  }
}

TEST(LongitudinalLocalHashing, DrawsClampingAndMalformedMemos) {
  const auto oracle = MakeLolh(2, 1, 40, 5);
  testing::ExpectDrawCountIndependentOfInput(*oracle);
  testing::ExpectOutOfRangeItemsClampToLast(*oracle);
  SeededGenerator a(33), b(33);
  for (int i = 0; i < 50; ++i) {
    EXPECT_EQ(
        oracle->RandomizeFromMemo(HashedReport{.seed = 7, .bucket = 99}, a),
        oracle->RandomizeFromMemo(HashedReport{.seed = 7, .bucket = 4}, b));
    const FrequencyReport foreign = oracle->RandomizeFromMemo(ItemReport{3}, a);
    ASSERT_OK(oracle->Validate(foreign));
    EXPECT_EQ(foreign, oracle->RandomizeFromMemo(HashedReport{}, b));
  }
  EXPECT_THAT(oracle->ValidateMemo(HashedReport{.seed = 1, .bucket = 5}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(oracle->ValidateMemo(ItemReport{0}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_EQ(oracle->ProbabilityFromMemo(HashedReport{.seed = 1, .bucket = 0},
                                        HashedReport{.seed = 2, .bucket = 0}),
            0.0);
}

TEST(LongitudinalLocalHashing, EstimatorIsUnbiasedWithClosedFormVariance) {
  const auto oracle = MakeLolh(2, 1, 4);
  testing::ExpectUnbiasedWithClosedFormVariance(*oracle, {0, 20, 40, 140},
                                                /*repetitions=*/5000,
                                                /*seed=*/34);
}

TEST(LongitudinalLocalHashing, RejectsMalformedReportsAndForeignMerges) {
  const auto oracle = MakeLolh(2, 1, 30, 3);
  testing::ExpectMalformedReportsRejected(
      *oracle, {HashedReport{.seed = 1, .bucket = 3}, ItemReport{0},
                BitVectorReport{}, SubsetReport{}, SketchReport{}});
  const auto other_report = MakeLolh(2, 0.5, 30, 3);
  const auto other_buckets = MakeLolh(2, 1, 30, 4);
  const auto olh = *OptimizedLocalHashing::Create(
      {.epsilon = 1, .domain_size = 30, .num_buckets = 3});
  testing::ExpectMergeEqualsSingleAccumulator(
      *oracle, {other_report.get(), other_buckets.get(), olh.get()}, 1000);
}

}  // namespace
}  // namespace ldp
