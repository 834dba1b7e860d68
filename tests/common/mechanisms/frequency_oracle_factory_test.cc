#include "common/mechanisms/frequency_oracle_factory.h"

#include <cmath>

#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using testing::StatusIs;

TEST(CreateFrequencyOracle, BuildsEveryKind) {
  for (FrequencyOracleKind kind :
       {FrequencyOracleKind::kGeneralizedRandomizedResponse,
        FrequencyOracleKind::kOptimizedUnaryEncoding,
        FrequencyOracleKind::kSymmetricUnaryEncoding,
        FrequencyOracleKind::kOptimizedLocalHashing,
        FrequencyOracleKind::kSubsetSelection,
        FrequencyOracleKind::kHadamardResponse,
        FrequencyOracleKind::kCountMeanSketch,
        FrequencyOracleKind::kHadamardCountMeanSketch,
        FrequencyOracleKind::kLongitudinalUnaryEncoding,
        FrequencyOracleKind::kLongitudinalGrr,
        FrequencyOracleKind::kLongitudinalLocalHashing,
        FrequencyOracleKind::kDBitFlip, FrequencyOracleKind::kRappor}) {
    auto oracle = CreateFrequencyOracle({.kind = kind,
                                         .epsilon = 1.0,
                                         .domain_size = 64,
                                         .epsilon_permanent = 2.0});
    ASSERT_OK(oracle) << FrequencyOracleKindName(kind);
    EXPECT_EQ((*oracle)->kind(), kind);
    EXPECT_EQ((*oracle)->domain_size(), 64u);
    EXPECT_LE((*oracle)->epsilon(), 1.0);
    EXPECT_GT((*oracle)->epsilon(), 1.0 - 1e-6);
  }
}

