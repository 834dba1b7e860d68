#include "common/mechanisms/rappor/rappor_sparse_decoder.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <numeric>
#include <random>
#include <set>
#include <vector>

#include "common/estimation/confidence_interval.h"
#include "common/mechanisms/rappor/rappor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/statistics.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using testing::SeededGenerator;
using testing::StatusIs;

// A decoder for filters of k bits, h = 2 hashes and C cohorts, at ε∞ = 4
// and ε1 = 2.
RapporDecoder MakeSparseTestDecoder(uint32_t k, uint32_t cohorts) {
  auto oracle = Rappor::Create({.epsilon_permanent = 4,
                                .epsilon_report = 2,
                                .domain_size = std::min(256u, k * cohorts),
                                .num_bits = k,
                                .num_hashes = 2,
                                .num_cohorts = cohorts,
                                .hash_seed = 17});
  EXPECT_OK(oracle);
  return RapporDecoder((*oracle)->bloom(), (*oracle)->layers().composed());
}

// Exact counts for a fixed population: round(share·n) agents hold each
// item, spread over uniform cohorts (sequential binomials: a multinomial);
// a report's bit is 1 with probability P on the agent's filter and Q off
// it, independently, as RAPPOR's layers compose (rappor_decoder.h).
RapporCounts SimulateSparseTestCounts(const RapporDecoder& decoder,
                                      const std::vector<uint32_t>& items,
                                      const std::vector<double>& shares,
                                      int64_t n, uint64_t seed) {
  SeededGenerator gen(seed);
  const RapporBloom& bloom = decoder.bloom();
  const uint32_t cohorts = bloom.num_cohorts(), k = bloom.num_bits();
  RapporCounts counts{.reports = std::vector<int64_t>(cohorts, 0),
                      .ones = std::vector<int64_t>(size_t{cohorts} * k, 0)};
  std::vector<int64_t> true_ones(counts.ones.size(), 0);
  for (size_t s = 0; s < items.size(); ++s) {
    int64_t left = std::llround(shares[s] * static_cast<double>(n));
    for (uint32_t c = 0; c < cohorts; ++c) {
      const int64_t here = c + 1 == cohorts
                               ? left
                               : std::binomial_distribution<int64_t>(
                                     left, 1.0 / (cohorts - c))(gen);
      left -= here;
      counts.reports[c] += here;
      for (uint16_t b : bloom.SetBits(c, items[s])) {
        true_ones[size_t{c} * k + b] += here;
      }
    }
  }
  const PureProtocol bit = decoder.bit();
  for (size_t cell = 0; cell < true_ones.size(); ++cell) {
    const int64_t on = true_ones[cell];
    const int64_t off = counts.reports[cell / k] - on;
    counts.ones[cell] = std::binomial_distribution<int64_t>(on, bit.p)(gen) +
                        std::binomial_distribution<int64_t>(off, bit.q)(gen);
  }
  return counts;
}

// `strings` first, then distinct random decoys up to `total`.
std::vector<uint32_t> SparseTestDictionary(const std::vector<uint32_t>& strings,
                                           size_t total, uint64_t seed) {
  SeededGenerator gen(seed);
  std::set<uint32_t> seen(strings.begin(), strings.end());
  std::vector<uint32_t> out = strings;
  while (out.size() < total) {
    const auto v = static_cast<uint32_t>(gen());
    if (seen.insert(v).second) out.push_back(v);
  }
  return out;
}

// Up to 1,024 candidates the cohort bits can tell apart, the decode is the
// dense fit with Benjamini–Hochberg, number for number.
TEST(RapporSparseDecoder, DensePathIsTheFitWithDiscoveries) {
  const RapporDecoder decoder = MakeSparseTestDecoder(64, 16);
  const std::vector<uint32_t> strings = {7, 40, 99, 130, 222};
  const std::vector<double> shares = {0.4, 0.25, 0.15, 0.12, 0.08};
  const RapporCounts counts =
      SimulateSparseTestCounts(decoder, strings, shares, 20000, 3);
  const std::vector<uint32_t> candidates =
      SparseTestDictionary(strings, 100, 4);
  auto decode = DecodeCandidates(decoder, counts, candidates, 0.1);
  auto fit = decoder.Fit(counts, candidates);
  ASSERT_OK(decode);
  ASSERT_OK(fit);
  EXPECT_TRUE(decode->dense);
  EXPECT_EQ(decode->num_reports, fit->num_reports);
  EXPECT_EQ(decode->frequencies, fit->frequencies);
  EXPECT_EQ(decode->variances, fit->variances);
  EXPECT_EQ(decode->p_values, fit->p_values);
  EXPECT_EQ(decode->selected, std::vector<bool>(candidates.size(), true));
  std::vector<bool> discovered(candidates.size(), false);
  for (size_t j : RapporDiscoveries(*fit, 0.1)) discovered[j] = true;
  EXPECT_EQ(decode->discovered, discovered);
}

