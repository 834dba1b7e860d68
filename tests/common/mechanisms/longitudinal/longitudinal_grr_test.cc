#include "common/mechanisms/longitudinal/longitudinal_grr.h"

#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include "common/mechanisms/frequency/generalized_randomized_response.h"
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

std::unique_ptr<LongitudinalGrr> MakeLgrr(double eps_inf, double eps_1,
                                          uint32_t n) {
  auto oracle = LongitudinalGrr::Create({.epsilon_permanent = eps_inf,
                                         .epsilon_report = eps_1,
                                         .domain_size = n});
  EXPECT_OK(oracle);
  return *std::move(oracle);
}

std::vector<FrequencyReport> LgrrItems(uint32_t n) {
  std::vector<FrequencyReport> items;
  for (uint32_t v = 0; v < n; ++v) items.push_back(ItemReport{v});
  return items;
}

int64_t LgrrIndex(const FrequencyReport& report) {
  return std::get<ItemReport>(report).item;
}

TEST(LongitudinalGrr, RejectsInvalidOptions) {
  testing::ExpectCreateRejectsBadEpsilonsAndDomain<LongitudinalGrr>();
  EXPECT_THAT(
      LongitudinalGrr::Create(
          {.epsilon_permanent = 2, .epsilon_report = 1e-13, .domain_size = 8}),
      StatusIs(absl::StatusCode::kInvalidArgument));
}

// The coins against the closed forms of grr_layers.h.
TEST(LongitudinalGrr, CoinsSolveTheStatedClosedForm) {
  for (uint32_t n : {2u, 5u, 64u}) {
    const double eps_inf = 3, eps_1 = 1.2;
    const auto oracle = MakeLgrr(eps_inf, eps_1, n);
    const GrrLayers& layers = oracle->layers();
    const double a = std::exp(eps_inf);
    EXPECT_NEAR(layers.keep_permanent().value(), a / (a + n - 1),
                std::ldexp(1.0, -32));
    const double e = std::exp(eps_1), o = n - 1.0;
    const double p1 = a / (a + o), q1 = (1 - p1) / o;
    const double p2 = (e * (1 - q1) - (1 - p1)) /
                      (o * p1 - (1 - p1) - e * (o * q1 - (1 - q1)));
    EXPECT_NEAR(layers.keep_report().value(), p2, 1e-8) << "N " << n;
    // One report is GRR at ε1: the pure protocol of GRR's coins at ε1.
    const PureProtocol one = oracle->protocol();
    EXPECT_NEAR(one.p + (n - 1) * one.q, 1.0, 1e-12);
    EXPECT_NEAR(one.p, e / (e + o), 1e-8);
    EXPECT_LE(oracle->epsilon(), eps_1);
    EXPECT_GT(oracle->epsilon(), eps_1 - 1e-6);
    EXPECT_EQ(oracle->kind(), FrequencyOracleKind::kLongitudinalGrr);
  }
}

TEST(LongitudinalGrr, PrivacyOfOneReportTheMemoAndManyReports) {
  for (uint32_t n : {2u, 3u, 5u}) {
    for (const auto& [eps_inf, eps_1] :
         {std::pair{1.0, 0.5}, {2.0, 1.0}, {4.0, 1.0}, {6.0, 0.1}}) {
      SCOPED_TRACE(::testing::Message()
                   << "N " << n << " eps " << eps_inf << "/" << eps_1);
      const auto oracle = MakeLgrr(eps_inf, eps_1, n);
      const std::vector<FrequencyReport> all = LgrrItems(n);
      testing::ExpectExactPrivacy(*oracle, all, eps_1);
      testing::ExpectMemoIsEpsilonInfinityPrivate(*oracle, *oracle, all,
                                                  eps_inf);
      testing::ExpectLayersComposeToProbability(*oracle, *oracle, all, all);
      testing::ExpectRepeatedReportsStayWithinEpsilonInfinity(
          *oracle, *oracle, all, all, n == 2 ? 5 : 3);
    }
  }
}

TEST(LongitudinalGrr, EachLayerSamplesFollowItsProbability) {
  const auto oracle = MakeLgrr(2, 1, 5);
  const std::vector<FrequencyReport> all = LgrrItems(5);
  testing::ExpectSamplesFollowProbability(*oracle, all, {0, 4}, 200'000,
                                          LgrrIndex, /*seed=*/21);
  SeededGenerator gen(22);
  const auto memo_result = testing::ChiSquareOfSamples<FrequencyReport>(
      all, 200'000, [&] { return oracle->Memoize(3, gen); },
      [&](const FrequencyReport& m) { return oracle->MemoProbability(3, m); },
      LgrrIndex);
  EXPECT_TRUE(memo_result.Passes()) << memo_result.statistic;
  const FrequencyReport memo = ItemReport{1};
  const auto irr_result = testing::ChiSquareOfSamples<FrequencyReport>(
      all, 200'000, [&] { return oracle->RandomizeFromMemo(memo, gen); },
      [&](const FrequencyReport& r) {
        return oracle->ProbabilityFromMemo(memo, r);
      },
      LgrrIndex);
  EXPECT_TRUE(irr_result.Passes()) << irr_result.statistic;
}

TEST(LongitudinalGrr, DrawsClampingAndMalformedMemos) {
  const auto oracle = MakeLgrr(2, 1, 7);
  testing::ExpectDrawCountIndependentOfInput(*oracle);
  testing::ExpectOutOfRangeItemsClampToLast(*oracle);
  SeededGenerator a(23), b(23);
  EXPECT_EQ(oracle->Memoize(1000, a), oracle->Memoize(6, b));
  // A memo past the domain counts as the last item; a foreign shape as 0.
  for (int i = 0; i < 50; ++i) {
    EXPECT_EQ(oracle->RandomizeFromMemo(ItemReport{99}, a),
              oracle->RandomizeFromMemo(ItemReport{6}, b));
    const FrequencyReport foreign =
        oracle->RandomizeFromMemo(SubsetReport{}, a);
    ASSERT_OK(oracle->Validate(foreign));
    EXPECT_EQ(foreign, oracle->RandomizeFromMemo(ItemReport{0}, b));
  }
  EXPECT_THAT(oracle->ValidateMemo(ItemReport{7}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(oracle->ValidateMemo(BitVectorReport{}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_EQ(oracle->MemoProbability(0, ItemReport{7}), 0.0);
  EXPECT_EQ(oracle->ProbabilityFromMemo(ItemReport{0}, ItemReport{7}), 0.0);
}

TEST(LongitudinalGrr, EstimatorIsUnbiasedWithClosedFormVariance) {
  const auto oracle = MakeLgrr(2, 1, 4);
  testing::ExpectUnbiasedWithClosedFormVariance(*oracle, {0, 20, 40, 140},
                                                /*repetitions=*/5000,
                                                /*seed=*/24);
}

TEST(LongitudinalGrr, RejectsMalformedReportsAndForeignMerges) {
  const auto oracle = MakeLgrr(2, 1, 6);
  testing::ExpectMalformedReportsRejected(
      *oracle, {ItemReport{6}, ItemReport{~0u}, BitVectorReport{},
                HashedReport{}, SubsetReport{}, SketchReport{}});
  const auto other_report = MakeLgrr(2, 0.5, 6);
  const auto other_permanent = MakeLgrr(3, 1, 6);
  const auto grr =
      *GeneralizedRandomizedResponse::Create({.epsilon = 1, .domain_size = 6});
  testing::ExpectMergeEqualsSingleAccumulator(
      *oracle, {other_report.get(), other_permanent.get(), grr.get()}, 1000);
}

}  // namespace
}  // namespace ldp
