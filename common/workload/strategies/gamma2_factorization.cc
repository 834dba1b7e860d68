// The certified primal–dual fixed point for γ₂(W) (factorization-and-sq.md
// §5). Each iteration, with query weights p (Σp = 1) and item weights q
// (Σq = 1):
//   G = D_q^½·(Wᵀ·D_p·W)·D_q^½ = V·diag(σ²)·Vᵀ       (one eigensolve)
//   lower = Σσ = ‖D_p^½·W·D_q^½‖_*  ≤ γ₂(W)           (Lee–Shraibman–Špalek,
//           rounded down by a proven round-off margin: CertifiedNuclearNorm)
//   A = diag(σ^½)·Vᵀ·D_q^{-½},  R = W·D_q^½·V·diag(σ^{-½})   (R·A = W)
//   ‖a_x‖² = (V·diag(σ)·Vᵀ)_xx / q_x,  ‖r_j‖² = w_jᵀ·S·w_j,
//   S = D_q^½·V·diag(1/σ)·Vᵀ·D_q^½
//   upper = max‖r_j‖·max‖a_x‖ ≥ γ₂(W)
//   p ← p∘‖r_j‖^{2η}, q ← q∘‖a_x‖^{2η}, renormalized.
// Both bounds hold at every iteration, so whatever the iteration count the
// result is certified: the best lower bound seen and the factorization with
// the best upper bound. η = 2 converges about twice as fast as η = 1 but
// can stall; after 10 iterations without a better gap it falls back to 1.
//
// W is only touched through Workload::WeightedGram(p) and
// QuadraticForms(S), which prefix and all-range workloads answer in O(N²)
// (never a dense m×N). The eigensolve calls LAPACK's dsyevd (divide and
// conquer) directly: Eigen's LAPACKE binding of SelfAdjointEigenSolver uses
// dsyev, which measured 3× slower at N = 1024 on this machine.
#include "common/workload/strategies/gamma2_factorization.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>

#include "Eigen/Core"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/workload/strategies/workload.h"
#include "lapacke.h"

namespace ldp {
namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;

// Eigenvalues (ascending) and eigenvectors of a symmetric matrix.
absl::Status SymmetricEigen(MatrixXd matrix, VectorXd& values,
                            MatrixXd& vectors) {
  const lapack_int n = static_cast<lapack_int>(matrix.rows());
  values.resize(n);
  const lapack_int info = LAPACKE_dsyevd(LAPACK_COL_MAJOR, 'V', 'L', n,
                                         matrix.data(), n, values.data());
  if (info != 0) {
    return absl::InternalError(
        absl::StrCat("gamma2: the eigensolver (dsyevd) failed, info = ", info));
  }
  vectors = std::move(matrix);
  return absl::OkStatus();
}

// v ∘ f^η, renormalized to sum 1; f is floored at 1e-300·max f so that no
// weight becomes exactly zero, and the result at 1e-15 so that D_q^{-½}
// stays finite for items no query touches.
VectorXd Reweight(const VectorXd& v, const VectorXd& f, double eta,
                  double floor) {
  const double top = f.maxCoeff();
  VectorXd out(v.size());
  for (Eigen::Index i = 0; i < v.size(); ++i) {
    out[i] = v[i] * std::pow(std::max(f[i], 1e-300 * top) / top, eta);
  }
  out /= out.sum();
  if (floor > 0) {
    out = out.cwiseMax(floor);
    out /= out.sum();
  }
  return out;
}

// Σ√λ_i(G) for the exact G, from the eigenvalues λ̂ of the computed Ĝ,
// rounded down so that round-off can never lift it above γ₂(W). Summing
// √λ̂ over all N eigenvalues is not a bound: on a rank-deficient W the
// null space's round-off eigenvalues (~u·‖G‖ each) add up to ~N·√(u‖G‖)
// (1.000000625 for one 0/1 row at N = 1024, whose γ₂ is 1). By Weyl,
// λ_i(G) ≥ λ̂_i − δ with δ ≥ ‖Ĝ − G‖₂ + the eigensolver's backward error:
//  - forming Ĝ sums at most m + O(N) products of terms whose absolute
//    values form H = D_q^½·|W|ᵀ·D_p·|W|·D_q^½, so ‖Ĝ − G‖₂ ≤ γ_{m+O(N)}·‖H‖₂,
//    and ‖H‖₂ ≤ trace(H) = trace(G) (same diagonal: Σ_j p_j·w_jx²·q_x);
//  - dsyevd is backward stable, ‖E‖₂ ≤ p(N)·u·‖Ĝ‖₂, with p(N) ≤ 4N taken
//    conservatively for LAPACK's "modestly growing function".
// So δ = (m + 5N + 16)·u·trace, with a 2% cushion, and √max(λ̂_i − δ, 0)
// ≤ σ_i exactly; the final sum's own rounding (N additions, N square roots)
// is taken off by the factor 1 − (N + 2)·u. On a full-rank W this costs
// about δ/(2σ_min) per eigenvalue, ~10⁻¹⁰ relative at N = 1024.
double CertifiedNuclearNorm(const VectorXd& lambda, double trace,
                            int64_t num_queries) {
  const double u = std::numeric_limits<double>::epsilon() / 2;
  const double n = static_cast<double>(lambda.size());
  const double delta = 1.02 * u *
                       (static_cast<double>(num_queries) + 5 * n + 16) *
                       std::max(trace, 0.0);
  double sum = 0;
  for (Eigen::Index i = 0; i < lambda.size(); ++i) {
    sum += std::sqrt(std::max(lambda[i] - delta, 0.0));
  }
  return sum * (1 - (n + 2) * u);
}

}  // namespace

