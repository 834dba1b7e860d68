#include "common/mechanisms/longitudinal/dbit_flip.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "common/mechanisms/frequency/local_hashing.h"
#include "common/mechanisms/frequency/unary_encoding.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/frequency_oracle_checks.h"
#include "tests/testing/statistics.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using testing::ChiSquare;
using testing::CountingGenerator;
using ::testing::HasSubstr;
using testing::SeededGenerator;
using testing::StatusIs;

std::unique_ptr<DBitFlip> MakeDBitFlip(double epsilon, uint32_t domain_size,
                                       uint32_t sampled_buckets = 0) {
  auto oracle = DBitFlip::Create({.epsilon = epsilon,
                                  .domain_size = domain_size,
                                  .sampled_buckets = sampled_buckets});
  EXPECT_OK(oracle);
  return *std::move(oracle);
}

// Every report with this seed: the 2^d bit patterns.
std::vector<FrequencyReport> DBitAllReports(uint64_t seed, uint32_t d) {
  std::vector<FrequencyReport> reports;
  for (uint64_t bits = 0; bits < (uint64_t{1} << d); ++bits) {
    reports.push_back(
        HashedReport{.seed = seed, .bucket = static_cast<uint32_t>(bits)});
  }
  return reports;
}

// The position of v among the sampled buckets, or d when v is not sampled.
uint32_t DBitPosition(const DBitFlip::Buckets& sampled, uint32_t v) {
  const auto span = sampled.span();
  return static_cast<uint32_t>(std::find(span.begin(), span.end(), v) -
                               span.begin());
}

TEST(DBitFlip, RejectsBadOptionsAndDefaultsToAllBucketsUpTo32) {
  testing::ExpectCreateRejectsBadEpsilonAndDomain<DBitFlip>();
  EXPECT_THAT(DBitFlip::Create({.epsilon = 21, .domain_size = 8}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(
      DBitFlip::Create({.epsilon = 1e-12, .domain_size = 8}),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("too small")));
  for (const auto& [n, d] : {std::pair{5u, 6u}, {100u, 33u}, {2u, 3u}}) {
    EXPECT_THAT(DBitFlip::Create(
                    {.epsilon = 1, .domain_size = n, .sampled_buckets = d}),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr("sampled_buckets")))
        << n << " " << d;
  }
  for (const auto& [n, d, expected] : {std::tuple{5u, 0u, 5u},
                                       {32u, 0u, 32u},
                                       {1000u, 0u, 32u},
                                       {9u, 7u, 7u}}) {
    EXPECT_EQ(MakeDBitFlip(1, n, d)->sampled_buckets(), expected);
  }
  EXPECT_EQ(MakeDBitFlip(1, 1000)->kind(), FrequencyOracleKind::kDBitFlip);
  EXPECT_EQ(FrequencyOracleKindName(FrequencyOracleKind::kDBitFlip),
            "dbit_flip");
}

// Two bits can separate two items only when d ≥ 2.
TEST(DBitFlip, BitsSpendHalfOfEpsilonOnlyWhenTwoCanDiffer) {
  for (double epsilon : {0.5, 2.0, 20.0}) {
    for (uint32_t d : {1u, 2u, 32u}) {
      const auto oracle = MakeDBitFlip(epsilon, 64, d);
      const double e = std::exp(d == 1 ? epsilon : epsilon / 2);
      const double p = oracle->keep_probability();
      EXPECT_LE(p, e / (e + 1));
      EXPECT_GT(p, e / (e + 1) - std::ldexp(1.0, -32));
      EXPECT_NEAR(oracle->epsilon(), (d == 1 ? 1 : 2) * std::log(p / (1 - p)),
                  1e-12);
      EXPECT_LE(oracle->epsilon(), epsilon);
      EXPECT_GT(oracle->epsilon(), epsilon - (epsilon < 10 ? 1e-6 : 0.2));
      EXPECT_EQ(oracle->epsilon_infinity(), oracle->epsilon());
    }
  }
}

