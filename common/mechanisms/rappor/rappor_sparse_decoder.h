// RAPPOR's decode of a large candidate dictionary (up to 100,000 strings),
// the way RAPPOR's own analysis does it (Erlingsson, Pihur, Korolova, CCS
// 2014, §4): a nonnegative Lasso selects the candidates the counts support,
// least squares refits the selected ones (rappor_decoder.h: exact
// variances, one-sided p-values), and Benjamini–Hochberg over all m
// candidates picks the discoveries. Why: the dense fit over every candidate
// needs m² memory and m³ time, and is singular once the candidates exceed
// what the C·k cohort bits can tell apart; the Lasso needs neither.
//
// The Lasso, in rappor_decoder.h's weighted model (cohorts without reports
// drop out): minimize over f ≥ 0
//   ½ Σ_c (1/n_c) Σ_i (t̂_ci − n_c·(X_c f)_i)² + Σ_v λ_v·f_v.
// With residuals r_ci = t̂_ci − n_c·(X_c f)_i, the smooth part's negative
// gradient is ρ_v = Σ_c Σ_{i ∈ bits(c,v)} r_ci, and f is optimal iff
// ρ_v = λ_v where f_v > 0 and ρ_v ≤ λ_v where f_v = 0 (KKT). Coordinate
// descent sets f_v ← max(0, f_v + (ρ_v − λ_v)/H_v), H_v = Σ_c n_c·|bits(c,v)|,
// and moves the residuals on v's bits: O(C·h) per update, from a table of
// every candidate's bits per cohort made once (C·h uint16 per candidate).
// Sweeps over the nonzero coefficients alternate with sweeps over all,
// until a full sweep finds no KKT violation above kLassoTolerance·s_v, or
// the sweep caps below are reached (the refit is exact either way).
//
// λ from the noise, no tuning knob. For a candidate v nobody holds, with
// the others fitted, the r_ci on v's bits are the bits' noise, so ρ_v is a
// sum of independent terms of variance
//   s_v² = Σ_c Σ_{i ∈ bits(c,v)} w_ci,
//   w_ci = n_c·V0 + T_ci·V1 + T_ci·(1 − T_ci/n_c),
// with T_ci the true ones of bit i in cohort c: n_c·V0 + T_ci·V1 is the
// coins' noise (BitNoise), and T_ci·(1 − T_ci/n_c) bounds the spread of the
// values over cohorts (the decoder's G·S·G term, bit by bit), which the
// pooled fit cannot absorb; it only raises λ. T_ci is plugged in as
// clamp(t̂_ci, 0, n_c), known before any fit. ρ_v/s_v is then close to
// standard normal, and the universal threshold z = Φ⁻¹(1 − 1/(2m)) lets
// each decoy enter with probability about 1/(2m): half a decoy over the
// whole dictionary.
//
// Two things stand between a plain Lasso at λ = z·s and "the others
// fitted"; the penalties undo both (measured at 10^4 candidates, C = 64,
// k = 128, h = 2):
//  - The leak. The Lasso fits the selected strings shrunk, and the shrunk
//    mass stays in the residuals on their bits, where every candidate
//    sharing them picks it up: 91 of 9,950 decoys entered beside 50
//    strings. With S the selected set, A_vu = Σ_c n_c·|bits(c,v) ∩
//    bits(c,u)| (A_uu = H_u), L_v = Σ_{u ∈ S, u ≠ v} A_vu·s_u/H_u and
//      λ_v = κ·(s_v + L_v),
//    a solution with support S has λ_S = A_S·δ, δ_u = κ·s_u/H_u: it is the
//    least-squares fit on S with each f_u shrunk by exactly δ_u, and its
//    KKT condition outside S reads (ρ_v − κ·L_v)/s_v ≤ κ: ρ_v against the
//    least-squares residual, the others fitted.
//  - The strings left out. Held strings too weak to select still put their
//    mass on their bits, which lifts every decoy's statistic about alike,
//    as does noise the cohorts share (0.4 to 1.2 standard errors over
//    Zipf populations of 100 strings). The decoys, nearly all of a
//    dictionary, measure it (Efron's empirical null, JASA 2004): μ̂ is the
//    median of (ρ_v − κ·L_v)/s_v over the unselected and σ̂ the largest of
//    1.4826·MAD, the scale their upper tail implies ((Q(1 − α) − μ̂)/z_α at
//    α = 0.01 and 0.002, where at least 10 values lie above; at the
//    path's last level only, once the strong strings are selected), and 1;
//    μ̂ is floored at 0 (never a quieter null than derived); κ = μ̂ + z·σ̂.
//    The tail matters: a decoy sharing many bits with a heavy string left
//    out gets far more of its mass than most, which the MAD does not see
//    (bench/reports/RAPPOR.md has the realized rates with and without).
// The solver looks for a fixed point (S and κ those of its own solution)
// along a path: the level t in place of z starts at the largest ρ_v/s_v at
// f = 0 and falls by kLassoPathStep to z, one warm solve per level, each
// level's S and null setting the next one's penalties; at z it re-solves
// until S and κ repeat (kMaxLassoRounds). Why a path: jumping straight to
// z admits the leaked decoys, whose leak terms in the next λ push out the
// true strings too, and the two alternate. Each solve is an exact weighted
// Lasso at its penalties, which FitRapporLasso returns.
//
// The refit, like rappor_decoder.h's, takes its candidates to hold all the
// mass; the strings left out raise its estimates by about h/k of their
// mass, and its z = f̂_v/σ_v by about μ̂. So the sparse path's p-value is
// Pr[Z ≥ (z − μ̂)/σ̂], against the null the Lasso selected by: a decoy then
// has p ≤ t with probability about t at most (p = 1 when unselected), what
// Benjamini–Hochberg needs (bench/reports/RAPPOR.md measures the rate).
#ifndef LDP_COMMON_MECHANISMS_RAPPOR_RAPPOR_SPARSE_DECODER_H_
#define LDP_COMMON_MECHANISMS_RAPPOR_RAPPOR_SPARSE_DECODER_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "common/mechanisms/rappor/rappor_decoder.h"

