#include "common/mechanisms/frequency/generalized_randomized_response.h"

#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include "common/mechanisms/frequency/unary_encoding.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/frequency_oracle_checks.h"
#include "tests/testing/statistics.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using ::testing::HasSubstr;
using testing::StatusIs;

std::unique_ptr<GeneralizedRandomizedResponse> MakeGrr(double epsilon,
                                                       uint32_t domain_size) {
  auto grr = GeneralizedRandomizedResponse::Create(
      {.epsilon = epsilon, .domain_size = domain_size});
  EXPECT_OK(grr);
  return *std::move(grr);
}

std::vector<FrequencyReport> AllItems(uint32_t domain_size) {
  std::vector<FrequencyReport> outputs;
  for (uint32_t v = 0; v < domain_size; ++v) outputs.push_back(ItemReport{v});
  return outputs;
}

int64_t ItemIndex(const FrequencyReport& report) {
  return std::get<ItemReport>(report).item;
}

TEST(GeneralizedRandomizedResponse, RejectsInvalidOptions) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  for (double epsilon : {0.0, -1.0, nan, inf, 20.5}) {
    EXPECT_THAT(GeneralizedRandomizedResponse::Create(
                    {.epsilon = epsilon, .domain_size = 4}),
                StatusIs(absl::StatusCode::kInvalidArgument))
        << epsilon;
  }
  auto negative =
      GeneralizedRandomizedResponse::Create({.epsilon = -1, .domain_size = 4});
  EXPECT_THAT(std::string(negative.status().message()),
              HasSubstr("epsilon must be finite and in (0, 20], got -1"));
  for (uint32_t n : {0u, 1u, (1u << 24) + 1}) {
    auto grr =
        GeneralizedRandomizedResponse::Create({.epsilon = 1, .domain_size = n});
    EXPECT_THAT(grr, StatusIs(absl::StatusCode::kInvalidArgument)) << n;
    EXPECT_THAT(std::string(grr.status().message()), HasSubstr("domain_size"));
  }
  // So small that the rounded keep probability is no better than chance.
  EXPECT_THAT(GeneralizedRandomizedResponse::Create(
                  {.epsilon = 1e-12, .domain_size = 1000}),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(GeneralizedRandomizedResponse, RoundsTheKeepProbabilityDown) {
  const double e = std::exp(1.0);
  const auto grr = MakeGrr(1.0, 10);
  EXPECT_EQ(grr->kind(), FrequencyOracleKind::kGeneralizedRandomizedResponse);
  EXPECT_EQ(grr->domain_size(), 10u);
  EXPECT_LE(grr->keep_probability(), e / (e + 9));
  EXPECT_GT(grr->keep_probability(), e / (e + 9) - std::ldexp(1.0, -32));
  EXPECT_DOUBLE_EQ(grr->other_probability(), (1 - grr->keep_probability()) / 9);
}

TEST(GeneralizedRandomizedResponse, EpsilonIsExactByEnumeration) {
  for (uint32_t n : {2u, 3u, 5u, 16u, 1024u}) {
    for (double epsilon : {0.05, 0.5, 1.0, 2.0, 5.0}) {
      SCOPED_TRACE(::testing::Message() << "N " << n << " eps " << epsilon);
      testing::ExpectExactPrivacy(*MakeGrr(epsilon, n), AllItems(n), epsilon);
    }
  }
}

// At large ε the flip probability is tiny and the 2^-32 grid costs more ε,
// about 2^-32/(p(1 − p)); the bound still holds exactly.
TEST(GeneralizedRandomizedResponse, LargeEpsilonStaysBelowTheRequest) {
  for (uint32_t n : {2u, 16u}) {
    const double epsilon = 19.5;
    const auto grr = MakeGrr(epsilon, n);
    const double p = grr->keep_probability();
    testing::ExpectExactPrivacy(
        *grr, AllItems(n), epsilon,
        /*max_rounding_loss=*/std::ldexp(1.0, -32) / (p * (1 - p)));
  }
}

// Warner (1965): with two items GRR keeps the true answer with probability
// e^ε/(1 + e^ε) and flips it otherwise.
TEST(GeneralizedRandomizedResponse, TwoItemsIsWarnerRandomizedResponse) {
  const double epsilon = std::log(3.0);  // keep 3/4: exactly representable
  const auto warner = MakeGrr(epsilon, 2);
  EXPECT_EQ(warner->keep_probability(), 0.75);
  EXPECT_EQ(warner->other_probability(), 0.25);
  EXPECT_EQ(warner->Probability(1, ItemReport{1}), 0.75);
  EXPECT_EQ(warner->Probability(1, ItemReport{0}), 0.25);
  EXPECT_NEAR(warner->epsilon(), epsilon, 1e-15);
  testing::ExpectExactPrivacy(*warner, AllItems(2), epsilon);
  testing::ExpectSamplesFollowProbability(*warner, AllItems(2), {0, 1}, 500'000,
                                          ItemIndex, /*seed=*/2);
  testing::ExpectUnbiasedWithClosedFormVariance(
      *warner, {300, 700}, /*repetitions=*/5000, /*seed=*/3,
      [&](double f, int64_t n) { return warner->Variance(f, n); });
}

TEST(GeneralizedRandomizedResponse, SamplesFollowProbability) {
  const auto grr = MakeGrr(1.0, 7);
  testing::ExpectSamplesFollowProbability(*grr, AllItems(7), {0, 3, 6}, 300'000,
                                          ItemIndex, /*seed=*/4);
}

TEST(GeneralizedRandomizedResponse, DrawsAndClampingDoNotDependOnTheInput) {
  const auto grr = MakeGrr(1.0, 13);
  testing::ExpectDrawCountIndependentOfInput(*grr);
  testing::ExpectOutOfRangeItemsClampToLast(*grr);
}

TEST(GeneralizedRandomizedResponse, EstimatorIsUnbiasedWithClosedFormVariance) {
  const auto grr = MakeGrr(1.0, 8);
  // Wang et al. 2017: Var = (e^ε + N − 2)/(n(e^ε − 1)²) + f(N − 2)/(n(e^ε − 1))
  // for the unrounded p; the rounded one differs by ~1e-9 relative.
  const double e = std::exp(1.0);
  EXPECT_NEAR(grr->Variance(0.2, 100),
              ((e + 6) / ((e - 1) * (e - 1)) + 0.2 * 6 / (e - 1)) / 100, 1e-9);
  testing::ExpectUnbiasedWithClosedFormVariance(
      *grr, {0, 20, 40, 60, 80, 100, 150, 50}, /*repetitions=*/5000,
      /*seed=*/5, [&](double f, int64_t n) { return grr->Variance(f, n); });
}

TEST(GeneralizedRandomizedResponse, RejectsMalformedReports) {
  const auto grr = MakeGrr(1.0, 5);
  testing::ExpectMalformedReportsRejected(
      *grr,
      {ItemReport{5}, ItemReport{~uint32_t{0}}, BitVectorReport{.words = {1}},
       HashedReport{}, SubsetReport{}, SketchReport{}});
}

TEST(GeneralizedRandomizedResponse, MergeEqualsOneAccumulator) {
  const auto grr = MakeGrr(1.0, 5);
  const auto other_epsilon = MakeGrr(2.0, 5);
  const auto other_domain = MakeGrr(1.0, 6);
  const auto other_kind =
      *UnaryEncoding::Create({.epsilon = 1.0, .domain_size = 5});
  testing::ExpectMergeEqualsSingleAccumulator(
      *grr, {other_epsilon.get(), other_domain.get(), other_kind.get()}, 1000);
}

}  // namespace
}  // namespace ldp