// Known answers from an independent implementation of the stated stream, so
// that agents in other languages can check theirs.
TEST(DBitFlip, SampledBucketsMatchTheSpecifiedStream) {
  auto sampled = [](uint64_t seed, uint32_t n, uint32_t d) {
    const DBitFlip::Buckets buckets = DBitFlip::SampledBuckets(seed, n, d);
    return std::vector<uint32_t>(buckets.span().begin(), buckets.span().end());
  };
  EXPECT_EQ(sampled(0, 10, 3), (std::vector<uint32_t>{7, 3, 0}));
  EXPECT_EQ(sampled(0x0123456789abcdef, 1000, 8),
            (std::vector<uint32_t>{83, 828, 184, 633, 4, 80, 721, 535}));
  EXPECT_EQ(sampled(42, 2, 1), (std::vector<uint32_t>{1}));
  EXPECT_EQ(sampled(12345, 5, 5), (std::vector<uint32_t>{0, 1, 2, 3, 4}));
  const std::vector<uint32_t> big = sampled(~uint64_t{0}, 1u << 20, 32);
  EXPECT_EQ(std::vector<uint32_t>(big.begin(), big.begin() + 3),
            (std::vector<uint32_t>{937339, 956900, 230137}));
  EXPECT_EQ(big.size(), 32u);
  EXPECT_EQ(big.back(), 910005u);
  // d is clamped to min(N, 32).
  EXPECT_EQ(sampled(7, 3, 10).size(), 3u);
  EXPECT_EQ(sampled(7, 100, 40).size(), 32u);
}

TEST(DBitFlip, SampledBucketsAreDistinctAndEachIncludedAtRateDOverN) {
  SeededGenerator gen(31);
  constexpr int kSeeds = 100'000;
  for (const auto& [n, d] :
       {std::pair{5u, 2u}, {7u, 3u}, {40u, 32u}, {33u, 1u}, {3u, 3u}}) {
    std::vector<double> included(n, 0);
    // How often each subset is drawn, when N is small enough to list them.
    std::vector<double> subsets(n <= 7 ? 1u << n : 0, 0);
    for (int i = 0; i < kSeeds; ++i) {
      const uint64_t seed = gen();
      const DBitFlip::Buckets s = DBitFlip::SampledBuckets(seed, n, d);
      ASSERT_EQ(s.size, d);
      ASSERT_EQ(s, DBitFlip::SampledBuckets(seed, n, d));
      uint64_t subset = 0;
      for (uint32_t b : s.span()) {
        ASSERT_LT(b, n);
        ASSERT_EQ(subset >> b & 1, 0u) << "bucket " << b << " twice";
        subset |= uint64_t{1} << b;
        included[b] += 1;
      }
      if (n <= 7) subsets[subset] += 1;
    }
    const double rate = static_cast<double>(d) / n;
    const double sigma = std::sqrt(kSeeds * rate * (1 - rate));
    for (uint32_t b = 0; b < n; ++b) {
      EXPECT_LE(std::abs(included[b] - kSeeds * rate), 5 * sigma + 1e-9)
          << "N " << n << " d " << d << " bucket " << b;
    }
    if (n == 5) {  // all C(5, 2) = 10 subsets equally likely
      std::vector<double> observed, expected;
      for (uint64_t subset = 0; subset < subsets.size(); ++subset) {
        if (std::popcount(subset) != 2) continue;
        observed.push_back(subsets[subset]);
        expected.push_back(kSeeds / 10.0);
      }
      EXPECT_TRUE(ChiSquare(observed, expected).Passes());
    }
  }
}

// Seeds are public: per seed, enumerate the 2^d reports. The max ratio is
// e^{epsilon()} for every seed (some sampled bucket separates two items).
TEST(DBitFlip, EnumeratedPrivacyLossIsExactPerSeed) {
  SeededGenerator gen(32);
  for (uint32_t n : {2u, 3u, 5u}) {
    for (uint32_t d : {1u, 2u, n}) {
      for (double epsilon : {0.5, 2.0, 6.0}) {
        SCOPED_TRACE(::testing::Message()
                     << "N " << n << " d " << d << " eps " << epsilon);
        const auto oracle = MakeDBitFlip(epsilon, n, d);
        for (int s = 0; s < 10; ++s) {
          testing::ExpectExactPrivacy(*oracle, DBitAllReports(gen(), d),
                                      epsilon);
        }
      }
    }
  }
}

