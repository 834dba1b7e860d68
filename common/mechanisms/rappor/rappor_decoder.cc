// RAPPOR's weighted least-squares decode; see rappor_decoder.h.
#include "common/mechanisms/rappor/rappor_decoder.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/estimation/cholesky.h"
#include "common/estimation/false_discovery.h"

namespace ldp {

namespace {

// The candidates' filters in every cohort, and per cohort which candidates
// set each bit (the sparse columns and rows of X_c).
class CandidateDesign {
 public:
  CandidateDesign(const RapporBloom& bloom,
                  absl::Span<const uint32_t> candidates)
      : bloom_(bloom), size_(candidates.size()) {
    bits_.reserve(size_t{bloom.num_cohorts()} * size_);
    for (uint32_t c = 0; c < bloom.num_cohorts(); ++c) {
      for (uint32_t v : candidates) bits_.push_back(bloom.SetBits(c, v));
    }
  }

  size_t size() const { return size_; }
  absl::Span<const uint16_t> Bits(uint32_t cohort, size_t j) const {
    return bits_[cohort * size_ + j].span();
  }
  // Candidates setting each bit of `cohort`.
  std::vector<std::vector<uint32_t>> BitRows(uint32_t cohort) const {
    std::vector<std::vector<uint32_t>> rows(bloom_.num_bits());
    for (size_t j = 0; j < size_; ++j) {
      for (uint16_t i : Bits(cohort, j)) {
        rows[i].push_back(static_cast<uint32_t>(j));
      }
    }
    return rows;
  }
  // Σ_c X_cᵀ diag(d_c) X_c with d_c(i) = weight(c, i), row-major.
  template <typename Weight>
  std::vector<double> Gram(Weight weight) const {
    std::vector<double> gram(size_ * size_, 0.0);
    for (uint32_t c = 0; c < bloom_.num_cohorts(); ++c) {
      const auto rows = BitRows(c);
      for (uint32_t i = 0; i < rows.size(); ++i) {
        const double w = rows[i].empty() ? 0 : weight(c, i);
        if (w == 0) continue;
        for (uint32_t u : rows[i]) {
          for (uint32_t v : rows[i]) gram[u * size_ + v] += w;
        }
      }
    }
    return gram;
  }

 private:
  const RapporBloom& bloom_;
  size_t size_;
  std::vector<RapporBloom::Bits> bits_;  // cohort-major
};

absl::Status CheckCandidates(absl::Span<const uint32_t> candidates) {
  if (candidates.empty()) {
    return absl::InvalidArgumentError("rappor: no candidates to decode");
  }
  std::vector<uint32_t> sorted(candidates.begin(), candidates.end());
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
    return absl::InvalidArgumentError("rappor: a candidate is listed twice");
  }
  return absl::OkStatus();
}

absl::Status CheckCohorts(const RapporBloom& bloom,
                          absl::Span<const int64_t> reports) {
  if (reports.size() != bloom.num_cohorts()) {
    return absl::InvalidArgumentError(
        absl::StrCat("rappor: expected counts for ", bloom.num_cohorts(),
                     " cohorts, got ", reports.size()));
  }
  for (int64_t n : reports) {
    if (n < 0) return absl::InvalidArgumentError("rappor: negative count");
  }
  return absl::OkStatus();
}

absl::StatusOr<CholeskyFactor> FactorGram(std::vector<double> gram,
                                          size_t size) {
  auto factor = CholeskyFactor::Factor(std::move(gram), size);
  if (!factor.ok()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "rappor: the ", size,
        " candidates cannot be told apart from the cohorts that have "
        "reports (more candidates than cohort bits, or two candidates with "
        "the same filter in each such cohort); decode fewer candidates or "
        "collect more reports"));
  }
  return factor;
}

// diag(B·M·B) for symmetric B, M (size × size, row-major).
std::vector<double> SandwichDiagonal(const std::vector<double>& b,
                                     const std::vector<double>& m,
                                     size_t size) {
  std::vector<double> out(size), row(size);
  for (size_t u = 0; u < size; ++u) {
    std::fill(row.begin(), row.end(), 0.0);
    for (size_t j = 0; j < size; ++j) {
      const double a = b[u * size + j];
      if (a == 0) continue;
      const double* mj = &m[j * size];
      for (size_t w = 0; w < size; ++w) row[w] += a * mj[w];
    }
    double sum = 0;
    for (size_t w = 0; w < size; ++w) sum += row[w] * b[u * size + w];
    out[u] = sum;
  }
  return out;
}

}  // namespace

