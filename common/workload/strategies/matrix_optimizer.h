// An optimized finite strategy Q for a workload at ε (McKenna, Maity,
// Mazumdar, Miklau, PVLDB 2020): Q ∈ R^{K×N}, Q_{o,x} = Pr[output o | x],
// columns summing to one, and ε-LDP as a per-row box z_o ≤ Q_{o,x} ≤ e^ε·z_o.
// Projected gradient descent on the expected total squared error
// ⟨(Qᵀ·D⁻¹·Q)⁻¹, WᵀW⟩ (D = diag(Q·1)), which needs only WᵀW, so m may be
// huge; each step costs O(N³ + K·N²) (BLAS), the box projection
// O(N·K log K).
#ifndef LDP_COMMON_WORKLOAD_STRATEGIES_MATRIX_OPTIMIZER_H_
#define LDP_COMMON_WORKLOAD_STRATEGIES_MATRIX_OPTIMIZER_H_

#include <cstdint>
#include <string>

#include "Eigen/Core"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/workload/strategies/workload.h"

namespace ldp {

struct MatrixOptimizerOptions {
  uint32_t num_outputs = 0;  // K; 0 = 4N
  int iterations = 500;
  uint64_t seed = 1;  // the random feasible start
  absl::Duration time_limit = absl::Minutes(10);
};

struct OptimizedMatrix {
  Eigen::MatrixXd q;  // K'×N (rows with z_o ≈ 0 dropped), column-stochastic
  double objective = 0;  // mean over x of Σ_j v_j(e_x) (McKenna's average)
  int iterations = 0;
};

// InvalidArgument for ε ≤ 0 or an all-zero workload. The result's
// implemented ε (max over rows of ln(max/min)) never exceeds ε.
absl::StatusOr<OptimizedMatrix> OptimizeStrategyMatrix(
    const Workload& workload, double epsilon,
    const MatrixOptimizerOptions& options = {});

}  // namespace ldp

#endif  // LDP_COMMON_WORKLOAD_STRATEGIES_MATRIX_OPTIMIZER_H_