// Given its seed, a sample's bits follow Probability. Bins: (position of
// the item among the sampled buckets, or d) × bit pattern.
TEST(DBitFlip, SamplesFollowProbabilityGivenTheSeed) {
  SeededGenerator gen(33);
  constexpr int kDraws = 100'000;
  for (const auto& [n, d, epsilon] :
       {std::tuple{5u, 2u, 1.0}, {4u, 1u, 1.0}, {3u, 3u, 2.0}}) {
    const auto oracle = MakeDBitFlip(epsilon, n, d);
    const uint32_t patterns = 1u << d;
    for (uint32_t v : {0u, n - 1}) {
      std::vector<double> observed((d + 1) * patterns, 0);
      std::vector<double> expected(observed.size(), 0);
      for (int i = 0; i < kDraws; ++i) {
        const FrequencyReport report = oracle->Randomize(v, gen);
        ASSERT_OK(oracle->Validate(report));
        const auto& r = std::get<HashedReport>(report);
        const uint32_t row =
            DBitPosition(DBitFlip::SampledBuckets(r.seed, n, d), v) * patterns;
        observed[row + r.bucket] += 1;
        for (uint32_t bits = 0; bits < patterns; ++bits) {
          expected[row + bits] += oracle->Probability(
              v, HashedReport{.seed = r.seed, .bucket = bits});
        }
      }
      const auto chi = ChiSquare(observed, expected);
      EXPECT_TRUE(chi.Passes()) << "N " << n << " d " << d << " item " << v
                                << " chi2 " << chi.statistic;
    }
  }
}

// One report: f̂_v = (N/d)(b_v − q)/(p − q) on its sampled buckets, else 0.
TEST(DBitFlip, OneReportSupportsExactlyItsSampledBuckets) {
  SeededGenerator gen(34);
  const auto oracle = MakeDBitFlip(1.0, 50, 6);
  const double p = oracle->keep_probability(), q = 1 - p;
  for (int rep = 0; rep < 20; ++rep) {
    const HashedReport report{.seed = gen(),
                              .bucket = static_cast<uint32_t>(gen() & 63)};
    auto accumulator = oracle->NewAccumulator();
    ASSERT_OK(accumulator->Add(report));
    const HistogramEstimate estimate = accumulator->Estimate();
    const DBitFlip::Buckets s = DBitFlip::SampledBuckets(report.seed, 50, 6);
    for (uint32_t v = 0; v < 50; ++v) {
      const uint32_t i = DBitPosition(s, v);
      const double expected =
          i == 6 ? 0.0 : (50.0 / 6) * ((report.bucket >> i & 1) - q) / (p - q);
      ASSERT_NEAR(estimate.frequencies[v], expected, 1e-9) << "item " << v;
    }
  }
  const HistogramEstimate empty = oracle->NewAccumulator()->Estimate();
  EXPECT_EQ(empty.frequencies, std::vector<double>(50, 0.0));
  EXPECT_TRUE(std::isinf(empty.variances[0]));
}

TEST(DBitFlip, VarianceIsTheClosedFormAndSueAtFullSampling) {
  const auto oracle = MakeDBitFlip(1.0, 64, 8);
  const double p = oracle->keep_probability(), q = 1 - p;
  for (double f : {0.0, 0.25, 1.0}) {
    EXPECT_NEAR(oracle->Variance(f, 1000),
                (8 * p * q / ((p - q) * (p - q)) + f * 7) / 1000, 1e-15);
  }
  EXPECT_TRUE(std::isinf(oracle->Variance(0.5, 0)));
  const auto full = MakeDBitFlip(2.0, 16, 16);
  const auto sue =
      *UnaryEncoding::Create({.epsilon = 2.0,
                              .domain_size = 16,
                              .variant = UnaryEncodingVariant::kSymmetric});
  for (double f : {0.0, 0.3, 1.0}) {
    EXPECT_NEAR(full->Variance(f, 500) / sue->Variance(f, 500), 1.0, 1e-12);
  }
}

TEST(DBitFlip, EstimatorIsUnbiasedWithClosedFormVariance) {
  for (const auto& [d, epsilon] : {std::pair{2u, 1.0}, {1u, 1.0}, {4u, 2.0}}) {
    SCOPED_TRACE(::testing::Message() << "d " << d << " eps " << epsilon);
    const auto oracle = MakeDBitFlip(epsilon, 4, d);
    testing::ExpectUnbiasedWithClosedFormVariance(
        *oracle, {0, 20, 40, 140}, /*repetitions=*/5000, /*seed=*/35 + d);
  }
}

TEST(DBitFlip, DrawsAndClampingDoNotDependOnTheInput) {
  for (const auto& [n, d] : {std::pair{40u, 32u}, {5u, 2u}, {3u, 1u}}) {
    const auto oracle = MakeDBitFlip(1.0, n, d);
    testing::ExpectDrawCountIndependentOfInput(*oracle);
    testing::ExpectOutOfRangeItemsClampToLast(*oracle);
    SeededGenerator a(36), b(36);
    EXPECT_EQ(oracle->Memoize(1000, a), oracle->Memoize(n - 1, b));
  }
}

