// A single agent's influence on any estimate is bounded by its randomizer's
// output range: whatever one report holds, as long as it passes the mechanism's
// Validate, adding it to n honest reports moves an estimate by at most the
// bound below, and a report that fails Validate moves nothing. The test crafts
// every report shape it can enumerate (all outputs of small mechanisms, the
// extremes of the others), adds each to an accumulator of n honest reports, and
// compares.
//
// Why the bounds hold: every estimator here is affine in the MEAN of
// per-report contributions y_i ∈ [L, U], f̂ = a·(ȳ − c). Adding one report y
// to n others changes it by a·(y − ȳ_n)/(n + 1), so
//   |Δ| ≤ a·(U − L)/(n + 1),
// and the worst report (y at the end of [L, U] farther from ȳ_n) reaches at
// least half of that. Per mechanism (n honest reports, N the domain size,
// ε as requested: the implemented coins differ by 2^-32 rounding, which the
// test allows for; "support" = 1 if the report supports item v):
//
// clang-format off
// mechanism           y (per item v, or per mean)      a·(U − L) in closed form
// ------------------  -------------------------------  ---------------------------------
// GRR                 support ∈ {0,1}, a = 1/(p−q)     (e^ε + N − 1)/(e^ε − 1)
// OUE                 bit v ∈ {0,1}, a = 1/(p−q)       2(e^ε + 1)/(e^ε − 1)
// SUE (RAPPOR)        bit v ∈ {0,1}, a = 1/(p−q)       (e^{ε/2} + 1)/(e^{ε/2} − 1)
// OLH (g buckets)     [H(v) = bucket], a = 1/(p−q)     1/(e^ε/(e^ε + g − 1) − 1/g)
// subset selection    [v ∈ S], a = 1/(p−q)             1/(p_in − q), where
//   (k items)                                           p_in = k e^ε/(k e^ε + N − k),
//                                                       q = (p_in(k−1) + (1−p_in)k)/(N−1)
// Hadamard response   [y ∈ C_v], a = 1/(p−q)           g(e^ε + g − 1)/((e^ε − 1)(g − 1)),
//   (t rows, g = 2^t)                                   2(e^ε + 1)/(e^ε − 1) at t = 1
// longitudinal UE     bit v ∈ {0,1}, a = 1/(P−Q)       as OUE at ε1 (default layers)
// L-GRR               support ∈ {0,1}, a = 1/(P−Q)     as GRR at ε1 (one report is GRR)
// L-OLH (g buckets)   [H(v) = bucket], a = 1/(P−1/g)   as OLH at ε1 with g
// dBitFlipPM (d of N) (N/d)[v ∈ S](bit − q)/(p−q),     (N/d)(h + 1)/(h − 1), h = e^{ε/2}
//                       a = 1, U − L = (N/d)/(p−q)     (h = e^ε for d = 1)
// RAPPOR (C cohorts,  not affine in a mean: one report  Σ_i |W_vi|·max(|t_i − r_i|)
//   k bits)           in cohort c adds G_c = X_cᵀX_c    over both t_i, with W =
//                       to A and moves f̂ by exactly     (A + G_c)⁻¹X_cᵀ, r = X_c f̂;
//                       W·(t − X_c f̂), t_i ∈ {−Q,        about 1/(P − Q) per n for
//                       1 − Q}/(P − Q) (decoder.h)       equal cohorts (computed, not
//                                                        closed: A holds the counts)
// CMS (m columns)     (bit − φ)/(1 − 2φ),              m/(m−1)·(e^{ε/2} + 1)/(e^{ε/2} − 1)
//                       a = m/(m−1), U − L = 1/(1−2φ)
// HCMS (m columns)    ±1/(1 − 2φ), a = m/(m−1)         2m/(m−1)·(e^ε + 1)/(e^ε − 1)
// Duchi (bound b)     Decode = ±C b, a = 1             2b (e^ε + 1)/(e^ε − 1)
// piecewise           Decode ∈ [−C b, C b]             2b (e^{ε/2} + 1)/(e^{ε/2} − 1)
//                                                       (the grid: within 1%)
// hybrid              either branch's Decode           the larger of the two
//                                                       (Duchi's alone for ε < 0.61)
// discrete Laplace    level·γ, |level| ≤ 2^k + 64s     2b (1 + 128/ε): Validate's window,
//                                                       γ = b/2^k, s = 2^(k+1)/ε
// RS+FD[GRR] (d       [y_j = v], a = d/(p_j − q_j)     d(e^ε + k_j − 1)/(e^ε − 1) per
//   attributes; a                                       marginal cell of attribute j
//   workload strategy,                                  (fake_data_strategy_test.cc)
//   tested with it)
// clang-format on
//
// So one report moves a histogram frequency by at most
// a·(U − L)/(n + 1) and a mean of φ ∈ [lo, hi] (b = (hi − lo)/2) by at most
// 2·C·b/(n + 1); a poisoner with m reports moves it by at most m times that.
// The test asserts the bound with the mechanism's implemented parameters,
// and that those agree with the closed forms of the table.
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "common/estimation/cholesky.h"
#include "common/mechanisms/frequency/count_mean_sketch.h"
#include "common/mechanisms/frequency/generalized_randomized_response.h"
#include "common/mechanisms/frequency/hadamard_response.h"
#include "common/mechanisms/frequency/local_hashing.h"
#include "common/mechanisms/frequency/subset_selection.h"
#include "common/mechanisms/frequency/unary_encoding.h"
#include "common/mechanisms/frequency_oracle_factory.h"
#include "common/mechanisms/longitudinal/dbit_flip.h"
#include "common/mechanisms/longitudinal/longitudinal.h"
#include "common/mechanisms/longitudinal/longitudinal_grr.h"
#include "common/mechanisms/longitudinal/longitudinal_local_hashing.h"
#include "common/mechanisms/rappor/rappor.h"
#include "common/mechanisms/rappor/rappor_accumulator.h"
#include "common/mechanisms/real/discrete_laplace.h"
#include "common/mechanisms/real/hybrid_mechanism.h"
#include "common/mechanisms/real/mean_accumulator.h"
#include "common/mechanisms/real/real_mechanism_factory.h"
#include "gtest/gtest.h"