namespace {

// Σ_c X_cᵀ D_c X_c + Σ_c n_c·G_c S G_c (rappor_decoder.h), S = diag(φ) − φφᵀ:
// G_c S G_c = Σ_v φ_v·g_v g_vᵀ − (G_cφ)(G_cφ)ᵀ with g_v = G_c e_v, the
// candidates sharing bits with v (sparse).
std::vector<double> NoiseMatrix(const CandidateDesign& design,
                                absl::Span<const int64_t> reports,
                                absl::Span<const double> phi,
                                PureProtocol bit) {
  const size_t size = design.size();
  const auto [v0, v1] = BitNoise(bit);
  std::vector<double> noise(size * size, 0.0);
  std::vector<double> g(size), spread(size);
  std::vector<uint32_t> touched;
  for (uint32_t c = 0; c < reports.size(); ++c) {
    const double n_c = static_cast<double>(reports[c]);
    if (n_c == 0) continue;
    const auto rows = design.BitRows(c);
    std::vector<double> rate(rows.size(), 0.0);  // (X_c φ)_i
    for (size_t i = 0; i < rows.size(); ++i) {
      for (uint32_t v : rows[i]) rate[i] += phi[v];
      for (uint32_t u : rows[i]) {
        for (uint32_t w : rows[i]) {
          noise[u * size + w] += n_c * (v0 + v1 * rate[i]);
        }
      }
    }
    for (size_t v = 0; v < size; ++v) {  // + n_c·φ_v·g_v g_vᵀ
      if (phi[v] == 0) continue;
      touched.clear();
      for (uint16_t i : design.Bits(c, v)) {
        for (uint32_t u : rows[i]) {
          if (g[u] == 0) touched.push_back(u);
          g[u] += 1;
        }
      }
      for (uint32_t u : touched) {
        for (uint32_t w : touched) {
          noise[u * size + w] += n_c * phi[v] * g[u] * g[w];
        }
      }
      for (uint32_t u : touched) g[u] = 0;
    }
    touched.clear();  // − n_c·(G_cφ)(G_cφ)ᵀ
    for (size_t u = 0; u < size; ++u) {
      spread[u] = 0;
      for (uint16_t i : design.Bits(c, u)) spread[u] += rate[i];
      if (spread[u] != 0) touched.push_back(static_cast<uint32_t>(u));
    }
    for (uint32_t u : touched) {
      for (uint32_t w : touched) {
        noise[u * size + w] -= n_c * spread[u] * spread[w];
      }
    }
  }
  return noise;
}

std::vector<double> CovarianceDiagonal(const CandidateDesign& design,
                                       const CholeskyFactor& factor,
                                       absl::Span<const int64_t> reports,
                                       absl::Span<const double> phi,
                                       PureProtocol bit) {
  std::vector<double> variances = SandwichDiagonal(
      factor.Inverse(), NoiseMatrix(design, reports, phi, bit), design.size());
  double n = 0;
  for (int64_t n_c : reports) n += static_cast<double>(n_c);
  for (size_t u = 0; u < variances.size(); ++u) {
    variances[u] -= (phi[u] - phi[u] * phi[u]) / n;
  }
  return variances;
}

absl::StatusOr<CholeskyFactor> FactorWeightedGram(
    const CandidateDesign& design, absl::Span<const int64_t> reports) {
  return FactorGram(design.Gram([&](uint32_t c, uint32_t) {
    return static_cast<double>(reports[c]);
  }),
                    design.size());
}

}  // namespace

RapporBitNoise BitNoise(PureProtocol bit) {
  const double gap = bit.p - bit.q;
  return {.v0 = bit.q * (1 - bit.q) / (gap * gap),
          .v1 = (1 - bit.p - bit.q) / gap};
}

