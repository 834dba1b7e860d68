#include "common/mechanisms/frequency/count_mean_sketch.h"

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/estimation/population.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/frequency_oracle_checks.h"
#include "tests/testing/statistics.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using testing::ChiSquare;
using ::testing::HasSubstr;
using testing::MaxProbabilityRatio;
using testing::RunningMoments;
using testing::SeededGenerator;
using testing::StatusIs;

constexpr SketchVariant kCms = SketchVariant::kCountMean;
constexpr SketchVariant kHcms = SketchVariant::kHadamard;

std::unique_ptr<CountMeanSketch> Make(const CountMeanSketchOptions& options) {
  auto oracle = CountMeanSketch::Create(options);
  EXPECT_OK(oracle);
  return *std::move(oracle);
}

TEST(CountMeanSketch, RejectsBadOptions) {
  const std::vector<CountMeanSketchOptions> bad = {
      {.epsilon = 0, .domain_size = 10},
      {.epsilon = -1, .domain_size = 10},
      {.epsilon = NAN, .domain_size = 10},
      {.epsilon = INFINITY, .domain_size = 10},
      {.epsilon = 1e-12, .domain_size = 10},
      {.epsilon = 1, .domain_size = 1},
      {.epsilon = 1, .domain_size = 10, .num_hashes = 70'000},
      {.epsilon = 1, .domain_size = 10, .num_columns = 1},
      {.epsilon = 1, .domain_size = 10, .num_columns = 70'000},
      {.epsilon = 1,
       .domain_size = 10,
       .num_hashes = 1024,
       .num_columns = 32768},
      {.epsilon = 1, .domain_size = 10, .num_columns = 100, .variant = kHcms},
      {.epsilon = 1, .domain_size = 10, .variant = SketchVariant{7}},
  };
  for (const auto& options : bad) {
    EXPECT_THAT(CountMeanSketch::Create(options),
                StatusIs(absl::StatusCode::kInvalidArgument))
        << options.epsilon << " " << options.domain_size << " "
        << options.num_hashes << " " << options.num_columns;
  }
}

TEST(CountMeanSketch, DefaultsAndKinds) {
  const auto cms = Make({.epsilon = 1, .domain_size = 0xFFFFFFFF});
  EXPECT_EQ(cms->num_hashes(), CountMeanSketch::kDefaultNumHashes);
  EXPECT_EQ(cms->num_columns(), CountMeanSketch::kDefaultNumColumns);
  EXPECT_EQ(cms->hash_seed(), CountMeanSketchOptions::kDefaultHashSeed);
  EXPECT_EQ(cms->kind(), FrequencyOracleKind::kCountMeanSketch);
  EXPECT_EQ(Make({.epsilon = 1, .domain_size = 9, .variant = kHcms})->kind(),
            FrequencyOracleKind::kHadamardCountMeanSketch);
}

// Rows (and HCMS columns) are public: enumerate every output for every row,
// conditioning on it. Ratio ≤ e^ε, implemented ε close, sums to one.
std::vector<FrequencyReport> AllOutputs(const CountMeanSketch& oracle) {
  std::vector<FrequencyReport> outputs;
  const uint32_t m = oracle.num_columns();
  for (uint32_t row = 0; row < oracle.num_hashes(); ++row) {
    if (oracle.variant() == kCms) {
      for (uint64_t bits = 0; bits < (uint64_t{1} << m); ++bits) {
        outputs.push_back(
            SketchReport{.row = row, .column = 0, .bits = {bits}});
      }
    } else {
      for (uint32_t column = 0; column < m; ++column) {
        for (uint64_t bit : {0, 1}) {
          outputs.push_back(
              SketchReport{.row = row, .column = column, .bits = {bit}});
        }
      }
    }
  }
  return outputs;
}

TEST(CountMeanSketch, EnumeratedPrivacyLossIsAtMostEpsilon) {
  for (SketchVariant variant : {kCms, kHcms}) {
    for (double epsilon : {0.1, 1.0, 4.0}) {
      const auto oracle = Make({.epsilon = epsilon,
                                .domain_size = 12,
                                .num_hashes = 3,
                                .num_columns = variant == kCms ? 6u : 8u,
                                .variant = variant});
      EXPECT_LE(oracle->epsilon(), epsilon);
      EXPECT_LE(epsilon - oracle->epsilon(), 1e-6);
      std::vector<uint32_t> inputs(12);
      for (uint32_t v = 0; v < 12; ++v) inputs[v] = v;
      const std::vector<FrequencyReport> outputs = AllOutputs(*oracle);
      const double ratio = MaxProbabilityRatio<uint32_t, FrequencyReport>(
          inputs, outputs, [&](const uint32_t& v, const FrequencyReport& w) {
            return oracle->Probability(v, w);
          });
      EXPECT_LE(ratio, std::exp(epsilon) * (1 + 1e-9));
      EXPECT_NEAR(ratio, std::exp(oracle->epsilon()), 1e-9 * ratio);
      // Per item, each row (and column) is a distribution.
      const double conditions =
          oracle->num_hashes() * (variant == kCms ? 1 : oracle->num_columns());
      for (uint32_t v : inputs) {
        double total = 0;
        for (const auto& w : outputs) total += oracle->Probability(v, w);
        EXPECT_NEAR(total, conditions, 1e-9);
      }
    }
  }
}

// Category = the whole report; its probability is Pr[row, column] times
// Probability (which conditions on them).
TEST(CountMeanSketch, SamplesFollowProbability) {
  SeededGenerator gen(41);
  constexpr int kDraws = 300'000;
  for (SketchVariant variant : {kCms, kHcms}) {
    const auto oracle = Make({.epsilon = 1.5,
                              .domain_size = 40,
                              .num_hashes = 3,
                              .num_columns = variant == kCms ? 5u : 8u,
                              .variant = variant});
    const std::vector<FrequencyReport> outputs = AllOutputs(*oracle);
    const double public_choices =
        oracle->num_hashes() * (variant == kCms ? 1 : oracle->num_columns());
    for (uint32_t v : {0u, 39u}) {
      std::vector<double> observed(outputs.size(), 0), expected;
      for (int i = 0; i < kDraws; ++i) {
        const FrequencyReport r = oracle->Randomize(v, gen);
        ASSERT_OK(oracle->Validate(r));
        const auto& s = std::get<SketchReport>(r);
        const size_t index =
            variant == kCms
                ? s.row * 32 + s.bits[0]
                : (s.row * oracle->num_columns() + s.column) * 2 + s.bits[0];
        observed[index] += 1;
      }
      for (const auto& w : outputs) {
        expected.push_back(kDraws * oracle->Probability(v, w) / public_choices);
      }
      const auto chi = ChiSquare(observed, expected);
      EXPECT_TRUE(chi.Passes()) << "item " << v << " chi2 " << chi.statistic;
    }
  }
}

// Repeats a population of `counts[i]` reports of items[i] under a fresh
// public hash family per repetition (the estimator is unbiased over coins
// AND hashes) and returns the moments of the estimate for items[0].
RunningMoments RepeatWithFreshHashes(const CountMeanSketchOptions& shape,
                                     const std::vector<uint32_t>& items,
                                     const std::vector<int>& counts, int reps,
                                     SeededGenerator& gen) {
  RunningMoments moments;
  for (int rep = 0; rep < reps; ++rep) {
    CountMeanSketchOptions options = shape;
    options.hash_seed = gen();
    const auto oracle = Make(options);
    auto acc = oracle->NewSketchAccumulator();
    for (size_t i = 0; i < items.size(); ++i) {
      for (int c = 0; c < counts[i]; ++c) {
        EXPECT_OK(acc->Add(oracle->Randomize(items[i], gen)));
      }
    }
    moments.Add(acc->EstimateItems({items[0]}).frequencies[0]);
  }
  return moments;
}

// R = 6000: the sample variance's relative SD is ≈ √(2/R) = 1.8%, so 10% is
// over 5 SD. Small sketches (k = 3, m = 4) make the hash terms a large part
// of the variance, so the test checks them, not just the coin term.
constexpr int kVarianceReps = 6000;

// Every other report has a distinct item: S = (1 − f)/n, which is what
// Variance() assumes.
TEST(CountMeanSketch, UnbiasedWithClosedFormVarianceForDistinctOthers) {
  SeededGenerator gen(51);
  for (SketchVariant variant : {kCms, kHcms}) {
    const CountMeanSketchOptions shape = {
        .epsilon = variant == kCms ? 4.0 : 2.0,
        .domain_size = 0xFFFFFFFF,
        .num_hashes = 3,
        .num_columns = 4,
        .variant = variant};
    const int n = 200, target = 60;
    std::vector<uint32_t> items = {12345};
    std::vector<int> counts = {target};
    for (int i = 0; i < n - target; ++i) {
      items.push_back(1'000'000 + 7919 * i);
      counts.push_back(1);
    }
    const RunningMoments m =
        RepeatWithFreshHashes(shape, items, counts, kVarianceReps, gen);
    const double f = target / double(n);
    const double variance = Make(shape)->Variance(f, n);
    EXPECT_NEAR(m.mean(), f, 5 * std::sqrt(variance / kVarianceReps));
    EXPECT_NEAR(m.variance() / variance, 1.0, 0.1) << static_cast<int>(variant);
  }
}

// A concentrated population: the hash term (m−1)S/(k m²) dominates and does
// not shrink with n.
TEST(CountMeanSketch, UnbiasedWithPopulationVarianceForConcentratedOthers) {
  SeededGenerator gen(52);
  for (SketchVariant variant : {kCms, kHcms}) {
    const CountMeanSketchOptions shape = {
        .epsilon = variant == kCms ? 4.0 : 2.0,
        .domain_size = 100,
        .num_hashes = 3,
        .num_columns = 4,
        .variant = variant};
    const int n = 200;
    for (uint32_t target : {0u, 3u}) {
      const std::vector<int> all_counts = {80, 60, 40, 20};
      std::vector<uint32_t> items = {target};
      std::vector<int> counts = {all_counts[target]};
      double others_sum_of_squares = 0;
      for (uint32_t v = 0; v < 4; ++v) {
        if (v == target) continue;
        items.push_back(v);
        counts.push_back(all_counts[v]);
        others_sum_of_squares += std::pow(all_counts[v] / double(n), 2);
      }
      const RunningMoments m =
          RepeatWithFreshHashes(shape, items, counts, kVarianceReps, gen);
      const double f = all_counts[target] / double(n);
      const double variance =
          Make(shape)->PopulationVariance(f, n, others_sum_of_squares);
      EXPECT_NEAR(m.mean(), f, 5 * std::sqrt(variance / kVarianceReps));
      EXPECT_NEAR(m.variance() / variance, 1.0, 0.1)
          << static_cast<int>(variant) << " item " << target;
    }
  }
}

TEST(CountMeanSketch, VarianceMatchesTheReferenceForms) {
  const double a = std::exp(0.5);  // e^{ε/2} at ε = 1
  const double c = (a + 1) / (a - 1);
  const double m = 1024, n = 1000, f = 0.1;
  const auto cms = Make({.epsilon = 1, .domain_size = 5000});
  EXPECT_NEAR(cms->Variance(f, n) * n,
              std::pow(m / (m - 1), 2) *
                  ((c * c - 1) / 4 + (1 - f) * (m - 1) / (m * m)),
              1e-6);
  const double e = std::exp(1.0);
  const double h = (e + 1) / (e - 1);
  const auto hcms = Make({.epsilon = 1, .domain_size = 5000, .variant = kHcms});
  EXPECT_NEAR(hcms->Variance(f, n) * n,
              std::pow(m / (m - 1), 2) * (h * h - f - (1 - f) / (m * m)), 1e-6);
}

TEST(CountMeanSketch, EstimateEnumeratesOnlySmallDomains) {
  SeededGenerator gen(61);
  for (SketchVariant variant : {kCms, kHcms}) {
    const auto small = Make({.epsilon = 2,
                             .domain_size = 50,
                             .num_hashes = 8,
                             .num_columns = 64,
                             .variant = variant});
    auto acc = small->NewSketchAccumulator();
    for (int i = 0; i < 500; ++i) {
      ASSERT_OK(acc->Add(small->Randomize(i % 50, gen)));
    }
    const HistogramEstimate all = acc->Estimate();
    ASSERT_EQ(all.frequencies.size(), 50u);
    const HistogramEstimate some = acc->EstimateItems({7, 3, 7});
    EXPECT_EQ(some.frequencies[0], all.frequencies[7]);
    EXPECT_EQ(some.frequencies[1], all.frequencies[3]);
    EXPECT_EQ(some.frequencies[2], all.frequencies[7]);
    EXPECT_EQ(some.variances[1], all.variances[3]);
    EXPECT_EQ(all.num_reports, 500);

    const auto huge =
        Make({.epsilon = 2,
              .domain_size = CountMeanSketch::kMaxEnumeratedDomain + 1,
              .variant = variant});
    auto big = huge->NewSketchAccumulator();
    ASSERT_OK(big->Add(huge->Randomize(123456789, gen)));
    const HistogramEstimate none = big->Estimate();
    EXPECT_TRUE(none.frequencies.empty());
    EXPECT_EQ(none.num_reports, 1);
    EXPECT_EQ(none.epsilon, huge->epsilon());
    EXPECT_EQ(big->EstimateItems({5, 2'000'000}).frequencies.size(), 2u);
  }
}

TEST(CountMeanSketch, ValidateRejectsMalformedReports) {
  const auto cms = Make(
      {.epsilon = 1, .domain_size = 1000, .num_hashes = 4, .num_columns = 100});
  const auto hcms = Make({.epsilon = 1,
                          .domain_size = 1000,
                          .num_hashes = 4,
                          .num_columns = 128,
                          .variant = kHcms});
  const std::vector<FrequencyReport> wrong_kind = {
      ItemReport{.item = 1}, BitVectorReport{.words = {1, 0}},
      HashedReport{.seed = 1, .bucket = 0}, SubsetReport{.items = {1}}};
  std::vector<FrequencyReport> bad_cms = wrong_kind;
  bad_cms.push_back(SketchReport{.row = 4, .column = 0, .bits = {1, 0}});
  bad_cms.push_back(SketchReport{.row = 0, .column = 1, .bits = {1, 0}});
  bad_cms.push_back(SketchReport{.row = 0, .column = 0, .bits = {1}});
  bad_cms.push_back(SketchReport{.row = 0, .column = 0, .bits = {1, 0, 0}});
  bad_cms.push_back(
      SketchReport{.row = 0, .column = 0, .bits = {1, uint64_t{1} << 36}});
  bad_cms.push_back(
      SketchReport{.row = 0, .column = 0, .bits = {1, uint64_t{1} << 63}});
  std::vector<FrequencyReport> bad_hcms = wrong_kind;
  bad_hcms.push_back(SketchReport{.row = 4, .column = 0, .bits = {1}});
  bad_hcms.push_back(SketchReport{.row = 0, .column = 128, .bits = {1}});
  bad_hcms.push_back(SketchReport{.row = 0, .column = 0, .bits = {}});
  bad_hcms.push_back(SketchReport{.row = 0, .column = 0, .bits = {1, 0}});
  bad_hcms.push_back(SketchReport{.row = 0, .column = 0, .bits = {2}});
  SeededGenerator gen(7);
  for (const auto& [oracle, bad] :
       {std::pair{cms.get(), bad_cms}, std::pair{hcms.get(), bad_hcms}}) {
    auto acc = oracle->NewSketchAccumulator();
    for (int i = 0; i < 50; ++i) ASSERT_OK(acc->Add(oracle->Randomize(i, gen)));
    testing::ExpectMalformedReportsRejectedBy(*oracle, *acc, bad);
    EXPECT_EQ(acc->num_reports(), 50);
  }
  EXPECT_OK(cms->Validate(
      SketchReport{.row = 3, .column = 0, .bits = {~uint64_t{0}, (1u << 30)}}));
  EXPECT_OK(hcms->Validate(SketchReport{.row = 3, .column = 127, .bits = {1}}));
}

// A sketch report's num_bits must be exactly m (CMS) or 1 (HCMS); 0 marks a
// legacy stored report and is checked by its words alone.
TEST(CountMeanSketch, RequiresExactlyTheSketchLength) {
  const auto cms = Make(
      {.epsilon = 1, .domain_size = 1000, .num_hashes = 4, .num_columns = 100});
  const auto hcms = Make({.epsilon = 1,
                          .domain_size = 1000,
                          .num_hashes = 4,
                          .num_columns = 128,
                          .variant = kHcms});
  const std::vector<uint64_t> cms_bits = {1, 0};
  std::vector<FrequencyReport> bad_cms, bad_hcms;
  for (uint32_t num_bits : {1u, 99u, 101u, 128u}) {
    bad_cms.push_back(SketchReport{.bits = cms_bits, .num_bits = num_bits});
  }
  for (uint32_t num_bits : {2u, 64u, 128u}) {
    bad_hcms.push_back(
        SketchReport{.column = 5, .bits = {1}, .num_bits = num_bits});
  }
  SeededGenerator gen(9);
  for (const auto& [oracle, bad] :
       {std::pair{cms.get(), bad_cms}, std::pair{hcms.get(), bad_hcms}}) {
    auto acc = oracle->NewSketchAccumulator();
    for (int i = 0; i < 20; ++i) ASSERT_OK(acc->Add(oracle->Randomize(i, gen)));
    testing::ExpectMalformedReportsRejectedBy(*oracle, *acc, bad);
    EXPECT_EQ(acc->num_reports(), 20);
  }
  EXPECT_THAT(std::string(cms->Validate(bad_cms[2]).message()),
              HasSubstr("report has 101 bits; this task's reports have "
                        "exactly 100"));
  EXPECT_OK(cms->Validate(SketchReport{.bits = cms_bits, .num_bits = 100}));
  EXPECT_OK(cms->Validate(SketchReport{.bits = cms_bits}));
  EXPECT_OK(
      hcms->Validate(SketchReport{.column = 5, .bits = {1}, .num_bits = 1}));
  EXPECT_OK(hcms->Validate(SketchReport{.column = 5, .bits = {1}}));
  EXPECT_EQ(std::get<SketchReport>(cms->Randomize(3, gen)).num_bits, 100u);
  EXPECT_EQ(std::get<SketchReport>(hcms->Randomize(3, gen)).num_bits, 1u);
}

TEST(CountMeanSketch, MergeEqualsAddingEverythingToOne) {
  SeededGenerator gen(8);
  for (SketchVariant variant : {kCms, kHcms}) {
    const auto oracle = Make({.epsilon = 1,
                              .domain_size = 300,
                              .num_hashes = 5,
                              .num_columns = 128,
                              .variant = variant});
    testing::ExpectMergedSplitEqualsAll(
        *oracle, *oracle->NewSketchAccumulator(),
        *oracle->NewSketchAccumulator(), *oracle->NewSketchAccumulator(),
        /*num_items=*/13, /*num_reports=*/700, gen);
  }
}

TEST(CountMeanSketch, MergeRejectsADifferentOracle) {
  const CountMeanSketchOptions base = {
      .epsilon = 1, .domain_size = 300, .num_hashes = 5, .num_columns = 128};
  auto acc = Make(base)->NewAccumulator();
  std::vector<CountMeanSketchOptions> others(5, base);
  others[0].epsilon = 2;
  others[1].hash_seed = 1;
  others[2].num_hashes = 6;
  others[3].num_columns = 64;
  others[4].variant = kHcms;
  for (const auto& options : others) {
    EXPECT_THAT(acc->Merge(*Make(options)->NewAccumulator()),
                StatusIs(absl::StatusCode::kInvalidArgument));
  }
  EXPECT_EQ(acc->num_reports(), 0);
}

TEST(CountMeanSketch, ItemsPastTheDomainAreClamped) {
  const auto oracle = Make(
      {.epsilon = 1, .domain_size = 6, .num_hashes = 4, .num_columns = 16});
  SeededGenerator a(4), b(4);
  EXPECT_EQ(oracle->Randomize(1000, a), oracle->Randomize(5, b));
}

// On skewed data the collision term dominates at large ε; the reported
// variances must include it. Over 1024 Zipf items, the mean squared error
// must match the mean reported variance (each item's collisions act like an
// independent draw of the hash family). The ratio of two averages over 1024
// items has a relative spread of about √(2/1024) ≈ 4.4%, so 0.8–1.25 is
// beyond 4.5 spreads; the old distinct-items plug-in measured 1.35.
TEST(CountMeanSketch, ReportedVariancesIncludeCollisionsOnSkewedData) {
  constexpr uint32_t kDomain = 1024;
  auto zipf = ZipfDistribution(kDomain, 1.1);
  ASSERT_OK(zipf);
  SeededGenerator gen(4040);
  const auto items = SampleItems(*zipf, 100'000, gen);
  const auto truth = EmpiricalFrequencies(items, kDomain);
  for (SketchVariant variant :
       {SketchVariant::kCountMean, SketchVariant::kHadamard}) {
    auto sketch = CountMeanSketch::Create(
        {.epsilon = 4.0, .domain_size = kDomain, .variant = variant});
    ASSERT_OK(sketch);
    auto accumulator = (*sketch)->NewAccumulator();
    for (uint32_t item : items) {
      ASSERT_OK(accumulator->Add((*sketch)->Randomize(item, gen)));
    }
    const HistogramEstimate est = accumulator->Estimate();
    double squared_error = 0, reported = 0;
    for (uint32_t v = 0; v < kDomain; ++v) {
      squared_error +=
          (est.frequencies[v] - truth[v]) * (est.frequencies[v] - truth[v]);
      reported += est.variances[v];
    }
    EXPECT_GT(squared_error / reported, 0.8) << static_cast<int>(variant);
    EXPECT_LT(squared_error / reported, 1.25) << static_cast<int>(variant);
  }
}
}  // namespace
}  // namespace ldp