namespace ldp {
namespace {

constexpr int64_t kHonest = 2000;  // n
constexpr uint32_t kDomain = 16;   // N
constexpr double kEpsilon = 1.0;

// Slack for floating-point rounding in the estimators (sums of n terms).
double Slack(double bound) { return 1e-9 * bound + 1e-12; }

// Honest items, skewed so frequencies differ (item v with weight 1/(v+1)).
std::vector<uint32_t> HonestItems(std::mt19937_64& gen) {
  std::vector<double> weights;
  for (uint32_t v = 0; v < kDomain; ++v) weights.push_back(1.0 / (v + 1));
  std::discrete_distribution<uint32_t> item(weights.begin(), weights.end());
  std::vector<uint32_t> items;
  for (int64_t i = 0; i < kHonest; ++i) items.push_back(item(gen));
  return items;
}

// a·(U − L) from the oracle's implemented parameters, and the same from the
// table's closed form in the requested ε (they differ only by coin rounding).
struct FrequencyBound {
  double implemented = 0;
  double closed_form = 0;
};

FrequencyBound BoundFor(const FrequencyOracle& oracle,
                        const FrequencyOracleSpec& spec) {
  const double e = std::exp(spec.epsilon);
  const double N = spec.domain_size;
  switch (oracle.kind()) {
    case FrequencyOracleKind::kGeneralizedRandomizedResponse: {
      const auto& grr =
          dynamic_cast<const GeneralizedRandomizedResponse&>(oracle);
      return {1 / (grr.keep_probability() - grr.other_probability()),
              (e + N - 1) / (e - 1)};
    }
    case FrequencyOracleKind::kOptimizedUnaryEncoding: {
      const auto& ue = dynamic_cast<const UnaryEncoding&>(oracle);
      return {1 / (ue.p() - ue.q()), 2 * (e + 1) / (e - 1)};
    }
    case FrequencyOracleKind::kSymmetricUnaryEncoding: {
      const auto& ue = dynamic_cast<const UnaryEncoding&>(oracle);
      const double h = std::exp(spec.epsilon / 2);
      return {1 / (ue.p() - ue.q()), (h + 1) / (h - 1)};
    }
    case FrequencyOracleKind::kOptimizedLocalHashing: {
      const auto& olh = dynamic_cast<const OptimizedLocalHashing&>(oracle);
      const double g = olh.num_buckets();
      const PureProtocol protocol = olh.protocol();
      return {1 / (protocol.p - protocol.q), 1 / (e / (e + g - 1) - 1 / g)};
    }
    case FrequencyOracleKind::kSubsetSelection: {
      const auto& ss = dynamic_cast<const SubsetSelection&>(oracle);
      const double k = ss.subset_size();
      const auto q_of = [&](double p_in) {
        return (p_in * (k - 1) + (1 - p_in) * k) / (N - 1);
      };
      const double p_impl = ss.inclusion_probability();
      const double p_in = k * e / (k * e + N - k);
      return {1 / (p_impl - q_of(p_impl)), 1 / (p_in - q_of(p_in))};
    }
    case FrequencyOracleKind::kHadamardResponse: {
      const auto& hr = dynamic_cast<const HadamardResponse&>(oracle);
      const PureProtocol protocol = hr.protocol();
      const double g = std::exp2(hr.rows_per_item());
      return {1 / (protocol.p - protocol.q),
              g * (e + g - 1) / ((e - 1) * (g - 1))};
    }
    case FrequencyOracleKind::kLongitudinalUnaryEncoding: {
      const PureProtocol& protocol =
          dynamic_cast<const LongitudinalUnaryEncoding&>(oracle).protocol();
      return {1 / (protocol.p - protocol.q), 2 * (e + 1) / (e - 1)};
    }
    case FrequencyOracleKind::kLongitudinalGrr: {
      const PureProtocol protocol =
          dynamic_cast<const LongitudinalGrr&>(oracle).protocol();
      return {1 / (protocol.p - protocol.q), (e + N - 1) / (e - 1)};
    }
    case FrequencyOracleKind::kLongitudinalLocalHashing: {
      const auto& lolh = dynamic_cast<const LongitudinalLocalHashing&>(oracle);
      const double g = lolh.num_buckets();
      const PureProtocol protocol = lolh.protocol();
      return {1 / (protocol.p - protocol.q), 1 / (e / (e + g - 1) - 1 / g)};
    }
    case FrequencyOracleKind::kDBitFlip: {
      const auto& dbit = dynamic_cast<const DBitFlip&>(oracle);
      const double d = dbit.sampled_buckets();
      const double p = dbit.keep_probability();
      const double h = d == 1 ? e : std::exp(spec.epsilon / 2);
      return {N / d / (2 * p - 1), N / d * (h + 1) / (h - 1)};
    }
    case FrequencyOracleKind::kCountMeanSketch: {
      const auto& cms = dynamic_cast<const CountMeanSketch&>(oracle);
      const double m = cms.num_columns();
      const double h = std::exp(spec.epsilon / 2);
      return {m / (m - 1) / (1 - 2 * cms.flip_probability()),
              m / (m - 1) * (h + 1) / (h - 1)};
    }
    case FrequencyOracleKind::kHadamardCountMeanSketch: {
      const auto& cms = dynamic_cast<const CountMeanSketch&>(oracle);
      const double m = cms.num_columns();
      return {2 * m / (m - 1) / (1 - 2 * cms.flip_probability()),
              2 * m / (m - 1) * (e + 1) / (e - 1)};
    }
    case FrequencyOracleKind::kRappor:  // its own test below
      break;
  }
  return {};
}

// Every report shape worth trying against an oracle of kDomain items: all
// outputs where they are few, the extremes (all ones, all zeros, one-hot)
// otherwise, and malformed ones, which must change nothing.
std::vector<FrequencyReport> CraftedReports(const FrequencyOracle& oracle,
                                            std::mt19937_64& gen) {
  std::vector<FrequencyReport> reports;
  const uint32_t N = kDomain;
  const uint64_t all_ones = (uint64_t{1} << N) - 1;
  switch (oracle.kind()) {
    case FrequencyOracleKind::kGeneralizedRandomizedResponse:
    case FrequencyOracleKind::kLongitudinalGrr:
    case FrequencyOracleKind::kHadamardResponse:
      for (uint32_t y = 0; y <= 4 * N; ++y) reports.push_back(ItemReport{y});
      reports.push_back(ItemReport{UINT32_MAX});
      break;
    case FrequencyOracleKind::kOptimizedUnaryEncoding:
    case FrequencyOracleKind::kSymmetricUnaryEncoding:
    case FrequencyOracleKind::kLongitudinalUnaryEncoding:
      reports.push_back(BitVectorReport{{0}});
      reports.push_back(BitVectorReport{{all_ones}});
      for (uint32_t v = 0; v < N; ++v) {
        reports.push_back(BitVectorReport{{uint64_t{1} << v}});
        reports.push_back(BitVectorReport{{all_ones ^ (uint64_t{1} << v)}});
      }
      reports.push_back(BitVectorReport{{~uint64_t{0}}});        // bits past N
      reports.push_back(BitVectorReport{{all_ones, all_ones}});  // too long
      reports.push_back(BitVectorReport{});                      // too short
      break;
    case FrequencyOracleKind::kOptimizedLocalHashing:
    case FrequencyOracleKind::kLongitudinalLocalHashing: {
      const uint32_t g =
          oracle.kind() == FrequencyOracleKind::kOptimizedLocalHashing
              ? dynamic_cast<const OptimizedLocalHashing&>(oracle).num_buckets()
              : dynamic_cast<const LongitudinalLocalHashing&>(oracle)
                    .num_buckets();
      for (uint64_t seed = 0; seed < 16; ++seed) {
        const uint64_t s = seed == 0 ? 0 : gen();
        for (uint32_t b = 0; b <= g; ++b) reports.push_back(HashedReport{s, b});
      }
      reports.push_back(HashedReport{1, UINT32_MAX});
      break;
    }
    case FrequencyOracleKind::kDBitFlip: {
      // Every bit pattern (and one with a bit past d) under 32 seeds.
      const uint32_t d =
          dynamic_cast<const DBitFlip&>(oracle).sampled_buckets();
      for (uint64_t seed = 0; seed < 32; ++seed) {
        const uint64_t s = seed == 0 ? 0 : gen();
        for (uint32_t bits = 0; bits <= (1u << d); ++bits) {
          reports.push_back(HashedReport{s, bits});
        }
      }
      break;
    }
    case FrequencyOracleKind::kSubsetSelection: {
      const uint32_t k =
          dynamic_cast<const SubsetSelection&>(oracle).subset_size();
      // Every subset of size k (C(16, k) ≤ 12870), by bit mask.
      for (uint32_t mask = 0; mask < (1u << N); ++mask) {
        if (static_cast<uint32_t>(__builtin_popcount(mask)) != k) continue;
        SubsetReport r;
        for (uint32_t v = 0; v < N; ++v) {
          if (mask & (1u << v)) r.items.push_back(v);
        }
        reports.push_back(r);
      }
      SubsetReport too_big;
      for (uint32_t v = 0; v <= k; ++v) too_big.items.push_back(v);
      reports.push_back(too_big);
      reports.push_back(SubsetReport{std::vector<uint32_t>(k, 0)});  // repeats
      SubsetReport out_of_range;
      for (uint32_t v = 0; v < k; ++v) out_of_range.items.push_back(N + v);
      reports.push_back(out_of_range);
      break;
    }
    case FrequencyOracleKind::kCountMeanSketch:
    case FrequencyOracleKind::kHadamardCountMeanSketch: {
      const auto& cms = dynamic_cast<const CountMeanSketch&>(oracle);
      const uint32_t m = cms.num_columns();
      const uint64_t row_ones = m >= 64 ? ~uint64_t{0} : (uint64_t{1} << m) - 1;
      for (uint32_t row = 0; row <= cms.num_hashes(); ++row) {
        if (oracle.kind() == FrequencyOracleKind::kCountMeanSketch) {
          reports.push_back(SketchReport{row, 0, {0}});
          reports.push_back(SketchReport{row, 0, {row_ones}});
          for (uint32_t c = 0; c < m; ++c) {
            reports.push_back(SketchReport{row, 0, {uint64_t{1} << c}});
          }
          reports.push_back(SketchReport{row, 1, {row_ones}});  // column ≠ 0
        } else {
          for (uint32_t l = 0; l <= m; ++l) {
            reports.push_back(SketchReport{row, l, {0}});
            reports.push_back(SketchReport{row, l, {1}});
          }
          reports.push_back(SketchReport{row, 0, {2}});  // not one bit
        }
      }
      break;
    }
    case FrequencyOracleKind::kRappor:  // its own test below
      break;
  }
  return reports;
}

struct FrequencyCase {
  std::string name;
  FrequencyOracleSpec spec;
};

class FrequencyInfluence : public ::testing::TestWithParam<FrequencyCase> {};

TEST_P(FrequencyInfluence, OneReportMovesAnyFrequencyByAtMostTheBound) {
  const FrequencyOracleSpec& spec = GetParam().spec;
  auto oracle = CreateFrequencyOracle(spec);
  ASSERT_TRUE(oracle.ok()) << oracle.status();
  const FrequencyBound unit = BoundFor(**oracle, spec);
  // The implemented parameters are the closed form up to 2^-32 coins.
  EXPECT_NEAR(unit.implemented, unit.closed_form, 1e-6 * unit.closed_form);
  const double bound = unit.implemented / (kHonest + 1);

  std::mt19937_64 gen(20240607);
  auto honest = (*oracle)->NewAccumulator();
  for (uint32_t item : HonestItems(gen)) {
    ASSERT_TRUE(honest->Add((*oracle)->Randomize(item, gen)).ok());
  }
  const HistogramEstimate before = honest->Estimate();
  ASSERT_EQ(before.frequencies.size(), kDomain);

  double worst = 0;
  int valid = 0, invalid = 0;
  for (const FrequencyReport& report : CraftedReports(**oracle, gen)) {
    auto with = (*oracle)->NewAccumulator();
    ASSERT_TRUE(with->Merge(*honest).ok());
    const absl::Status added = with->Add(report);
    const HistogramEstimate after = with->Estimate();
    if (!added.ok()) {
      // Refused: counted nowhere, every estimate exactly as before.
      ++invalid;
      EXPECT_EQ(after.num_reports, kHonest);
      EXPECT_EQ(after.frequencies, before.frequencies);
      continue;
    }
    ++valid;
    for (uint32_t v = 0; v < kDomain; ++v) {
      const double change =
          std::abs(after.frequencies[v] - before.frequencies[v]);
      EXPECT_LE(change, bound + Slack(bound)) << "item " << v;
      worst = std::max(worst, change);
    }
  }
  EXPECT_GT(valid, 0);
  EXPECT_GT(invalid, 0) << "no malformed report was tried";
  // The bound is attained within a factor 2, so it is not vacuous.
  EXPECT_GE(worst, 0.5 * bound);
}

std::vector<FrequencyCase> FrequencyCases() {
  using K = FrequencyOracleKind;
  const auto spec = [](K kind) {
    return FrequencyOracleSpec{
        .kind = kind, .epsilon = kEpsilon, .domain_size = kDomain};
  };
  FrequencyOracleSpec cms = spec(K::kCountMeanSketch);
  cms.num_hashes = 4;
  cms.num_columns = 16;
  FrequencyOracleSpec hcms = cms;
  hcms.kind = K::kHadamardCountMeanSketch;
  FrequencyOracleSpec general_hr = spec(K::kHadamardResponse);
  general_hr.rows_per_item = 3;
  FrequencyOracleSpec lue = spec(K::kLongitudinalUnaryEncoding);
  lue.epsilon_permanent = 2 * kEpsilon;
  FrequencyOracleSpec lgrr = spec(K::kLongitudinalGrr);
  lgrr.epsilon_permanent = 2 * kEpsilon;
  FrequencyOracleSpec lolh = spec(K::kLongitudinalLocalHashing);
  lolh.epsilon_permanent = 2 * kEpsilon;
  FrequencyOracleSpec dbit = spec(K::kDBitFlip);
  dbit.sampled_buckets = 4;
  FrequencyOracleSpec one_bit = spec(K::kDBitFlip);
  one_bit.sampled_buckets = 1;
  return {{"GRR", spec(K::kGeneralizedRandomizedResponse)},
          {"OUE", spec(K::kOptimizedUnaryEncoding)},
          {"SUE", spec(K::kSymmetricUnaryEncoding)},
          {"OLH", spec(K::kOptimizedLocalHashing)},
          {"SubsetSelection", spec(K::kSubsetSelection)},
          {"HadamardResponse", spec(K::kHadamardResponse)},
          {"GeneralHadamardResponse", general_hr},
          {"CountMeanSketch", cms},
          {"HadamardCountMeanSketch", hcms},
          {"LongitudinalUnaryEncoding", lue},
          {"LongitudinalGrr", lgrr},
          {"LongitudinalLocalHashing", lolh},
          {"DBitFlip", dbit},
          {"OneBitFlip", one_bit}};
}

INSTANTIATE_TEST_SUITE_P(
    AllOracles, FrequencyInfluence, ::testing::ValuesIn(FrequencyCases()),
    [](const ::testing::TestParamInfo<FrequencyCase>& info) {
      return info.param.name;
    });

// RAPPOR: the regression's weights depend on the cohorts' counts, so the
// bound is computed from the honest accumulator (table above) with plain
// algebra here, then every filter of every cohort is tried against it.
TEST(RapporInfluence, OneReportMovesAnyFrequencyByAtMostTheComputedBound) {
  auto oracle = Rappor::Create({.epsilon_permanent = 2 * kEpsilon,
                                .epsilon_report = kEpsilon,
                                .domain_size = kDomain,
                                .num_bits = 8,
                                .num_hashes = 2,
                                .num_cohorts = 4,
                                .hash_seed = 1});
  ASSERT_TRUE(oracle.ok()) << oracle.status();
  const RapporBloom& bloom = (*oracle)->bloom();
  std::mt19937_64 gen(20240607);
  auto honest = (*oracle)->NewAccumulator();
  for (uint32_t item : HonestItems(gen)) {
    ASSERT_TRUE(honest->Add((*oracle)->Randomize(item, gen)).ok());
  }
  const HistogramEstimate before = honest->Estimate();
  const auto& counts = dynamic_cast<const RapporAccumulator&>(*honest).counts();
  const PureProtocol bit = (*oracle)->layers().composed();
  const double lo = -bit.q / (bit.p - bit.q),
               hi = (1 - bit.q) / (bit.p - bit.q);
  auto x = [&](uint32_t c, uint32_t i, uint32_t v) {  // X_c[i][v]
    for (uint16_t b : bloom.SetBits(c, v)) {
      if (b == i) return 1.0;
    }
    return 0.0;
  };
  double worst_ratio = 0;
  for (uint32_t c = 0; c <= bloom.num_cohorts(); ++c) {
    const bool valid_cohort = c < bloom.num_cohorts();
    std::vector<double> bound(kDomain, 0.0);
    if (valid_cohort) {
      std::vector<double> a(kDomain * kDomain, 0.0);  // A + G_c
      for (uint32_t d = 0; d < bloom.num_cohorts(); ++d) {
        const double n_d = counts.reports[d] + (d == c ? 1 : 0);
        for (uint32_t i = 0; i < bloom.num_bits(); ++i) {
          for (uint32_t u = 0; u < kDomain; ++u) {
            for (uint32_t v = 0; v < kDomain; ++v) {
              a[u * kDomain + v] += n_d * x(d, i, u) * x(d, i, v);
            }
          }
        }
      }
      auto factor = CholeskyFactor::Factor(a, kDomain);
      ASSERT_TRUE(factor.ok());
      const std::vector<double> inverse = factor->Inverse();
      for (uint32_t i = 0; i < bloom.num_bits(); ++i) {
        double r = 0;  // (X_c f̂)_i
        for (uint32_t v = 0; v < kDomain; ++v) {
          r += x(c, i, v) * before.frequencies[v];
        }
        for (uint32_t v = 0; v < kDomain; ++v) {
          double w = 0;  // W_vi
          for (uint32_t u = 0; u < kDomain; ++u) {
            w += inverse[v * kDomain + u] * x(c, i, u);
          }
          bound[v] +=
              std::abs(w) * std::max(std::abs(hi - r), std::abs(lo - r));
        }
      }
    }
    for (uint64_t y = 0; y < 256; ++y) {
      auto with = (*oracle)->NewAccumulator();
      ASSERT_TRUE(with->Merge(*honest).ok());
      const absl::Status added = with->Add(
          SketchReport{.row = c, .column = 0, .bits = {y}, .num_bits = 8});
      const HistogramEstimate after = with->Estimate();
      EXPECT_EQ(added.ok(), valid_cohort);
      if (!added.ok()) {
        EXPECT_EQ(after.frequencies, before.frequencies);
        continue;
      }
      for (uint32_t v = 0; v < kDomain; ++v) {
        const double change =
            std::abs(after.frequencies[v] - before.frequencies[v]);
        EXPECT_LE(change, bound[v] + Slack(bound[v])) << "cohort " << c;
        worst_ratio = std::max(worst_ratio, change / bound[v]);
      }
    }
  }
  // The bound is attained within a factor 2, so it is not vacuous.
  EXPECT_GT(worst_ratio, 0.5);
}

// ---- Bounded real values: the mean of decoded reports. ----

constexpr double kBound = 2.0;  // b: inputs in [−2, 2]

// M = max |Decode| over valid reports, from the table's closed form.
double ClosedFormMagnitude(const RealMechanism& mechanism, double epsilon) {
  const double duchi = (std::exp(epsilon) + 1) / (std::exp(epsilon) - 1);
  const double h = std::exp(epsilon / 2);
  const double piecewise = (h + 1) / (h - 1);
  switch (mechanism.kind()) {
    case RealMechanismKind::kDuchi:
      return duchi * kBound;
    case RealMechanismKind::kPiecewise:
      return piecewise * kBound;
    case RealMechanismKind::kHybrid:
      // Below ε* the piecewise branch is off and its cells are invalid.
      return (epsilon < HybridMechanism::kPiecewiseThreshold
                  ? duchi
                  : std::max(duchi, piecewise)) *
             kBound;
    case RealMechanismKind::kDiscreteLaplace:
      return (1 + 128 / epsilon) * kBound;
  }
  return 0;
}

// Levels worth trying: every level of the bounded mechanisms (and a few
// past them), the edges of discrete Laplace's validation window.
std::vector<int64_t> CraftedLevels(const RealMechanism& mechanism) {
  std::vector<int64_t> levels = {std::numeric_limits<int64_t>::min(),
                                 std::numeric_limits<int64_t>::max()};
  if (mechanism.kind() == RealMechanismKind::kDiscreteLaplace) {
    const int64_t max =
        dynamic_cast<const DiscreteLaplaceMechanism&>(mechanism).max_level();
    for (int64_t level :
         {-max - 1, -max, int64_t{-1}, int64_t{0}, int64_t{1}, max, max + 1}) {
      levels.push_back(level);
    }
    return levels;
  }
  for (int64_t level = -3; level < 2048 + 8; ++level) levels.push_back(level);
  return levels;
}

struct RealCase {
  std::string name;
  RealMechanismSpec spec;
};

class RealInfluence : public ::testing::TestWithParam<RealCase> {};

TEST_P(RealInfluence, OneReportMovesTheMeanByAtMostTheBound) {
  const RealMechanismSpec& spec = GetParam().spec;
  auto mechanism = CreateRealMechanism(spec);
  ASSERT_TRUE(mechanism.ok()) << mechanism.status();
  const RealMechanism& m = **mechanism;

  std::mt19937_64 gen(7);
  std::uniform_real_distribution<double> x(-kBound, kBound);
  MeanAccumulator honest(m);
  for (int64_t i = 0; i < kHonest; ++i) {
    ASSERT_TRUE(honest.Add(m.Randomize(x(gen), gen)).ok());
  }
  const double before = honest.Estimate(0.95).value;

  // The output range M, by enumeration, against the closed form.
  double magnitude = 0;
  std::vector<ScalarReport> valid;
  int invalid = 0;
  for (int64_t level : CraftedLevels(m)) {
    const ScalarReport report{level};
    if (m.Validate(report).ok()) {
      valid.push_back(report);
      magnitude = std::max(magnitude, std::abs(m.Decode(report)));
    } else {
      ++invalid;
      MeanAccumulator with = honest;
      EXPECT_FALSE(with.Add(report).ok());
      EXPECT_EQ(with.num_reports(), kHonest);
      EXPECT_EQ(with.Estimate(0.95).value, before);
    }
  }
  ASSERT_FALSE(valid.empty());
  EXPECT_GT(invalid, 0);
  const double closed_form = ClosedFormMagnitude(m, spec.epsilon);
  // Duchi and discrete Laplace are exact up to coin rounding; the piecewise
  // grid is within 1% of the paper's continuous C.
  EXPECT_NEAR(magnitude, closed_form, 0.01 * closed_form);

  // |Δ| = |Decode(w) − mean| / (n + 1) ≤ (M + |mean|)/(n + 1) ≤ 2M/(n + 1).
  const double bound = (magnitude + std::abs(before)) / (kHonest + 1);
  EXPECT_LE(bound, 2 * magnitude / (kHonest + 1));
  double worst = 0;
  for (const ScalarReport& report : valid) {
    MeanAccumulator with = honest;
    ASSERT_TRUE(with.Add(report).ok());
    const double change = std::abs(with.Estimate(0.95).value - before);
    EXPECT_LE(change, bound + Slack(bound)) << "level " << report.level;
    worst = std::max(worst, change);
  }
  // The extreme report on the far side of the mean attains the bound.
  EXPECT_NEAR(worst, bound, 1e-9 * bound);
}

std::vector<RealCase> RealCases() {
  using K = RealMechanismKind;
  std::vector<RealCase> cases;
  for (double epsilon : {0.5, 1.0, 4.0}) {
    const std::string suffix =
        "Eps" + std::to_string(static_cast<int>(10 * epsilon));
    for (auto [kind, name] :
         {std::pair{K::kDuchi, "Duchi"}, std::pair{K::kPiecewise, "Piecewise"},
          std::pair{K::kHybrid, "Hybrid"},
          std::pair{K::kDiscreteLaplace, "DiscreteLaplace"}}) {
      cases.push_back(
          {name + suffix, {.kind = kind, .epsilon = epsilon, .bound = kBound}});
    }
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(AllMechanisms, RealInfluence,
                         ::testing::ValuesIn(RealCases()),
                         [](const ::testing::TestParamInfo<RealCase>& info) {
                           return info.param.name;
                         });

}  // namespace
}  // namespace ldp
