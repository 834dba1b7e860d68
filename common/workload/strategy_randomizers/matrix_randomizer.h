// The optimized finite strategy Q (K×N, column-stochastic) as the agent's
// randomizer: it draws output o with probability Q[o, x] from integer
// weights, so that Probability and the implemented ε are exact. Without
// Eigen, for the agent; the server's MatrixStrategy (matrix_strategy.h)
// wraps this object and reads its weights.
#ifndef LDP_COMMON_WORKLOAD_STRATEGY_RANDOMIZERS_MATRIX_RANDOMIZER_H_
#define LDP_COMMON_WORKLOAD_STRATEGY_RANDOMIZERS_MATRIX_RANDOMIZER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/random/bit_gen_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/workload/specs/strategy_spec.h"
#include "common/workload/strategy_randomizers/strategy_randomizer.h"

namespace ldp {

// Each column of Q is sampled from integer weights summing to exactly
// 2^kMatrixStrategyWeightBits.
inline constexpr int kMatrixStrategyWeightBits = 40;

// A read-only K×N matrix in any layout: entry (o, x) is
// data[o·row_stride + x·column_stride]. Lets the spec's row-major doubles
// and the optimizer's Eigen matrices share one rounding routine.
struct MatrixView {
  const double* data = nullptr;
  int64_t rows = 0;
  int64_t cols = 0;
  int64_t row_stride = 0;
  int64_t column_stride = 0;
  double operator()(int64_t o, int64_t x) const {
    return data[o * row_stride + x * column_stride];
  }
};

// Q (entries finite and ≥ 0, columns summing to 1 within 1e-9) as those
// weights, column-major (weights[x·K + o]), by largest-remainder rounding
// of each column. InvalidArgument naming the offending entry or column
// otherwise.
absl::StatusOr<std::vector<uint64_t>> MatrixStrategyWeights(
    const MatrixView& q);

// The ε of column-major integer weights (K×N): max over rows of
// ln(max_x w / min_x w) (+∞ for a row mixing zero and non-zero weights;
// all-zero rows are never output).
double MatrixWeightsEpsilon(const std::vector<uint64_t>& weights, int64_t k,
                            int64_t n);

// Immutable; build it with CreateMatrixRandomizer.
class MatrixRandomizer final : public StrategyRandomizer {
 public:
  // `spec` without its matrix (the weights hold it); `weights` column-major.
  MatrixRandomizer(StrategySpec spec, std::vector<uint64_t> weights,
                   double epsilon);

  std::string Describe() const override;
  uint32_t domain_size() const override { return static_cast<uint32_t>(n_); }
  double epsilon() const override { return epsilon_; }
  // One 40-bit uniform integer u; the output is the first o whose
  // cumulative weight exceeds u, so Pr[o] = w_o / 2^40 exactly.
  WorkloadReport Randomize(uint32_t item, absl::BitGenRef gen) const override;
  double Probability(uint32_t item,
                     const WorkloadReport& report) const override;
  absl::Status Validate(const WorkloadReport& report) const override;

  int64_t outputs() const { return k_; }  // K
  const StrategySpec& spec() const { return spec_; }
  const std::vector<uint64_t>& weights() const { return weights_; }
  // Pr[o | x] = weights[x·K + o] / 2^40, exactly.
  double Entry(int64_t o, int64_t x) const;

 private:
  StrategySpec spec_;
  int64_t k_ = 0;
  int64_t n_ = 0;
  std::vector<uint64_t> weights_;     // column-major K×N
  std::vector<uint64_t> cumulative_;  // per column: Σ_{o' ≤ o} w
  double epsilon_ = 0;
};

// spec.kind == kMatrix: Q row-major in spec.matrix (rows × domain_size).
absl::StatusOr<std::shared_ptr<const MatrixRandomizer>> CreateMatrixRandomizer(
    const StrategySpec& spec);

}  // namespace ldp

#endif  // LDP_COMMON_WORKLOAD_STRATEGY_RANDOMIZERS_MATRIX_RANDOMIZER_H_