// Invariants of every sparse decode: unselected candidates carry nothing,
// and only selected ones are discovered.
void ExpectSparseDecodeShape(const RapporCandidateDecode& decode) {
  EXPECT_FALSE(decode.dense);
  size_t selected = 0;
  for (size_t v = 0; v < decode.selected.size(); ++v) {
    if (decode.selected[v]) {
      ++selected;
      continue;
    }
    EXPECT_EQ(decode.frequencies[v], 0.0);
    EXPECT_EQ(decode.variances[v], std::numeric_limits<double>::infinity());
    EXPECT_EQ(decode.p_values[v], 1.0);
    EXPECT_FALSE(decode.discovered[v]);
  }
  EXPECT_LE(selected, kMaxDenseCandidates);
}

// 50 strings among 10^4 candidates, n = 10^6, the deployed filter shape.
// σ is the exact standard error of a fit over the true strings alone. The
// strings hold all the mass, so the empirical null stays near (0, 1), and a
// string at ≥ 6σ clears z = Φ⁻¹(1 − 1/(2m)) ≈ 3.9 standard errors with
// probability Φ(6 − 3.9) ≈ 0.98 or more, and then has p < 10⁻⁸, far below
// BH's bar.
// Each decoy enters the Lasso with probability about 1/(2m), so the decoys
// it selects are about Poisson(0.5): ≥ 5 has probability below 0.02%. At
// λ = z·s alone (no leak term) 91 entered. The refit adds the unselected
// above the null's 99.9th percentile (about 0.1% of the decoys), whose refit
// p-values are near the null's; Benjamini–Hochberg at q = 0.05 over R ≤ 50
// discoveries keeps E[V] ≤ 2.5, and V ≥ 10 has probability below 0.1% for
// a Poisson count of that mean.
TEST(RapporSparseDecoder, FindsStrongStringsAmongTenThousandCandidates) {
  const RapporDecoder decoder = MakeSparseTestDecoder(128, 64);
  std::vector<uint32_t> strings;
  std::vector<double> shares;
  for (uint32_t s = 0; s < 50; ++s) {
    strings.push_back(1000003 * (s + 1));
    shares.push_back(s < 30 ? 0.025 : 0.022 - 0.001 * (s - 30));
  }
  const int64_t n = 1000000;
  const RapporCounts counts =
      SimulateSparseTestCounts(decoder, strings, shares, n, 11);
  const std::vector<uint32_t> candidates =
      SparseTestDictionary(strings, 10000, 12);
  auto decode = DecodeCandidates(decoder, counts, candidates, 0.05);
  auto oracle_variances = decoder.Variances(counts.reports, strings, shares);
  ASSERT_OK(decode);
  ASSERT_OK(oracle_variances);
  ExpectSparseDecodeShape(*decode);
  int strong = 0, false_selected = 0;
  for (size_t s = 0; s < strings.size(); ++s) {
    const double sigma = std::sqrt((*oracle_variances)[s]);
    if (shares[s] < 6 * sigma) continue;
    ++strong;
    EXPECT_TRUE(decode->discovered[s]) << "string " << s;
    EXPECT_LE(std::abs(decode->frequencies[s] - shares[s]),
              5 * std::sqrt(decode->variances[s]))
        << "string " << s;
  }
  const auto lasso = FitRapporLasso(decoder, counts, candidates);
  ASSERT_OK(lasso);
  int false_discovered = 0;
  for (size_t v = strings.size(); v < candidates.size(); ++v) {
    false_selected += lasso->coefficients[v] > 0;
    false_discovered += decode->discovered[v];
  }
  EXPECT_GE(strong, 40);  // the shares are chosen well above the noise
  EXPECT_LE(false_selected, 4);
  EXPECT_LE(false_discovered, 9);
}

