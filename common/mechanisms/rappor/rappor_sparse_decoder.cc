// RAPPOR's Lasso-then-refit dictionary decode; see rappor_sparse_decoder.h.
#include "common/mechanisms/rappor/rappor_sparse_decoder.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <numeric>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/estimation/confidence_interval.h"
#include "common/estimation/false_discovery.h"

namespace ldp {
namespace {

constexpr uint16_t kNoBit = 0xFFFF;  // pads a filter whose hashes collided
constexpr double kTiny = std::numeric_limits<double>::min();

absl::Status CheckInputs(const RapporBloom& bloom, const RapporCounts& counts,
                         absl::Span<const uint32_t> candidates) {
  const size_t cells = size_t{bloom.num_cohorts()} * bloom.num_bits();
  const size_t per_candidate = size_t{bloom.num_cohorts()} * bloom.num_hashes();
  if (counts.reports.size() != bloom.num_cohorts() ||
      counts.ones.size() != cells) {
    return absl::InvalidArgumentError(
        absl::StrCat("rappor: expected counts for ", bloom.num_cohorts(),
                     " cohorts and ", cells, " bits, got ",
                     counts.reports.size(), " and ", counts.ones.size()));
  }
  if (std::any_of(counts.reports.begin(), counts.reports.end(),
                  [](int64_t n) { return n < 0; })) {
    return absl::InvalidArgumentError("rappor: negative count");
  }
  if (candidates.empty() || candidates.size() > kMaxCandidates) {
    return absl::InvalidArgumentError(
        absl::StrCat("rappor: decode 1 to ", kMaxCandidates,
                     " candidates, got ", candidates.size()));
  }
  if (candidates.size() * per_candidate > kMaxLassoTableEntries) {
    return absl::InvalidArgumentError(absl::StrCat(
        "rappor: decode at most ", kMaxLassoTableEntries / per_candidate,
        " candidates with this filter shape (the decoder's bit table)"));
  }
  std::vector<uint32_t> sorted(candidates.begin(), candidates.end());
  std::sort(sorted.begin(), sorted.end());
  return std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()
             ? absl::InvalidArgumentError("rappor: a candidate is listed twice")
             : absl::OkStatus();
}

// Candidates' bits in the cohorts with reports: h slots per cohort.
struct SparseDesign {
  SparseDesign(const RapporBloom& bloom, absl::Span<const uint32_t> cohorts,
               absl::Span<const uint32_t> candidates)
      : hashes(bloom.num_hashes()),
        cohort_bits(bloom.num_bits()),
        stride(cohorts.size() * hashes),
        count(candidates.size()),
        bits(count * stride, kNoBit) {
    for (size_t v = 0; v < count; ++v) {
      for (size_t a = 0; a < cohorts.size(); ++a) {
        const RapporBloom::Bits set = bloom.SetBits(cohorts[a], candidates[v]);
        std::copy(set.begin(), set.end(), &bits[v * stride + a * hashes]);
      }
    }
  }
  size_t size() const { return count; }
  // visit(cell = a·k + i, a) for each bit i of v in the a-th cohort.
  template <typename Visit>
  void ForEachBit(size_t v, Visit visit) const {
    // data() + offset: with no cohorts there is no element to bind to.
    const uint16_t* slots = bits.data() + v * stride;
    for (size_t slot = 0; slot < stride; ++slot) {
      if (slots[slot] != kNoBit) {
        visit(slot / hashes * cohort_bits + slots[slot], slot / hashes);
      }
    }
  }