double DjwVarianceConstant(double epsilon, int64_t dimension) {
  const double d = static_cast<double>(dimension);
  const double c_d = std::exp(std::lgamma(d / 2) - std::lgamma((d + 1) / 2)) /
                     std::sqrt(std::numbers::pi);
  const double coth = 1 / std::tanh(epsilon / 2);
  return coth * coth / (d * c_d * c_d);
}

absl::StatusOr<Gamma2Factorization> FactorizeGamma2(
    const Workload& workload, const Gamma2Options& options) {
  const absl::Time deadline = absl::Now() + options.time_limit;
  const int64_t n = workload.domain_size();
  const int64_t m = static_cast<int64_t>(workload.num_queries());
  VectorXd p = VectorXd::Constant(m, 1.0 / static_cast<double>(m));
  VectorXd q = VectorXd::Constant(n, 1.0 / static_cast<double>(n));
  double eta = options.eta > 0 ? options.eta : 1;
  Gamma2Factorization best;
  best.upper_bound = std::numeric_limits<double>::infinity();
  double best_gap = std::numeric_limits<double>::infinity();
  int since_better_gap = 0;
  const int max_iterations = std::max(options.max_iterations, 1);
  for (int it = 0; it < max_iterations; ++it) {
    if (it > 0 && absl::Now() >= deadline) break;
    const VectorXd sqrt_q = q.cwiseSqrt();
    const MatrixXd g =
        sqrt_q.asDiagonal() * workload.WeightedGram(p) * sqrt_q.asDiagonal();
    if (it == 0 && g.cwiseAbs().maxCoeff() == 0) {
      return absl::InvalidArgumentError(
          "gamma2: the workload is all zeros (no query touches any item)");
    }
    VectorXd lambda;
    MatrixXd v;
    if (absl::Status s = SymmetricEigen(g, lambda, v); !s.ok()) return s;
    const VectorXd sigma = lambda.cwiseMax(0.0).cwiseSqrt();
    const double lower = CertifiedNuclearNorm(lambda, g.trace(), m);
    // Keep the directions that carry W (σ above round-off).
    const double cutoff = 1e-10 * sigma.maxCoeff();
    int64_t rank = 0;
    for (int64_t i = 0; i < n; ++i) rank += sigma[i] > cutoff;
    const MatrixXd vk = v.rightCols(rank);  // ascending order: largest last
    const VectorXd sk = sigma.tail(rank);
    // S = D_q^½·V·diag(1/σ)·Vᵀ·D_q^½, ‖r_j‖² = w_jᵀ·S·w_j.
    const MatrixXd scaled_v = sqrt_q.asDiagonal() * vk;
    const MatrixXd s =
        scaled_v * sk.cwiseInverse().asDiagonal() * scaled_v.transpose();
    const VectorXd row_norms = workload.QuadraticForms(s).cwiseMax(0.0);
    // ‖a_x‖² = Σ_i σ_i·V_xi² / q_x.
    const VectorXd column_norms = (vk.cwiseProduct(vk) * sk).cwiseQuotient(q);
    const double max_row = row_norms.maxCoeff();
    const double max_column = column_norms.maxCoeff();
    const double upper = std::sqrt(max_row * max_column);
    best.lower_bound = std::max(best.lower_bound, lower);
    best.iterations = it + 1;
    if (upper < best.upper_bound) {
      best.upper_bound = upper;
      // A = diag(σ^½)·Vᵀ·D_q^{-½}, scaled to max column norm 1 (R takes
      // the factor, so ‖R‖₂→∞·‖A‖₁→₂ is unchanged).
      best.strategy = (sk.cwiseSqrt() / std::sqrt(max_column)).asDiagonal() *
                      vk.transpose() *
                      q.cwiseSqrt().cwiseInverse().asDiagonal();
    }
    const double gap = best.upper_bound / best.lower_bound - 1;
    if (gap <= options.relative_gap) break;
    if (gap < best_gap * (1 - 1e-3)) {
      best_gap = gap;
      since_better_gap = 0;
    } else if (++since_better_gap >= 10 && eta > 1) {
      eta = 1;
      since_better_gap = 0;
    }
    p = Reweight(p, row_norms, eta, 0);
    q = Reweight(q, column_norms, eta, 1e-15);
  }
  return best;
}

}  // namespace ldp