// ρ_v = Σ_c Σ_{i ∈ bits(c,v)} (t̂_ci − n_c·(X_c f)_i), recomputed from the
// counts and the filters, not from the solver's residuals.
std::vector<double> SparseTestCorrelations(const RapporDecoder& decoder,
                                           const RapporCounts& counts,
                                           const std::vector<uint32_t>& items,
                                           const std::vector<double>& f) {
  const RapporBloom& bloom = decoder.bloom();
  const uint32_t k = bloom.num_bits();
  const PureProtocol bit = decoder.bit();
  std::vector<double> residual(counts.ones.size());
  for (size_t cell = 0; cell < residual.size(); ++cell) {
    const double n_c = static_cast<double>(counts.reports[cell / k]);
    residual[cell] = (static_cast<double>(counts.ones[cell]) - n_c * bit.q) /
                     (bit.p - bit.q);
  }
  for (uint32_t c = 0; c < bloom.num_cohorts(); ++c) {
    const double n_c = static_cast<double>(counts.reports[c]);
    for (size_t v = 0; v < items.size(); ++v) {
      for (uint16_t b : bloom.SetBits(c, items[v])) {
        residual[size_t{c} * k + b] -= n_c * f[v];
      }
    }
  }
  std::vector<double> rho(items.size(), 0.0);
  for (uint32_t c = 0; c < bloom.num_cohorts(); ++c) {
    if (counts.reports[c] == 0) continue;
    for (size_t v = 0; v < items.size(); ++v) {
      for (uint16_t b : bloom.SetBits(c, items[v])) {
        rho[v] += residual[size_t{c} * k + b];
      }
    }
  }
  return rho;
}

// λ_v = κ·(s_v + Σ_{u ∈ S, u ≠ v} A_vu·s_u/H_u) (rappor_sparse_decoder.h)
// for S the support of f, from the filters and counts directly.
std::vector<double> SparseTestPenalties(const RapporDecoder& decoder,
                                        const RapporCounts& counts,
                                        const std::vector<uint32_t>& items,
                                        const std::vector<double>& f,
                                        double kappa) {
  const RapporBloom& bloom = decoder.bloom();
  const uint32_t k = bloom.num_bits();
  const auto [v0, v1] = BitNoise(decoder.bit());
  const size_t m = items.size();
  std::vector<double> curvature(m, 0.0), variance(m, 0.0), shared(m * m, 0.0);
  for (uint32_t c = 0; c < bloom.num_cohorts(); ++c) {
    const double n_c = static_cast<double>(counts.reports[c]);
    if (n_c == 0) continue;
    std::vector<std::vector<size_t>> holders(k);
    for (size_t v = 0; v < m; ++v) {
      for (uint16_t b : bloom.SetBits(c, items[v])) {
        const double t =
            std::clamp((static_cast<double>(counts.ones[size_t{c} * k + b]) -
                        n_c * decoder.bit().q) /
                           (decoder.bit().p - decoder.bit().q),
                       0.0, n_c);
        curvature[v] += n_c;
        variance[v] += n_c * v0 + t * v1 + t * (1 - t / n_c);
        for (size_t u : holders[b]) shared[u * m + v] += n_c;
        holders[b].push_back(v);
      }
    }
  }
  std::vector<double> penalties(m);
  for (size_t v = 0; v < m; ++v) {
    penalties[v] = std::sqrt(variance[v]);
    for (size_t u = 0; u < m; ++u) {
      if (u == v || f[u] <= 0) continue;
      const double a = shared[std::min(u, v) * m + std::max(u, v)];
      penalties[v] += a * std::sqrt(variance[u]) / curvature[u];
    }
    penalties[v] *= kappa;
  }
  return penalties;
}

// 300 candidates on 8 cohorts of 32 bits: more than the 256 cohort bits,
// so the dense fit is singular and the Lasso decides. Its solution meets
// the KKT conditions at its penalties, which are λ(S) for its support S.
TEST(RapporSparseDecoder, LassoSolutionMeetsTheKktConditions) {
  const RapporDecoder decoder = MakeSparseTestDecoder(32, 8);
  const std::vector<uint32_t> strings = {3, 14, 15, 92, 65, 35, 89, 79};
  const std::vector<double> shares(8, 0.125);
  const RapporCounts counts =
      SimulateSparseTestCounts(decoder, strings, shares, 20000, 5);
  const std::vector<uint32_t> candidates =
      SparseTestDictionary(strings, 300, 6);
  auto lasso = FitRapporLasso(decoder, counts, candidates);
  ASSERT_OK(lasso);
  EXPECT_TRUE(lasso->converged);
  const std::vector<double> rho =
      SparseTestCorrelations(decoder, counts, candidates, lasso->coefficients);
  ASSERT_TRUE(lasso->fixed_point);
  EXPECT_GE(lasso->multiplier, NormalQuantile(1 - 0.5 / 300));  // μ̂, σ̂ ≥ 0, 1
  const std::vector<double> penalties = SparseTestPenalties(
      decoder, counts, candidates, lasso->coefficients, lasso->multiplier);
  int nonzero = 0;
  for (size_t v = 0; v < candidates.size(); ++v) {
    const double s = lasso->noise_sds[v];
    ASSERT_GT(s, 0);
    EXPECT_NEAR(lasso->penalties[v], penalties[v], 1e-9 * s);
    if (lasso->coefficients[v] > 0) {
      ++nonzero;
      EXPECT_NEAR(rho[v], lasso->penalties[v], 1e-4 * s) << "candidate " << v;
    } else {
      EXPECT_LE(rho[v], lasso->penalties[v] + 1e-4 * s) << "candidate " << v;
    }
  }
  EXPECT_GE(nonzero, 8);
  auto decode = DecodeCandidates(decoder, counts, candidates, 0.05);
  ASSERT_OK(decode);
  ExpectSparseDecodeShape(*decode);
  for (size_t s = 0; s < strings.size(); ++s) {
    EXPECT_TRUE(decode->discovered[s]) << "string " << s;
  }
}

