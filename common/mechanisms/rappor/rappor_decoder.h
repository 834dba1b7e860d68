// The server's side of RAPPOR (rappor.h): from per-cohort bit counts to
// candidate frequencies by weighted least squares, their exact variances,
// and a significance cut that bounds the false-discovery rate.
//
// Model. In cohort c (n_c reports) let y_ci count the reports whose bit i
// is 1; one report's bit is 1 with probability P if the value's filter sets
// it, else Q (the layers' composed protocol). Then
//   t̂_ci = (y_ci − n_c·Q)/(P − Q),  E[t̂_ci] = Σ_v X_civ·m_cv,
// with X_civ = 1 iff v's filter in c sets bit i and m_cv the reports of v in
// c. Cohorts are drawn uniformly and independently of the value, so
// E[m_cv | n_c] = n_c·f_v. Over the candidates v (all others taken as 0),
//   f̂ = A⁻¹·b,  A = Σ_c n_c·X_cᵀX_c,  b = Σ_c X_cᵀ t̂_c,
// the least-squares fit weighted by 1/n_c (each t̂_ci's variance grows as
// n_c). It is unbiased when the candidates hold all the mass.
//
// Variance, for a fixed population with frequencies φ (the cohort draw and
// the coins random):
//   Cov[f̂] = A⁻¹·(Σ_c X_cᵀ D_c X_c + Σ_c n_c·G_c S G_c)·A⁻¹ − S/n,
// with D_c = diag(n_c·V0 + n_c·(X_cφ)_i·V1) the bits' coin noise
// (V0 = Q(1 − Q)/(P − Q)², V1 = (1 − P − Q)/(P − Q)), G_c = X_cᵀX_c,
// S = diag(φ) − φφᵀ and n = Σ n_c. The second and third terms are the
// spread of the population over cohorts: m_c is a multivariate
// hypergeometric draw, Cov[m_c, m_d] = (δ_cd·n_c − n_c·n_d/n)·S up to
// n/(n − 1). The fit reports this at the plug-in φ = clamp(f̂, 0, 1).
//
// Significance: candidate v's one-sided p-value for H0: f_v = 0 is
// Pr[Z ≥ f̂_v/σ_v] for a standard normal Z (σ_v at the plug-in, which is
// the null's at f̂_v ≤ 0 and larger above, so conservative), and
// Benjamini–Hochberg (false_discovery.h) picks the discoveries.
#ifndef LDP_COMMON_MECHANISMS_RAPPOR_RAPPOR_DECODER_H_
#define LDP_COMMON_MECHANISMS_RAPPOR_RAPPOR_DECODER_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "common/estimation/pure_protocol.h"
#include "common/mechanisms/rappor/rappor_bloom.h"

namespace ldp {

// The accumulator's sufficient statistics.
struct RapporCounts {
  std::vector<int64_t> reports;  // n_c, one per cohort
  std::vector<int64_t> ones;     // y_ci at c·k + i
};

// One bit's count noise: Var[t̂_ci] = n_c·V0 + T_ci·V1 for T_ci true ones,
// V0 = Q(1 − Q)/(P − Q)², V1 = (1 − P − Q)/(P − Q).
struct RapporBitNoise {
  double v0 = 0;
  double v1 = 0;
};
RapporBitNoise BitNoise(PureProtocol bit);

struct RapporFit {
  int64_t num_reports = 0;
  std::vector<uint32_t> candidates;
  std::vector<double> frequencies;  // f̂ per candidate
  std::vector<double> variances;    // Var[f̂] at the plug-in
  std::vector<double> p_values;     // one-sided, H0: f = 0
};

class RapporDecoder {
 public:
  RapporDecoder(RapporBloom bloom, PureProtocol bit)
      : bloom_(bloom), bit_(bit) {}

  const RapporBloom& bloom() const { return bloom_; }
  PureProtocol bit() const { return bit_; }

  // InvalidArgument if the counts do not fit the filter shape or a
  // candidate repeats; FailedPrecondition if A is singular (more candidates
  // than the cohorts with reports can tell apart, or two candidates with
  // the same filter in every such cohort).
  absl::StatusOr<RapporFit> Fit(const RapporCounts& counts,
                                absl::Span<const uint32_t> candidates) const;

  // The exact Var[f̂_v] per candidate for cohorts of the given sizes and
  // true frequencies φ over the candidates (errors as Fit).
  absl::StatusOr<std::vector<double>> Variances(
      absl::Span<const int64_t> reports_per_cohort,
      absl::Span<const uint32_t> candidates,
      absl::Span<const double> frequencies) const;

  // The mean diagonal of (Σ_c X_cᵀX_c)⁻¹ over the candidates: the design's
  // share of the variance when cohorts are equal.
  absl::StatusOr<double> MeanInverseGramDiagonal(
      absl::Span<const uint32_t> candidates) const;

 private:
  RapporBloom bloom_;
  PureProtocol bit_;
};

// Candidate indices whose p-value Benjamini–Hochberg rejects at level fdr.
std::vector<size_t> RapporDiscoveries(const RapporFit& fit, double fdr);

}  // namespace ldp

#endif  // LDP_COMMON_MECHANISMS_RAPPOR_RAPPOR_DECODER_H_