  size_t hashes, cohort_bits, stride, count;
  std::vector<uint16_t> bits;
};

// Σ of x over candidate v's cells; ρ_v for x the residual.
double SumOnBits(const SparseDesign& design, size_t v,
                 const std::vector<double>& x) {
  double sum = 0;
  design.ForEachBit(v, [&](size_t cell, size_t) { sum += x[cell]; });
  return sum;
}

// The Lasso's state over the cohorts with reports.
struct LassoState {
  std::vector<double> reports;    // n_c
  std::vector<double> residual;   // r at a·k + i; t̂ at f = 0
  std::vector<double> curvature;  // H_v
  std::vector<double> penalty;    // λ_v
  std::vector<double> noise_sd;   // s_v
  std::vector<double> leak;       // L_v of the support behind λ
  std::vector<double> f;
  double first_entry = 0;  // the largest ρ_v/s_v at f = 0
};

// t̂ as the residual at f = 0, H_v, and s_v from the bit variances w.
LassoState MakeLassoState(const SparseDesign& design,
                          const RapporCounts& counts,
                          absl::Span<const uint32_t> cohorts, uint32_t k,
                          PureProtocol bit) {
  const auto [v0, v1] = BitNoise(bit);
  LassoState s;
  std::vector<double> w;
  for (uint32_t c : cohorts) {
    const double n_c = static_cast<double>(counts.reports[c]);
    s.reports.push_back(n_c);
    for (uint32_t i = 0; i < k; ++i) {
      const double ones = static_cast<double>(counts.ones[size_t{c} * k + i]);
      const double t = (ones - n_c * bit.q) / (bit.p - bit.q);
      const double on = std::clamp(t, 0.0, n_c);  // T_ci
      s.residual.push_back(t);
      w.push_back(std::max(0.0, n_c * v0 + on * v1 + on * (1 - on / n_c)));
    }
  }
  const size_t m = design.size();
  for (auto* x : {&s.curvature, &s.penalty, &s.noise_sd, &s.leak, &s.f}) {
    x->assign(m, 0.0);
  }
  for (size_t v = 0; v < m; ++v) {
    design.ForEachBit(v, [&](size_t cell, size_t a) {
      s.curvature[v] += s.reports[a];
      s.noise_sd[v] += w[cell];  // the variance, until the root below
    });
    s.noise_sd[v] = std::sqrt(s.noise_sd[v]);
    s.first_entry = std::max(s.first_entry, SumOnBits(design, v, s.residual) /
                                                std::max(s.noise_sd[v], kTiny));
  }
  return s;
}

// One coordinate step; returns v's KKT violation before it, in s_v.
double UpdateCoordinate(const SparseDesign& design, LassoState& s, size_t v) {
  const double excess = SumOnBits(design, v, s.residual) - s.penalty[v];
  const double violation =
      s.f[v] > 0 ? std::abs(excess) : std::max(0.0, excess);
  const double next = std::max(0.0, s.f[v] + excess / s.curvature[v]);
  const double delta = next - s.f[v];
  if (delta != 0) {
    design.ForEachBit(v, [&](size_t cell, size_t a) {
      s.residual[cell] -= s.reports[a] * delta;
    });
    s.f[v] = next;
  }
  return violation / std::max(s.noise_sd[v], kTiny);
}

std::vector<uint32_t> Support(const std::vector<double>& f) {
  std::vector<uint32_t> support;
  for (size_t v = 0; v < f.size(); ++v) {
    if (f[v] > 0) support.push_back(static_cast<uint32_t>(v));
  }
  return support;
}

// Active-set coordinate descent, counted into `out`.
void RunCoordinateDescent(const SparseDesign& design, LassoState& state,
                          RapporLasso& out) {
  std::vector<uint32_t> all(design.size()), active;
  std::iota(all.begin(), all.end(), 0);
  const auto sweep = [&](absl::Span<const uint32_t> coordinates) {
    ++out.sweeps;
    double worst = 0;  // the largest KKT violation met
    for (uint32_t v : coordinates) {
      worst = std::max(worst, UpdateCoordinate(design, state, v));
    }
    return worst;
  };
  ++out.rounds;
  for (int full = 0; full < kMaxLassoFullSweeps; ++full) {
    out.converged = sweep(all) <= kLassoTolerance;
    if (out.converged) return;
    active = Support(state.f);
    for (int pass = 0; pass < kMaxLassoActiveSweeps; ++pass) {
      if (sweep(active) <= kLassoTolerance) break;
    }
  }
}

// L_v = Σ_{u ∈ S, u ≠ v} A_vu·s_u/H_u (rappor_sparse_decoder.h), through
// the field the candidates of S leave on their bits; u's own share is s_u.
std::vector<double> Leaks(const SparseDesign& design,
                          absl::Span<const uint32_t> support,
                          const LassoState& s) {
  std::vector<double> field(s.residual.size(), 0.0), leak(design.size());
  for (uint32_t u : support) {
    design.ForEachBit(u, [&](size_t cell, size_t a) {
      field[cell] += s.reports[a] * s.noise_sd[u] / s.curvature[u];
    });
  }
  for (size_t v = 0; v < design.size(); ++v) {
    leak[v] = SumOnBits(design, v, field);
  }
  for (uint32_t u : support) leak[u] = std::max(0.0, leak[u] - s.noise_sd[u]);
  return leak;
}

// The scale the upper tail of the null implies: (Q(1 − α) − median)/z_α
// at the smallest α with kTailSamples values above its quantile. Strings
// left out leak into some decoys far more than into most (those sharing
// many bits with a heavy one), a right tail the MAD does not see.
double TailScale(std::vector<double>& z, double median) {
  double scale = 0;
  for (const double alpha : {0.01, 0.002}) {
    if (alpha * static_cast<double>(z.size()) < kTailSamples) break;
    const auto at =
        z.begin() +
        static_cast<ptrdiff_t>((1 - alpha) * static_cast<double>(z.size()));
    std::nth_element(z.begin(), at, z.end());
    scale = std::max(scale, (*at - median) / NormalQuantile(1 - alpha));
  }
  return scale;
}

// The median and the larger of 1.4826·MAD and (`tail`) the tail's scale,
// floored at 0 and 1, of (ρ_v − κ·L_v)/s_v over the unselected v: the
// empirical null. The tail is read only at the path's last level: above
// it, strings the path has yet to select still sit in the tail.
std::pair<double, double> EmpiricalNull(const SparseDesign& design,
                                        const LassoState& s, double kappa,
                                        bool tail) {
  std::vector<double> z;
  for (size_t v = 0; v < design.size(); ++v) {
    if (s.f[v] > 0) continue;
    z.push_back((SumOnBits(design, v, s.residual) - kappa * s.leak[v]) /
                std::max(s.noise_sd[v], kTiny));
  }
  if (z.size() < kMinEmpiricalNull) return {0.0, 1.0};
  const auto middle = z.begin() + static_cast<ptrdiff_t>(z.size() / 2);
  std::nth_element(z.begin(), middle, z.end());
  const double median = *middle;
  const double tail_scale = tail ? TailScale(z, median) : 0.0;
  for (double& x : z) x = std::abs(x - median);
  std::nth_element(z.begin(), middle, z.end());  // the MAD
  return {std::max(0.0, median), std::max({1.0, 1.4826 * *middle, tail_scale})};
}

void SetPenalties(double kappa, LassoState& s, RapporLasso& out) {
  out.multiplier = kappa;
  for (size_t v = 0; v < s.f.size(); ++v) {
    s.penalty[v] = kappa * (s.noise_sd[v] + s.leak[v]);
  }
}

// Solves at κ = μ̂ + t·σ̂ and λ(S) of the last solve, adopting the new ones
// once on the way down; at the last level until both repeat (true) or
// kMaxLassoRounds, and if S alternates, at the larger one's λ.
bool SolveAtLevel(const SparseDesign& design, double level, bool last,
                  std::vector<uint32_t>& used, LassoState& state,
                  RapporLasso& out) {
  std::vector<uint32_t> before;
  SetPenalties(out.null_shift + level * out.null_scale, state, out);
  for (int round = 1;; ++round) {
    RunCoordinateDescent(design, state, out);
    std::vector<uint32_t> support = Support(state.f);
    state.leak = Leaks(design, support, state);
    const auto [shift, scale] =
        EmpiricalNull(design, state, out.multiplier, last);
    const double kappa = shift + level * scale;
    if (support == used && std::abs(kappa - out.multiplier) <= kNullTolerance) {
      return true;
    }
    const bool alternating = round > 1 && support == before;
    if (last && (round >= kMaxLassoRounds ||
                 (alternating && support.size() <= used.size()))) {
      state.leak = Leaks(design, used, state);  // λ's, as returned
      return false;
    }
    if (alternating) round = kMaxLassoRounds - 1;  // one more, at λ(support)
    out.null_shift = shift;
    out.null_scale = scale;
    before = std::move(used);
    used = std::move(support);
    if (!last) return false;
    SetPenalties(kappa, state, out);
  }
}

// From the first entry down to z by factors kLassoPathStep, each level's
// support and null feeding the next one's.
void SolveAlongPath(const SparseDesign& design, LassoState& state,
                    RapporLasso& out) {
  const double z = NormalQuantile(1 - 0.5 / static_cast<double>(design.size()));
  double level = state.first_entry;
  std::vector<uint32_t> used;
  do {
    level = std::max(z, level * kLassoPathStep);
    out.fixed_point = SolveAtLevel(design, level, level == z, used, state, out);
  } while (level > z);
}

std::vector<uint32_t> CohortsWithReports(const RapporCounts& counts) {
  std::vector<uint32_t> cohorts;
  for (uint32_t c = 0; c < counts.reports.size(); ++c) {
    if (counts.reports[c] > 0) cohorts.push_back(c);
  }
  return cohorts;
}

RapporCandidateDecode Unselected(size_t m, int64_t num_reports) {
  const double inf = std::numeric_limits<double>::infinity();
  return {num_reports,
          std::vector<double>(m, 0.0),
          std::vector<double>(m, inf),
          std::vector<double>(m, 1.0),
          std::vector<bool>(m),
          std::vector<bool>(m)};
}

// The refit on the longest nonsingular prefix of `ranked`, cut to it: as
// a singular set stays singular with more, bisection finds it.
absl::StatusOr<RapporFit> RefitLongestPrefix(
    const RapporDecoder& decoder, const RapporCounts& counts,
    absl::Span<const uint32_t> candidates, std::vector<uint32_t>& ranked) {
  const auto fit_prefix = [&](size_t length) {
    std::vector<uint32_t> items;
    for (size_t j = 0; j < length; ++j) items.push_back(candidates[ranked[j]]);
    return decoder.Fit(counts, items);
  };
  absl::StatusOr<RapporFit> fit = fit_prefix(ranked.size());
  if (fit.ok() || !absl::IsFailedPrecondition(fit.status())) return fit;
  size_t good = 0, bad = ranked.size();  // prefix lengths
  while (bad - good > 1) {
    const size_t mid = good + (bad - good) / 2;
    fit = fit_prefix(mid);
    if (!fit.ok() && !absl::IsFailedPrecondition(fit.status())) return fit;
    (fit.ok() ? good : bad) = mid;
  }
  ranked.resize(good);
  return good == 0 ? RapporFit{} : fit_prefix(good);
}

// After the selected (`ranked`), the unselected above the null's
// kRefitLevel, largest statistic first.
void AddRefitCandidates(const RapporLasso& lasso,
                        std::vector<uint32_t>& ranked) {
  const double bar = lasso.null_shift + kRefitLevel * lasso.null_scale;
  const std::vector<double>& stat = lasso.statistics;
  std::vector<uint32_t> extra;
  for (uint32_t v = 0; v < stat.size(); ++v) {
    if (lasso.coefficients[v] == 0 && stat[v] >= bar) extra.push_back(v);
  }
  std::stable_sort(extra.begin(), extra.end(),
                   [&](uint32_t a, uint32_t b) { return stat[a] > stat[b]; });
  ranked.insert(ranked.end(), extra.begin(), extra.end());
}

// The Lasso's selection, at most kMaxDenseCandidates, and its refit, with
// p-values against the Lasso's empirical null.
absl::StatusOr<RapporFit> LassoRefit(const RapporDecoder& decoder,
                                     const RapporCounts& counts,
                                     absl::Span<const uint32_t> candidates,
                                     size_t cells,
                                     std::vector<uint32_t>& ranked) {
  ASSIGN_OR_RETURN(const RapporLasso lasso,
                   FitRapporLasso(decoder, counts, candidates));
  const std::vector<double>& f = lasso.coefficients;
  ranked = Support(f);  // largest first; more than `cells` is singular
  std::stable_sort(ranked.begin(), ranked.end(),
                   [&](uint32_t a, uint32_t b) { return f[a] > f[b]; });
  AddRefitCandidates(lasso, ranked);
  ranked.resize(std::min({ranked.size(), kMaxDenseCandidates, cells}));
  if (ranked.empty()) return RapporFit{};
  ASSIGN_OR_RETURN(RapporFit fit,
                   RefitLongestPrefix(decoder, counts, candidates, ranked));
  for (size_t j = 0; j < fit.p_values.size(); ++j) {
    const double z = fit.frequencies[j] / std::sqrt(fit.variances[j]);
    fit.p_values[j] = 0.5 * std::erfc((z - lasso.null_shift) /
                                      (lasso.null_scale * std::sqrt(2.0)));
  }
  return fit;
}

}  // namespace

absl::StatusOr<RapporLasso> FitRapporLasso(
    const RapporDecoder& decoder, const RapporCounts& counts,
    absl::Span<const uint32_t> candidates) {
  const RapporBloom& bloom = decoder.bloom();
  RETURN_IF_ERROR(CheckInputs(bloom, counts, candidates));
  const std::vector<uint32_t> cohorts = CohortsWithReports(counts);
  const SparseDesign design(bloom, cohorts, candidates);
  LassoState state =
      MakeLassoState(design, counts, cohorts, bloom.num_bits(), decoder.bit());
  RapporLasso out{.converged = cohorts.empty()};  // no reports: all zero
  if (!cohorts.empty()) SolveAlongPath(design, state, out);
  out.statistics.resize(design.size());
  for (size_t v = 0; v < design.size(); ++v) {
    out.statistics[v] = (SumOnBits(design, v, state.residual) -
                         out.multiplier * state.leak[v]) /
                        std::max(state.noise_sd[v], kTiny);
  }
  out.coefficients = std::move(state.f);
  out.penalties = std::move(state.penalty);
  out.noise_sds = std::move(state.noise_sd);
  return out;
}

absl::StatusOr<RapporCandidateDecode> DecodeCandidates(
    const RapporDecoder& decoder, const RapporCounts& counts,
    absl::Span<const uint32_t> candidates, double fdr) {
  if (!(fdr > 0 && fdr < 1)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "rappor: the false-discovery rate must be in (0, 1), got ", fdr));
  }
  RETURN_IF_ERROR(CheckInputs(decoder.bloom(), counts, candidates));
  const int64_t num_reports =
      std::accumulate(counts.reports.begin(), counts.reports.end(), int64_t{0});
  // rank(A) ≤ the cohort bits with reports; rounding might hide that.
  const size_t cells =
      CohortsWithReports(counts).size() * size_t{decoder.bloom().num_bits()};
  RapporCandidateDecode out = Unselected(candidates.size(), num_reports);
  std::vector<uint32_t> ranked(candidates.size());
  std::iota(ranked.begin(), ranked.end(), 0);
  absl::StatusOr<RapporFit> fit = absl::FailedPreconditionError("sparse");
  if (candidates.size() <= std::min(kMaxDenseCandidates, cells)) {
    fit = decoder.Fit(counts, candidates);
  }
  out.dense = fit.ok();
  if (!out.dense && absl::IsFailedPrecondition(fit.status())) {
    fit = LassoRefit(decoder, counts, candidates, cells, ranked);
  }
  RETURN_IF_ERROR(fit.status());
  for (size_t j = 0; j < ranked.size(); ++j) {
    out.frequencies[ranked[j]] = fit->frequencies[j];
    out.variances[ranked[j]] = fit->variances[j];
    out.p_values[ranked[j]] = fit->p_values[j];
    out.selected[ranked[j]] = true;
  }
  out.discovered = BenjaminiHochberg(out.p_values, fdr);
  return out;
}

}  // namespace ldp