// One cohort of 32 bits and 60 candidates (too few for an empirical null,
// so the theoretical one): filters repeat and overlap, and the Lasso's
// selection (13 here, fewer than the 32 bits) has a singular refit. The
// smallest are dropped until it is not; what remains is identified.
TEST(RapporSparseDecoder, DropsTheSmallestUntilTheRefitIsNotSingular) {
  const RapporDecoder decoder = MakeSparseTestDecoder(32, 1);
  std::vector<uint32_t> strings;
  for (uint32_t s = 0; s < 12; ++s) strings.push_back(77 * (s + 1) + 1300000);
  const RapporCounts counts = SimulateSparseTestCounts(
      decoder, strings, std::vector<double>(12, 1.0 / 12), 1000000, 13);
  const std::vector<uint32_t> candidates =
      SparseTestDictionary(strings, 60, 13);
  auto lasso = FitRapporLasso(decoder, counts, candidates);
  auto decode = DecodeCandidates(decoder, counts, candidates, 0.05);
  ASSERT_OK(lasso);
  ASSERT_OK(decode);
  ExpectSparseDecodeShape(*decode);
  size_t nonzero = 0, selected = 0;
  for (size_t v = 0; v < candidates.size(); ++v) {
    nonzero += lasso->coefficients[v] > 0;
    if (!decode->selected[v]) continue;
    ++selected;
    EXPECT_GT(lasso->coefficients[v], 0);
    EXPECT_TRUE(std::isfinite(decode->variances[v]));
  }
  EXPECT_LT(nonzero, 32u);
  EXPECT_GT(selected, 0u);
  EXPECT_LT(selected, nonzero);
}

TEST(RapporSparseDecoder, RefusesBadInputsAndDecodesNoReportsAsNothing) {
  const RapporDecoder decoder = MakeSparseTestDecoder(32, 8);
  const RapporCounts empty{.reports = std::vector<int64_t>(8, 0),
                           .ones = std::vector<int64_t>(8 * 32, 0)};
  auto nothing = DecodeCandidates(decoder, empty, {1, 2, 3}, 0.05);
  ASSERT_OK(nothing);
  EXPECT_EQ(nothing->num_reports, 0);
  EXPECT_EQ(nothing->selected, std::vector<bool>(3, false));
  EXPECT_EQ(nothing->p_values, std::vector<double>(3, 1.0));
  const auto invalid = StatusIs(absl::StatusCode::kInvalidArgument);
  RapporCounts short_reports = empty;
  short_reports.reports.pop_back();
  EXPECT_THAT(DecodeCandidates(decoder, short_reports, {1}, 0.05), invalid);
  RapporCounts short_ones = empty;
  short_ones.ones.pop_back();
  EXPECT_THAT(DecodeCandidates(decoder, short_ones, {1}, 0.05), invalid);
  EXPECT_THAT(DecodeCandidates(decoder, empty, {1, 2, 1}, 0.05), invalid);
  EXPECT_THAT(DecodeCandidates(decoder, empty, {}, 0.05), invalid);
  std::vector<uint32_t> too_many(kMaxCandidates + 1);
  std::iota(too_many.begin(), too_many.end(), 0);
  EXPECT_THAT(DecodeCandidates(decoder, empty, too_many, 0.05), invalid);
  for (double fdr : {0.0, 1.0, -0.5, std::nan("")}) {
    EXPECT_THAT(DecodeCandidates(decoder, empty, {1}, fdr), invalid) << fdr;
  }
  EXPECT_THAT(FitRapporLasso(decoder, empty, {}), invalid);
  // 1,024 cohorts of 16 hashes: 8,192 candidates fill the bit table.
  const RapporDecoder wide(RapporBloom(128, 16, 1024, 1), decoder.bit());
  const RapporCounts wide_counts{.reports = std::vector<int64_t>(1024, 0),
                                 .ones = std::vector<int64_t>(1024 * 128, 0)};
  std::vector<uint32_t> table_full(8193);
  std::iota(table_full.begin(), table_full.end(), 0);
  EXPECT_THAT(DecodeCandidates(wide, wide_counts, table_full, 0.05), invalid);
  table_full.pop_back();
  EXPECT_OK(DecodeCandidates(wide, wide_counts, table_full, 0.05));
}

}  // namespace
}  // namespace ldp