absl::StatusOr<RapporFit> RapporDecoder::Fit(
    const RapporCounts& counts, absl::Span<const uint32_t> candidates) const {
  RETURN_IF_ERROR(CheckCandidates(candidates));
  RETURN_IF_ERROR(CheckCohorts(bloom_, counts.reports));
  const uint32_t k = bloom_.num_bits();
  if (counts.ones.size() != size_t{bloom_.num_cohorts()} * k) {
    return absl::InvalidArgumentError(
        absl::StrCat("rappor: expected ", size_t{bloom_.num_cohorts()} * k,
                     " bit counts, got ", counts.ones.size()));
  }
  const CandidateDesign design(bloom_, candidates);
  ASSIGN_OR_RETURN(const CholeskyFactor factor,
                   FactorWeightedGram(design, counts.reports));
  std::vector<double> b(design.size(), 0.0);  // Σ_c X_cᵀ t̂_c
  RapporFit fit;
  fit.candidates.assign(candidates.begin(), candidates.end());
  for (uint32_t c = 0; c < bloom_.num_cohorts(); ++c) {
    const double n_c = static_cast<double>(counts.reports[c]);
    fit.num_reports += counts.reports[c];
    for (size_t j = 0; j < design.size(); ++j) {
      for (uint16_t i : design.Bits(c, j)) {
        b[j] += (static_cast<double>(counts.ones[size_t{c} * k + i]) -
                 n_c * bit_.q) /
                (bit_.p - bit_.q);
      }
    }
  }
  fit.frequencies = factor.Solve(b);
  std::vector<double> phi(design.size());
  for (size_t j = 0; j < phi.size(); ++j) {
    phi[j] = std::clamp(fit.frequencies[j], 0.0, 1.0);
  }
  fit.variances = CovarianceDiagonal(design, factor, counts.reports, phi, bit_);
  for (size_t j = 0; j < phi.size(); ++j) {
    const double z = fit.frequencies[j] / std::sqrt(fit.variances[j]);
    fit.p_values.push_back(0.5 * std::erfc(z / std::sqrt(2.0)));
  }
  return fit;
}

absl::StatusOr<std::vector<double>> RapporDecoder::Variances(
    absl::Span<const int64_t> reports_per_cohort,
    absl::Span<const uint32_t> candidates,
    absl::Span<const double> frequencies) const {
  RETURN_IF_ERROR(CheckCandidates(candidates));
  RETURN_IF_ERROR(CheckCohorts(bloom_, reports_per_cohort));
  if (frequencies.size() != candidates.size()) {
    return absl::InvalidArgumentError(
        "rappor: one frequency per candidate is needed");
  }
  const CandidateDesign design(bloom_, candidates);
  ASSIGN_OR_RETURN(const CholeskyFactor factor,
                   FactorWeightedGram(design, reports_per_cohort));
  return CovarianceDiagonal(design, factor, reports_per_cohort, frequencies,
                            bit_);
}

absl::StatusOr<double> RapporDecoder::MeanInverseGramDiagonal(
    absl::Span<const uint32_t> candidates) const {
  RETURN_IF_ERROR(CheckCandidates(candidates));
  const CandidateDesign design(bloom_, candidates);
  ASSIGN_OR_RETURN(
      const CholeskyFactor factor,
      FactorGram(design.Gram([](uint32_t, uint32_t) { return 1.0; }),
                 design.size()));
  // tr(G⁻¹) = Σ_u e_uᵀ G⁻¹ e_u, one solve per candidate (no full inverse).
  double trace = 0;
  std::vector<double> unit(design.size(), 0.0);
  for (size_t u = 0; u < design.size(); ++u) {
    unit[u] = 1;
    trace += factor.Solve(unit)[u];
    unit[u] = 0;
  }
  return trace / static_cast<double>(design.size());
}

std::vector<size_t> RapporDiscoveries(const RapporFit& fit, double fdr) {
  const std::vector<bool> rejected = BenjaminiHochberg(fit.p_values, fdr);
  std::vector<size_t> out;
  for (size_t j = 0; j < rejected.size(); ++j) {
    if (rejected[j]) out.push_back(j);
  }
  return out;
}

}  // namespace ldp
