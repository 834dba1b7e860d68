#include "common/mechanisms/frequency/unary_encoding.h"

#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "common/mechanisms/frequency/generalized_randomized_response.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/frequency_oracle_checks.h"
#include "tests/testing/statistics.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using ::testing::HasSubstr;
using testing::StatusIs;

constexpr UnaryEncodingVariant kVariants[] = {UnaryEncodingVariant::kOptimized,
                                              UnaryEncodingVariant::kSymmetric};

std::unique_ptr<UnaryEncoding> MakeUe(double epsilon, uint32_t domain_size,
                                      UnaryEncodingVariant variant) {
  auto ue = UnaryEncoding::Create(
      {.epsilon = epsilon, .domain_size = domain_size, .variant = variant});
  EXPECT_OK(ue);
  return *std::move(ue);
}

// Every N-bit vector (N ≤ 16), as one-word reports.
std::vector<FrequencyReport> AllBitVectors(uint32_t num_bits) {
  std::vector<FrequencyReport> outputs;
  for (uint64_t w = 0; w < (uint64_t{1} << num_bits); ++w) {
    outputs.push_back(BitVectorReport{.words = {w}});
  }
  return outputs;
}

int64_t WordIndex(const FrequencyReport& report) {
  return static_cast<int64_t>(std::get<BitVectorReport>(report).words[0]);
}

std::string Name(UnaryEncodingVariant variant) {
  return variant == UnaryEncodingVariant::kOptimized ? "OUE" : "SUE";
}

