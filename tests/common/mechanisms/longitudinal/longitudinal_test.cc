#include "common/mechanisms/longitudinal/longitudinal.h"

#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "common/mechanisms/frequency/unary_encoding.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/frequency_oracle_checks.h"
#include "tests/testing/longitudinal_checks.h"
#include "tests/testing/statistics.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using ::testing::HasSubstr;
using testing::SeededGenerator;
using testing::StatusIs;

constexpr UnaryEncodingVariant kOptimized = UnaryEncodingVariant::kOptimized;
constexpr UnaryEncodingVariant kSymmetric = UnaryEncodingVariant::kSymmetric;

struct Layers {
  UnaryEncodingVariant permanent;
  UnaryEncodingVariant instantaneous;
};
constexpr Layers kAllLayers[] = {{kSymmetric, kOptimized},   // default, L-SOUE
                                 {kOptimized, kSymmetric},   // L-OSUE
                                 {kSymmetric, kSymmetric},   // L-SUE (RAPPOR)
                                 {kOptimized, kOptimized}};  // L-OUE

std::string Name(Layers layers) {
  auto letter = [](UnaryEncodingVariant v) {
    return v == kOptimized ? "O" : "S";
  };
  return std::string("L-") + letter(layers.permanent) +
         letter(layers.instantaneous) + "UE";
}

std::unique_ptr<LongitudinalUnaryEncoding> MakeLongitudinal(
    double epsilon_permanent, double epsilon_report, uint32_t domain_size,
    Layers layers = kAllLayers[0]) {
  auto oracle = LongitudinalUnaryEncoding::Create(
      {.epsilon_permanent = epsilon_permanent,
       .epsilon_report = epsilon_report,
       .domain_size = domain_size,
       .permanent = layers.permanent,
       .instantaneous = layers.instantaneous});
  EXPECT_OK(oracle);
  return *std::move(oracle);
}

std::vector<BitVectorReport> AllMemos(uint32_t num_bits) {
  std::vector<BitVectorReport> memos;
  for (uint64_t w = 0; w < (uint64_t{1} << num_bits); ++w) {
    memos.push_back(BitVectorReport{.words = {w}});
  }
  return memos;
}

std::vector<FrequencyReport> AllReports(uint32_t num_bits) {
  std::vector<FrequencyReport> reports;
  for (BitVectorReport& memo : AllMemos(num_bits)) reports.push_back(memo);
  return reports;
}

int64_t WordIndex(const FrequencyReport& report) {
  return static_cast<int64_t>(std::get<BitVectorReport>(report).words[0]);
}

