// γ₂(W) = min over W = R·A of ‖R‖₂→∞·‖A‖₁→₂, with a certified gap.
//
// The primal–dual multiplicative fixed point (factorization-and-sq.md §5):
// each step weights queries by p and items by q, takes one symmetric
// eigendecomposition of D_q^½·Wᵀ·D_p·W·D_q^½ = V·diag(σ²)·Vᵀ, and reads off
// both a lower bound Σσ = ‖D_p^½·W·D_q^½‖_* ≤ γ₂(W) (Lee–Shraibman–Špalek
// dual) and an explicit factorization whose cost is an upper bound; then
// p ← p∘‖r_j‖^{2η}, q ← q∘‖a_x‖^{2η}, renormalized. Both bounds hold at every
// step, so the result is certified however early it stops.
#ifndef LDP_COMMON_WORKLOAD_STRATEGIES_GAMMA2_FACTORIZATION_H_
#define LDP_COMMON_WORKLOAD_STRATEGIES_GAMMA2_FACTORIZATION_H_

#include <cstdint>

#include "Eigen/Core"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/workload/strategies/workload.h"

namespace ldp {

struct Gamma2Options {
  // Stop once upper ≤ (1 + relative_gap)·lower.
  double relative_gap = 1e-4;
  int max_iterations = 500;
  double eta = 2;  // falls back to 1 when the gap stalls
  absl::Duration time_limit = absl::Minutes(10);
};

struct Gamma2Factorization {
  double lower_bound = 0;  // certified ≤ γ₂(W)
  double upper_bound = 0;  // = ‖R‖₂→∞·‖A‖₁→₂ of the returned A (≥ γ₂(W))
  int iterations = 0;
  // The strategy A (rank × N), scaled so that ‖A‖₁→₂ = 1 (every column has
  // norm ≤ 1, the ℓ2-ball randomizer's radius); then max_j ‖r_j‖ =
  // upper_bound for the least-squares R.
  Eigen::MatrixXd strategy;
};

// InvalidArgument for an all-zero workload.
absl::StatusOr<Gamma2Factorization> FactorizeGamma2(
    const Workload& workload, const Gamma2Options& options = {});

// C_DJW(ε, d) = coth²(ε/2)/(d·c_d²), c_d = Γ(d/2)/(√π·Γ((d+1)/2)): the
// ℓ2-ball randomizer (vector_strategy.h) on a rank-d strategy with columns
// of norm ≤ 1 has per-user variance ≤ C_DJW·‖r_j‖² for answer j, so γ₂ with
// it gives v_max ≤ C_DJW(ε, rank)·upper_bound² (→ (π/2)·coth²(ε/2) for
// large d; 7.352 at ε = 1, d = 1024). Exact for the ideal coin
// π = e^ε/(1+e^ε); the 32-bit coin the strategy uses differs by < 1e-8.
double DjwVarianceConstant(double epsilon, int64_t dimension);

}  // namespace ldp

#endif  // LDP_COMMON_WORKLOAD_STRATEGIES_GAMMA2_FACTORIZATION_H_