TEST(DBitFlip, RejectsMalformedReports) {
  const auto oracle = MakeDBitFlip(1.0, 40, 5);
  testing::ExpectMalformedReportsRejected(
      *oracle, {HashedReport{.seed = 7, .bucket = 32},
                HashedReport{.seed = 7, .bucket = 0xFFFFFFFF},
                ItemReport{.item = 1}, BitVectorReport{.words = {1}},
                SubsetReport{.items = {1}}, SketchReport{}});
  EXPECT_THAT(
      oracle->Validate(ItemReport{.item = 1}),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("HashedReport")));
  EXPECT_THAT(oracle->Validate(HashedReport{.seed = 7, .bucket = 32}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("past sampled_buckets")));
  // With d = 32 every bucket value is a bit pattern.
  EXPECT_OK(MakeDBitFlip(1.0, 40)->Validate(
      HashedReport{.seed = 7, .bucket = 0xFFFFFFFF}));
}

TEST(DBitFlip, MergeEqualsOneAccumulator) {
  const auto oracle = MakeDBitFlip(1.0, 40, 5);
  const auto other_epsilon = MakeDBitFlip(2.0, 40, 5);
  const auto other_d = MakeDBitFlip(1.0, 40, 6);
  const auto other_n = MakeDBitFlip(1.0, 41, 5);
  const auto olh =
      *OptimizedLocalHashing::Create({.epsilon = 1.0, .domain_size = 40});
  testing::ExpectMergeEqualsSingleAccumulator(
      *oracle, {other_epsilon.get(), other_d.get(), other_n.get(), olh.get()},
      1000);
}

// A memo is returned as is, drawing nothing; a malformed one is normalized.
TEST(DBitFlip, RandomizeFromMemoRepeatsTheMemoAndDrawsNothing) {
  const auto oracle = MakeDBitFlip(1.0, 40, 5);
  SeededGenerator a(37), b(37);
  CountingGenerator counting(38);
  for (uint32_t v = 0; v < 40; ++v) {
    const FrequencyReport memo = oracle->Memoize(v, a);
    EXPECT_EQ(memo, oracle->Randomize(v, b));
    ASSERT_OK(oracle->ValidateMemo(memo));
    EXPECT_EQ(oracle->MemoProbability(v, memo), oracle->Probability(v, memo));
    EXPECT_EQ(oracle->RandomizeFromMemo(memo, counting), memo);
  }
  const std::vector<std::pair<FrequencyReport, FrequencyReport>> malformed = {
      {HashedReport{.seed = 9, .bucket = 0xFFFFFFE5},
       HashedReport{.seed = 9, .bucket = 0x05}},
      {ItemReport{.item = 3}, HashedReport{}},
      {SketchReport{}, HashedReport{}}};
  for (const auto& [memo, normalized] : malformed) {
    EXPECT_THAT(oracle->ValidateMemo(memo),
                StatusIs(absl::StatusCode::kInvalidArgument));
    EXPECT_EQ(oracle->MemoProbability(0, memo), 0.0);
    const FrequencyReport report = oracle->RandomizeFromMemo(memo, counting);
    EXPECT_EQ(report, normalized);
    ASSERT_OK(oracle->Validate(report));
    EXPECT_EQ(oracle->ProbabilityFromMemo(memo, report), 0.0);
  }
  EXPECT_EQ(counting.draws(), 0);
}

// Σ_memo MemoProbability(v, memo)·ProbabilityFromMemo(memo, w) =
// Probability(v, w) over the reports of two seeds (memos of one seed never
// yield reports of another). ProbabilityFromMemo is the identity, so T
// reports from one memo are the memo T times and leak exactly ε∞ = ε.
TEST(DBitFlip, MemoComposesToTheOneReportProbability) {
  for (uint32_t d : {1u, 2u, 3u}) {
    const auto oracle = MakeDBitFlip(1.5, 3, d);
    std::vector<FrequencyReport> all = DBitAllReports(11, d);
    for (const FrequencyReport& r : DBitAllReports(12, d)) all.push_back(r);
    for (const FrequencyReport& w : all) {
      for (const FrequencyReport& memo : all) {
        EXPECT_EQ(oracle->ProbabilityFromMemo(memo, w), memo == w ? 1.0 : 0.0);
      }
      EXPECT_EQ(oracle->ProbabilityFromMemo(w, ItemReport{}), 0.0);
      for (uint32_t v = 0; v < 3; ++v) {
        double total = 0;
        for (const FrequencyReport& memo : all) {
          total += oracle->MemoProbability(v, memo) *
                   oracle->ProbabilityFromMemo(memo, w);
        }
        EXPECT_NEAR(total, oracle->Probability(v, w), 1e-15);
      }
    }
  }
}

}  // namespace
}  // namespace ldp