TEST(CreateFrequencyOracle, PassesOnInvalidSpecsAsInvalidArgument) {
  EXPECT_THAT(
      CreateFrequencyOracle({.kind = FrequencyOracleKind::kHadamardResponse,
                             .epsilon = -1,
                             .domain_size = 64}),
      StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(CreateFrequencyOracle(
                  {.kind = FrequencyOracleKind::kOptimizedUnaryEncoding,
                   .epsilon = 1,
                   .domain_size = 0}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(CreateFrequencyOracle(
                  {.kind = FrequencyOracleKind::kLongitudinalUnaryEncoding,
                   .epsilon = 2,
                   .domain_size = 8,
                   .epsilon_permanent = 1}),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

// One L-GRR report is GRR at ε1, one L-UE report (default layers) OUE at
// ε1 and one L-OLH report OLH at ε1, so the one-off rules carry over: GRR
// for small domains, and local hashing's short reports where the unary
// encoding's variance is within the slack. Every candidate is scored.
TEST(ChooseLongitudinalOracle, ScoresEveryLongitudinalOracle) {
  using K = FrequencyOracleKind;
  for (const auto& [n, expected] : {std::pair{4u, K::kLongitudinalGrr},
                                    {1024u, K::kLongitudinalLocalHashing}}) {
    auto choice = ChooseLongitudinalOracle(2.0, 4.0, n);
    ASSERT_OK(choice);
    EXPECT_EQ(choice->chosen.spec.kind, expected) << choice->reason;
    EXPECT_EQ(choice->chosen.spec.epsilon_permanent, 4.0);
    ASSERT_EQ(choice->candidates.size(), 3u);
    EXPECT_LE(choice->chosen.unit_variance,
              choice->candidates.front().unit_variance * 1.01);
  }
  // With no size preference L-UE's variance is the least at N = 1024.
  auto unsized =
      ChooseLongitudinalOracle(2.0, 4.0, 1024, {.variance_slack = 0});
  ASSERT_OK(unsized);
  EXPECT_EQ(unsized->chosen.spec.kind, K::kLongitudinalUnaryEncoding)
      << unsized->reason;
  EXPECT_THAT(ChooseLongitudinalOracle(2.0, 1.0, 64),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

// GRR beats the unary family exactly when N < 3e^ε + 2 (Wang et al. 2017).
TEST(ChooseFrequencyOracle, PicksGrrForSmallDomains) {
  auto choice = ChooseFrequencyOracle(4.0, 8);
  ASSERT_OK(choice);
  EXPECT_EQ(choice->chosen.spec.kind,
            FrequencyOracleKind::kGeneralizedRandomizedResponse);
  EXPECT_FALSE(choice->reason.empty());
}

TEST(ChooseFrequencyOracle, PicksANearOptimalOracleForLargeDomains) {
  auto choice = ChooseFrequencyOracle(1.0, 1024);
  ASSERT_OK(choice);
  const double e = std::exp(1.0);
  const double optimum = 4 * e / ((e - 1) * (e - 1));  // 3.6827
  EXPECT_LE(choice->chosen.unit_variance, optimum * 1.01);
  EXPECT_NE(choice->chosen.spec.kind,
            FrequencyOracleKind::kGeneralizedRandomizedResponse);
  for (size_t i = 1; i < choice->candidates.size(); ++i) {
    EXPECT_LE(choice->candidates[i - 1].unit_variance,
              choice->candidates[i].unit_variance);
  }
}

TEST(ChooseFrequencyOracle, PrefersSmallReportsAmongNearTies) {
  auto choice = ChooseFrequencyOracle(1.0, 1024);
  ASSERT_OK(choice);
  EXPECT_LE(choice->chosen.unit_variance,
            choice->candidates.front().unit_variance * 1.01);
  for (const auto& c : choice->candidates) {
    if (c.unit_variance <= choice->candidates.front().unit_variance * 1.01) {
      EXPECT_LE(choice->chosen.report_bits, c.report_bits);
    }
  }
  auto strict = ChooseFrequencyOracle(1.0, 1024, {.variance_slack = 0});
  ASSERT_OK(strict);
  EXPECT_EQ(strict->chosen.unit_variance,
            strict->candidates.front().unit_variance);
}

// At ε = 4 the general Hadamard response (t = 6, 18-bit reports) is a
// candidate within 4% of the best variance (subset selection's, 180-bit
// reports, 3% lower): the default 1% slack keeps subset selection, a 5%
// slack takes the far smaller reports.
TEST(ChooseFrequencyOracle, WeighsTheGeneralHadamardResponse) {
  auto choice = ChooseFrequencyOracle(4.0, 1024);
  ASSERT_OK(choice);
  const OracleCandidate* general = nullptr;
  for (const auto& c : choice->candidates) {
    if (c.spec.rows_per_item > 1) general = &c;
  }
  ASSERT_NE(general, nullptr);
  EXPECT_EQ(general->spec.kind, FrequencyOracleKind::kHadamardResponse);
  EXPECT_EQ(general->spec.rows_per_item, 6u);
  EXPECT_EQ(general->report_bits, 18);
  EXPECT_LT(general->unit_variance,
            choice->candidates.front().unit_variance * 1.04);
  auto built = CreateFrequencyOracle(general->spec);
  ASSERT_OK(built);
  EXPECT_EQ((*built)->Variance(0.0, 1), general->unit_variance);
  EXPECT_EQ(choice->chosen.spec.kind, FrequencyOracleKind::kSubsetSelection);
  auto slack = ChooseFrequencyOracle(4.0, 1024, {.variance_slack = 0.05});
  ASSERT_OK(slack);
  EXPECT_EQ(slack->chosen.spec.rows_per_item, 6u);
  EXPECT_THAT(slack->reason, ::testing::HasSubstr("6 rows per item"));
  // At ε = 0.5 more rows do not help: only the one-block form is offered.
  auto low = ChooseFrequencyOracle(0.5, 1024);
  ASSERT_OK(low);
  for (const auto& c : low->candidates) EXPECT_EQ(c.spec.rows_per_item, 0u);
}

TEST(ChooseFrequencyOracle, RespectsTheReportSizeLimit) {
  auto choice = ChooseFrequencyOracle(1.0, 1024, {.max_report_bits = 100});
  ASSERT_OK(choice);
  EXPECT_LE(choice->chosen.report_bits, 100);
  for (const auto& c : choice->candidates) {
    EXPECT_NE(c.spec.kind, FrequencyOracleKind::kOptimizedUnaryEncoding);
  }
  EXPECT_THAT(ChooseFrequencyOracle(1.0, 1024, {.max_report_bits = 2}),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(ChooseFrequencyOracle, UsesSketchesBeyondEnumerableDomains) {
  auto choice = ChooseFrequencyOracle(2.0, uint32_t{1} << 24);
  ASSERT_OK(choice);
  EXPECT_TRUE(choice->chosen.spec.kind ==
                  FrequencyOracleKind::kHadamardCountMeanSketch ||
              choice->chosen.spec.kind ==
                  FrequencyOracleKind::kCountMeanSketch);
}

}  // namespace
}  // namespace ldp