namespace ldp {

// The dense fit's limit (rappor.h's kMaxDomainSize), and the refit's.
inline constexpr size_t kMaxDenseCandidates = 1024;
inline constexpr size_t kMaxCandidates = 100000;
// Coordinate descent stops when no KKT violation exceeds this share of s_v.
inline constexpr double kLassoTolerance = 1e-6;
inline constexpr int kMaxLassoFullSweeps = 20;
inline constexpr int kMaxLassoActiveSweeps = 200;
// The path's factor between levels, and the solves at z until S and κ
// repeat.
inline constexpr double kLassoPathStep = 0.8;
inline constexpr int kMaxLassoRounds = 10;
// The empirical null: κ repeats within kNullTolerance; with fewer
// unselected candidates than kMinEmpiricalNull it is the theoretical one.
inline constexpr double kNullTolerance = 0.01;
inline constexpr size_t kMinEmpiricalNull = 100;
// Unselected candidates whose statistic is above the null's quantile at
// this level (μ̂ + kRefitLevel·σ̂, the 99.9th percentile) join the refit, up
// to kMaxDenseCandidates in all: the heaviest strings too weak to select
// then hold their own mass instead of lending it to the decoys that share
// their bits. Their p-values are the refit's like the others'.
inline constexpr double kRefitLevel = 3.09;
// Values above a quantile the null's tail is read from (TailScale).
inline constexpr double kTailSamples = 10;
// The bit table (m × cohorts with reports × h uint16) is at most this many
// entries, 256 MiB: about 100,000 candidates at C·h ≤ 1,342.
inline constexpr size_t kMaxLassoTableEntries = size_t{1} << 27;

struct RapporCandidateDecode {
  int64_t num_reports = 0;
  std::vector<double> frequencies;  // per candidate; 0 where not selected
  // The refit's exact plug-in variance; +inf where not selected
  // (unidentified).
  std::vector<double> variances;
  // One-sided H0: f = 0 (sparse path: against the empirical null); 1 where
  // not selected.
  std::vector<double> p_values;
  std::vector<bool> selected;    // entered the least-squares refit
  std::vector<bool> discovered;  // Benjamini–Hochberg at level fdr, all m
  bool dense = false;            // every candidate fitted, no Lasso
};

struct RapporLasso {
  std::vector<double> coefficients;  // f_v ≥ 0 per candidate
  std::vector<double> penalties;     // λ_v of the last solve
  std::vector<double> noise_sds;     // s_v
  // (ρ_v − κ·L_v)/s_v at the solution: κ for the selected, the null's
  // statistic for the others.
  std::vector<double> statistics;
  double null_shift = 0;     // μ̂ behind the last solve's λ
  double null_scale = 1;     // σ̂ behind it
  double multiplier = 0;     // κ = μ̂ + z·σ̂
  int sweeps = 0;            // coordinate sweeps, full or active
  int rounds = 0;            // solves, over all levels
  bool converged = false;    // the last solve within kLassoTolerance
  bool fixed_point = false;  // its S and κ are those of its own solution
};

// Dense path when the candidates are at most kMaxDenseCandidates and the
// bits of the cohorts with reports (more is surely singular), and
// RapporDecoder::Fit succeeds on them all (then every candidate is
// selected: the same result as Fit + RapporDiscoveries). Otherwise the
// nonnegative Lasso, then the refit on the selected set (at most
// kMaxDenseCandidates and those bits, keeping the largest Lasso
// coefficients; if the refit is singular, the smallest are dropped until
// it is not), then Benjamini–Hochberg with m = all candidates, unselected
// p = 1. With no reports at all, nothing is selected or discovered.
// InvalidArgument: counts not matching the filter shape, a repeated
// candidate, no candidates, more than kMaxCandidates or a bit table over
// kMaxLassoTableEntries, fdr outside (0, 1).
absl::StatusOr<RapporCandidateDecode> DecodeCandidates(
    const RapporDecoder& decoder, const RapporCounts& counts,
    absl::Span<const uint32_t> candidates, double fdr);

// The Lasso step alone (errors as above, bar fdr). With no reports every
// coefficient, penalty and s_v is 0.
absl::StatusOr<RapporLasso> FitRapporLasso(
    const RapporDecoder& decoder, const RapporCounts& counts,
    absl::Span<const uint32_t> candidates);

}  // namespace ldp

#endif  // LDP_COMMON_MECHANISMS_RAPPOR_RAPPOR_SPARSE_DECODER_H_