TEST(UnaryEncoding, RejectsInvalidOptions) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (double epsilon : {0.0, -1.0, nan, 21.0}) {
    auto ue = UnaryEncoding::Create({.epsilon = epsilon, .domain_size = 8});
    EXPECT_THAT(ue, StatusIs(absl::StatusCode::kInvalidArgument)) << epsilon;
    EXPECT_THAT(std::string(ue.status().message()), HasSubstr("epsilon"));
  }
  for (uint32_t n : {0u, 1u, (1u << 20) + 1}) {
    auto ue = UnaryEncoding::Create({.epsilon = 1, .domain_size = n});
    EXPECT_THAT(ue, StatusIs(absl::StatusCode::kInvalidArgument)) << n;
    EXPECT_THAT(std::string(ue.status().message()), HasSubstr("domain_size"));
  }
  EXPECT_THAT(
      UnaryEncoding::Create({.epsilon = 1,
                             .domain_size = 8,
                             .variant = static_cast<UnaryEncodingVariant>(7)}),
      StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(UnaryEncoding::Create({.epsilon = 1e-12, .domain_size = 8}),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(UnaryEncoding, ParametersAreTheRoundedPaperValues) {
  const double e = std::exp(1.0);
  const auto oue = MakeUe(1.0, 8, UnaryEncodingVariant::kOptimized);
  EXPECT_EQ(oue->kind(), FrequencyOracleKind::kOptimizedUnaryEncoding);
  EXPECT_EQ(oue->p(), 0.5);
  EXPECT_GE(oue->q(), 1 / (e + 1));
  EXPECT_LT(oue->q(), 1 / (e + 1) + std::ldexp(1.0, -32));
  const auto sue = MakeUe(1.0, 8, UnaryEncodingVariant::kSymmetric);
  EXPECT_EQ(sue->kind(), FrequencyOracleKind::kSymmetricUnaryEncoding);
  const double half = std::exp(0.5);
  EXPECT_LE(sue->p(), half / (half + 1));
  EXPECT_GT(sue->p(), half / (half + 1) - std::ldexp(1.0, -32));
  EXPECT_EQ(sue->q(), 1 - sue->p());
}

TEST(UnaryEncoding, EpsilonIsExactByEnumeration) {
  for (UnaryEncodingVariant variant : kVariants) {
    for (uint32_t n : {2u, 3u, 6u, 10u}) {
      for (double epsilon : {0.05, 0.5, 1.0, 3.0, 7.0}) {
        SCOPED_TRACE(::testing::Message()
                     << Name(variant) << " N " << n << " eps " << epsilon);
        testing::ExpectExactPrivacy(*MakeUe(epsilon, n, variant),
                                    AllBitVectors(n), epsilon);
      }
    }
  }
}

TEST(UnaryEncoding, SamplesFollowProbability) {
  for (UnaryEncodingVariant variant : kVariants) {
    SCOPED_TRACE(Name(variant));
    const auto ue = MakeUe(1.0, 5, variant);
    testing::ExpectSamplesFollowProbability(*ue, AllBitVectors(5), {0, 2, 4},
                                            300'000, WordIndex, /*seed=*/6);
  }
}

// Reports longer than one word: the padding is zero and every position,
// including ones in the last partial word, is a coin of the right bias.
TEST(UnaryEncoding, MultiWordReportsHaveTheRightMarginals) {
  constexpr uint32_t kBits = 130;
  constexpr int kDraws = 200'000;
  const auto oue = MakeUe(1.0, kBits, UnaryEncodingVariant::kOptimized);
  testing::SeededGenerator gen(8);
  std::vector<double> ones(kBits, 0);
  for (int i = 0; i < kDraws; ++i) {
    const auto report = std::get<BitVectorReport>(oue->Randomize(129, gen));
    ASSERT_EQ(report.words.size(), 3u);
    ASSERT_EQ(report.words[2] >> 2, 0u) << "padding bits set";
    for (uint32_t b = 0; b < kBits; ++b) {
      ones[b] += (report.words[b / 64] >> (b % 64)) & 1;
    }
  }
  for (uint32_t b : {0u, 63u, 64u, 127u, 128u, 129u}) {
    const double p = b == 129 ? oue->p() : oue->q();
    const auto result = testing::ChiSquare({ones[b], kDraws - ones[b]},
                                           {kDraws * p, kDraws * (1 - p)});
    EXPECT_TRUE(result.Passes()) << "bit " << b << " chi2 " << result.statistic;
  }
}

TEST(UnaryEncoding, DrawsAndClampingDoNotDependOnTheInput) {
  for (UnaryEncodingVariant variant : kVariants) {
    SCOPED_TRACE(Name(variant));
    const auto ue = MakeUe(1.0, 70, variant);
    testing::ExpectDrawCountIndependentOfInput(*ue);
    testing::ExpectOutOfRangeItemsClampToLast(*ue);
  }
}

TEST(UnaryEncoding, EstimatorIsUnbiasedWithClosedFormVariance) {
  // N = 70 spans two words; the population includes empty items.
  std::vector<int64_t> counts(70, 0);
  for (uint32_t v = 0; v < 70; v += 3) counts[v] = 2 + v % 17;
  counts[69] = 120;
  for (UnaryEncodingVariant variant : kVariants) {
    SCOPED_TRACE(Name(variant));
    const auto ue = MakeUe(1.0, 70, variant);
    testing::ExpectUnbiasedWithClosedFormVariance(
        *ue, counts, /*repetitions=*/5000, /*seed=*/9,
        [&](double f, int64_t n) { return ue->Variance(f, n); });
  }
}

TEST(UnaryEncoding, VarianceMatchesThePapers) {
  const double e = std::exp(1.0);
  const double n = 1000;
  // Wang et al. 2017: OUE 4e^ε/(n(e^ε − 1)²) + f/n; SUE (f = 0)
  // e^{ε/2}/(n(e^{ε/2} − 1)²). The rounded coins move these by ~1e-9.
  const auto oue = MakeUe(1.0, 8, UnaryEncodingVariant::kOptimized);
  EXPECT_NEAR(oue->Variance(0.3, 1000) * n, 4 * e / ((e - 1) * (e - 1)) + 0.3,
              1e-7);
  const auto sue = MakeUe(1.0, 8, UnaryEncodingVariant::kSymmetric);
  const double h = std::exp(0.5);
  EXPECT_NEAR(sue->Variance(0.0, 1000) * n, h / ((h - 1) * (h - 1)), 1e-7);
}

TEST(UnaryEncoding, RejectsMalformedReports) {
  const auto ue = MakeUe(1.0, 70, UnaryEncodingVariant::kOptimized);
  testing::ExpectMalformedReportsRejected(
      *ue, {BitVectorReport{}, BitVectorReport{.words = {0}},
            BitVectorReport{.words = {0, 0, 0}},
            BitVectorReport{.words = {0, uint64_t{1} << 6}},  // bit 70
            BitVectorReport{.words = {0, ~uint64_t{0}}}, ItemReport{1},
            HashedReport{}, SubsetReport{.items = {1}}, SketchReport{}});
  // Exactly 64 bits: no padding, so the top bit is a real position.
  const auto full = MakeUe(1.0, 64, UnaryEncodingVariant::kSymmetric);
  EXPECT_OK(full->Validate(BitVectorReport{.words = {~uint64_t{0}}}));
  testing::ExpectMalformedReportsRejected(
      *full, {BitVectorReport{.words = {0, 0}}, BitVectorReport{}});
}

// The length is part of the report: a vector whose words and padding fit N
// but whose num_bits is not N is refused by Validate and by the
// accumulator's fast path alike. num_bits = 0 marks a legacy stored report
// (frequency_report.h) and is checked by its words alone.
TEST(UnaryEncoding, RequiresExactlyNBits) {
  for (UnaryEncodingVariant variant : kVariants) {
    SCOPED_TRACE(Name(variant));
    const auto ue = MakeUe(1.0, 8, variant);
    std::vector<FrequencyReport> wrong;
    for (uint32_t num_bits : {1u, 7u, 9u, 64u}) {
      wrong.push_back(BitVectorReport{.words = {0x5}, .num_bits = num_bits});
    }
    testing::ExpectMalformedReportsRejected(*ue, wrong);
    const absl::Status nine = ue->Validate(wrong[2]);
    EXPECT_THAT(std::string(nine.message()),
                HasSubstr("report has 9 bits; this task's reports have "
                          "exactly 8"));
    const FrequencyReport exact =
        BitVectorReport{.words = {0x5}, .num_bits = 8};
    const FrequencyReport legacy = BitVectorReport{.words = {0x5}};
    EXPECT_OK(ue->Validate(exact));
    EXPECT_OK(ue->Validate(legacy));
    const std::unique_ptr<FrequencyAccumulator> accumulator =
        ue->NewAccumulator();
    EXPECT_OK(accumulator->Add(exact));
    EXPECT_OK(accumulator->Add(legacy));
    EXPECT_EQ(accumulator->num_reports(), 2);
    // A legacy report still needs the right words and zero padding.
    EXPECT_THAT(ue->Validate(BitVectorReport{.words = {0x105}}),
                StatusIs(absl::StatusCode::kInvalidArgument));
  }
}

TEST(UnaryEncoding, ReportsCarryTheirLength) {
  testing::SeededGenerator gen(3);
  for (uint32_t n : {2u, 8u, 64u, 130u}) {
    const auto ue = MakeUe(1.0, n, UnaryEncodingVariant::kOptimized);
    EXPECT_EQ(std::get<BitVectorReport>(ue->Randomize(1, gen)).num_bits, n);
  }
}

TEST(UnaryEncoding, MergeEqualsOneAccumulator) {
  const auto oue = MakeUe(1.0, 70, UnaryEncodingVariant::kOptimized);
  const auto sue = MakeUe(1.0, 70, UnaryEncodingVariant::kSymmetric);
  const auto other_epsilon = MakeUe(2.0, 70, UnaryEncodingVariant::kOptimized);
  const auto other_domain = MakeUe(1.0, 71, UnaryEncodingVariant::kOptimized);
  const auto grr =
      *GeneralizedRandomizedResponse::Create({.epsilon = 1, .domain_size = 70});
  // 1000 reports cross several flushes of the bit-sliced counter.
  testing::ExpectMergeEqualsSingleAccumulator(
      *oue, {sue.get(), other_epsilon.get(), other_domain.get(), grr.get()},
      1000);
  testing::ExpectMergeEqualsSingleAccumulator(*sue, {oue.get()}, 1000);
}

}  // namespace
}  // namespace ldp