TEST(LongitudinalUnaryEncoding, RejectsInvalidOptions) {
  testing::ExpectCreateRejectsBadEpsilonsAndDomain<LongitudinalUnaryEncoding>();
  EXPECT_THAT(LongitudinalUnaryEncoding::Create(
                  {.epsilon_permanent = 2,
                   .epsilon_report = 1,
                   .domain_size = 8,
                   .instantaneous = static_cast<UnaryEncodingVariant>(5)}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  // A symmetric PRR at ε∞ = 1 followed by an IRR that keeps 1-bits w.p. 1/2
  // leaks at most ln[a(1+a)/((1−a)(2−a))] ≈ 0.664 per report.
  auto unreachable = LongitudinalUnaryEncoding::Create(
      {.epsilon_permanent = 1,
       .epsilon_report = 0.9,
       .domain_size = 8,
       .permanent = UnaryEncodingVariant::kSymmetric,
       .instantaneous = UnaryEncodingVariant::kOptimized});
  EXPECT_THAT(unreachable, StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(std::string(unreachable.status().message()),
              HasSubstr("unreachable"));
  // L-OSUE reaches every ε1 < ε∞.
  EXPECT_OK(LongitudinalUnaryEncoding::Create({.epsilon_permanent = 1,
                                               .epsilon_report = 0.9,
                                               .domain_size = 8,
                                               .permanent = kOptimized,
                                               .instantaneous = kSymmetric}));
}

// The default layers against the closed forms in longitudinal.h.
TEST(LongitudinalUnaryEncoding, DefaultLayersSolveTheStatedQuadratic) {
  const double eps_inf = 2, eps_1 = 1;
  const auto oracle = MakeLongitudinal(eps_inf, eps_1, 8);
  EXPECT_EQ(oracle->kind(), FrequencyOracleKind::kLongitudinalUnaryEncoding);
  const double h = std::exp(eps_inf / 2);
  const double a = h / (h + 1);
  EXPECT_NEAR(oracle->p1(), a, std::ldexp(1.0, -32));
  EXPECT_EQ(oracle->q1(), 1 - oracle->p1());
  EXPECT_EQ(oracle->p2(), 0.5);
  const double e = std::exp(eps_1);
  const double qa = a * (1 - a) * (e - 1);
  const double qb = ((1 - 2 * a * a) - e * (4 * a - 2 * a * a - 1)) / 2;
  const double qc = (a * (1 + a) - e * (1 - a) * (2 - a)) / 4;
  const double q2 = 2 * qc / (-qb + std::sqrt(qb * qb - 4 * qa * qc));
  EXPECT_NEAR(oracle->q2(), q2, 1e-8);
  EXPECT_LE(oracle->epsilon(), eps_1);
  EXPECT_GT(oracle->epsilon(), eps_1 - 1e-6);
  EXPECT_LE(oracle->epsilon_infinity(), eps_inf);
  EXPECT_GT(oracle->epsilon_infinity(), eps_inf - 1e-6);
}

// L-OSUE: one report is exactly OUE at ε1 (Arcolezi et al.).
TEST(LongitudinalUnaryEncoding, OptimizedThenSymmetricComposesToOue) {
  const double eps_inf = 3, eps_1 = 2;
  const auto oracle =
      MakeLongitudinal(eps_inf, eps_1, 8, {kOptimized, kSymmetric});
  const double q1 = 1 / (std::exp(eps_inf) + 1);
  const double big_q = 1 / (std::exp(eps_1) + 1);
  EXPECT_EQ(oracle->p1(), 0.5);
  EXPECT_NEAR(oracle->q1(), q1, std::ldexp(1.0, -32));
  EXPECT_NEAR(oracle->p2(), (1 - q1 - big_q) / (1 - 2 * q1), 1e-8);
  EXPECT_EQ(oracle->q2(), 1 - oracle->p2());
  EXPECT_NEAR(oracle->protocol().p, 0.5, 1e-9);
  EXPECT_NEAR(oracle->protocol().q, big_q, 1e-9);
}

TEST(LongitudinalUnaryEncoding, SingleReportEpsilonIsExactByEnumeration) {
  for (Layers layers : kAllLayers) {
    for (uint32_t n : {2u, 3u, 5u}) {
      for (const auto& [eps_inf, eps_1] :
           {std::pair{1.0, 0.5}, {2.0, 1.0}, {4.0, 1.0}, {6.0, 0.1}}) {
        SCOPED_TRACE(::testing::Message()
                     << Name(layers) << " N " << n << " eps " << eps_inf << "/"
                     << eps_1);
        const auto oracle = MakeLongitudinal(eps_inf, eps_1, n, layers);
        testing::ExpectExactPrivacy(*oracle, AllReports(n), eps_1);
      }
    }
  }
}

// The memo alone is an ε∞-LDP unary encoding; the two layers compose to one
// report's Probability; T reports from one memo leak more as T grows but
// never past ε∞.
TEST(LongitudinalUnaryEncoding,
     MemoLayersAndRepeatedReportsStayWithinEpsilonInfinity) {
  const double eps_inf = 2, eps_1 = 1;
  for (Layers layers : kAllLayers) {
    for (const auto& [n, max_reports] : {std::pair{2u, 4}, {3u, 2}, {4u, 2}}) {
      SCOPED_TRACE(::testing::Message() << Name(layers) << " N " << n);
      const auto oracle = MakeLongitudinal(eps_inf, eps_1, n, layers);
      const std::vector<FrequencyReport> all = AllReports(n);
      testing::ExpectMemoIsEpsilonInfinityPrivate(*oracle, *oracle, all,
                                                  eps_inf);
      testing::ExpectLayersComposeToProbability(*oracle, *oracle, all, all);
      testing::ExpectRepeatedReportsStayWithinEpsilonInfinity(
          *oracle, *oracle, all, all, max_reports);
    }
  }
}

TEST(LongitudinalUnaryEncoding, EachLayerSamplesFollowItsProbability) {
  for (Layers layers : {kAllLayers[0], kAllLayers[1]}) {
    SCOPED_TRACE(Name(layers));
    const auto oracle = MakeLongitudinal(2, 1, 4, layers);
    const std::vector<FrequencyReport> reports = AllReports(4);
    testing::ExpectSamplesFollowProbability(*oracle, reports, {0, 3}, 300'000,
                                            WordIndex, /*seed=*/14);
    SeededGenerator gen(15);
    const std::vector<BitVectorReport> memos = AllMemos(4);
    const auto memo_result = testing::ChiSquareOfSamples<BitVectorReport>(
        memos, 300'000,
        [&] { return std::get<BitVectorReport>(oracle->Memoize(2, gen)); },
        [&](const BitVectorReport& b) { return oracle->MemoProbability(2, b); },
        [](const BitVectorReport& b) {
          return static_cast<int64_t>(b.words[0]);
        });
    EXPECT_TRUE(memo_result.Passes()) << memo_result.statistic;
    const BitVectorReport memo{.words = {0b0110}};
    const auto irr_result = testing::ChiSquareOfSamples<FrequencyReport>(
        reports, 300'000, [&] { return oracle->RandomizeFromMemo(memo, gen); },
        [&](const FrequencyReport& r) {
          return oracle->ProbabilityFromMemo(memo, r);
        },
        WordIndex);
    EXPECT_TRUE(irr_result.Passes()) << irr_result.statistic;
  }
}

TEST(LongitudinalUnaryEncoding, MalformedMemosAreNormalizedNotTrusted) {
  const auto oracle = MakeLongitudinal(2, 1, 70);
  // Extra word and padding bits past position 70: treated as {w0, w1 & mask}.
  const BitVectorReport oversized{.words = {~uint64_t{0}, ~uint64_t{0}, 5}};
  const BitVectorReport normalized{.words = {~uint64_t{0}, 0x3f}};
  const BitVectorReport short_memo{.words = {}};
  const BitVectorReport zeros{.words = {0, 0}};
  EXPECT_EQ(oracle->MemoProbability(0, oversized), 0.0);
  SeededGenerator a(16), b(16);
  for (int i = 0; i < 50; ++i) {
    const FrequencyReport report = oracle->RandomizeFromMemo(oversized, a);
    ASSERT_OK(oracle->Validate(report));
    EXPECT_EQ(report, oracle->RandomizeFromMemo(normalized, b));
    EXPECT_EQ(oracle->RandomizeFromMemo(short_memo, a),
              oracle->RandomizeFromMemo(zeros, b));
  }
}

TEST(LongitudinalUnaryEncoding, DrawsAndClampingDoNotDependOnTheInput) {
  const auto oracle = MakeLongitudinal(2, 1, 70);
  testing::ExpectDrawCountIndependentOfInput(*oracle);
  testing::ExpectOutOfRangeItemsClampToLast(*oracle);
  SeededGenerator a(17), b(17);
  EXPECT_EQ(oracle->Memoize(1000, a), oracle->Memoize(69, b));
}

TEST(LongitudinalUnaryEncoding, EstimatorIsUnbiasedWithClosedFormVariance) {
  const std::vector<int64_t> counts = {0, 20, 40, 140};
  for (Layers layers : {kAllLayers[0], kAllLayers[1]}) {
    SCOPED_TRACE(Name(layers));
    const auto oracle = MakeLongitudinal(2, 1, 4, layers);
    testing::ExpectUnbiasedWithClosedFormVariance(
        *oracle, counts, /*repetitions=*/5000, /*seed=*/18,
        [&](double f, int64_t n) { return oracle->Variance(f, n); });
  }
}

// Arcolezi et al.'s Var = σ(1−σ)/(n (p1−q1)² (p2−q2)²), σ = Q + f(P − Q),
// is the variance when each agent's value is drawn i.i.d. from f; it is the
// pure-protocol variance plus f(1 − f)/n. Their code's σ =
// f(2p1p2 − 2p1q2 + 2q2 − 1) + p2 q1 + q2(1 − q1) is the same only when both
// layers are symmetric.
double ArcoleziVariance(const LongitudinalUnaryEncoding& o, double f,
                        int64_t n) {
  const double big_p = o.protocol().p, big_q = o.protocol().q;
  const double sigma = big_q + f * (big_p - big_q);
  const double g1 = o.p1() - o.q1(), g2 = o.p2() - o.q2();
  return sigma * (1 - sigma) / (n * g1 * g1 * g2 * g2);
}

TEST(LongitudinalUnaryEncoding, VarianceAgreesWithArcolezi) {
  for (Layers layers : kAllLayers) {
    SCOPED_TRACE(Name(layers));
    const auto oracle = MakeLongitudinal(2, 1, 8, layers);
    for (double f : {0.0, 0.1, 0.5, 0.9}) {
      EXPECT_NEAR(oracle->Variance(f, 1000) + f * (1 - f) / 1000,
                  ArcoleziVariance(*oracle, f, 1000), 1e-12);
    }
  }
  const auto rappor = MakeLongitudinal(2, 1, 8, {kSymmetric, kSymmetric});
  const double p1 = rappor->p1(), q1 = rappor->q1();
  const double p2 = rappor->p2(), q2 = rappor->q2();
  for (double f : {0.0, 0.3}) {
    const double sigma_published =
        f * (2 * p1 * p2 - 2 * p1 * q2 + 2 * q2 - 1) + p2 * q1 + q2 * (1 - q1);
    EXPECT_NEAR(sigma_published,
                rappor->protocol().q +
                    f * (rappor->protocol().p - rappor->protocol().q),
                1e-12);
  }
}

// Agents' values drawn i.i.d. from f each repetition: the estimator stays
// unbiased and its variance is Arcolezi et al.'s closed form.
TEST(LongitudinalUnaryEncoding, SampledPopulationMatchesArcoleziVariance) {
  const std::vector<double> f = {0.5, 0.3, 0.2, 0.0};  // tenths
  constexpr int64_t kAgents = 200;
  constexpr int kRepetitions = 5000;
  const auto oracle = MakeLongitudinal(2, 1, 4, {kOptimized, kSymmetric});
  SeededGenerator gen(19);
  std::vector<testing::RunningMoments> moments(4);
  for (int r = 0; r < kRepetitions; ++r) {
    const auto accumulator = oracle->NewAccumulator();
    for (int64_t i = 0; i < kAgents; ++i) {
      const uint64_t u = UniformBelow(10, gen);
      const uint32_t item = u < 5 ? 0 : u < 8 ? 1 : 2;
      ASSERT_OK(accumulator->Add(oracle->Randomize(item, gen)));
    }
    const HistogramEstimate estimate = accumulator->Estimate();
    for (int v = 0; v < 4; ++v) moments[v].Add(estimate.frequencies[v]);
  }
  for (int v = 0; v < 4; ++v) {
    const double expected = ArcoleziVariance(*oracle, f[v], kAgents);
    EXPECT_LE(std::abs(moments[v].mean() - f[v]),
              5 * std::sqrt(expected / kRepetitions))
        << "item " << v;
    EXPECT_NEAR(moments[v].variance() / expected, 1.0, 0.1) << "item " << v;
  }
}

TEST(LongitudinalUnaryEncoding, RejectsMalformedReports) {
  const auto oracle = MakeLongitudinal(2, 1, 70);
  testing::ExpectMalformedReportsRejected(
      *oracle, {BitVectorReport{}, BitVectorReport{.words = {0}},
                BitVectorReport{.words = {0, 0, 0}},
                BitVectorReport{.words = {0, uint64_t{1} << 6}}, ItemReport{1},
                HashedReport{}, SubsetReport{}, SketchReport{}});
}

TEST(LongitudinalUnaryEncoding, MergeEqualsOneAccumulator) {
  const auto oracle = MakeLongitudinal(2, 1, 70);
  const auto other_report = MakeLongitudinal(2, 0.5, 70);
  const auto other_permanent = MakeLongitudinal(3, 1, 70);
  const auto other_layers = MakeLongitudinal(2, 1, 70, kAllLayers[1]);
  const auto oue = *UnaryEncoding::Create({.epsilon = 1, .domain_size = 70});
  testing::ExpectMergeEqualsSingleAccumulator(
      *oracle,
      {other_report.get(), other_permanent.get(), other_layers.get(),
       oue.get()},
      1000);
}

}  // namespace
}  // namespace ldp
