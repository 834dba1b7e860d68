// The optimized finite strategy Q as a randomizer: the agent draws output o
// with probability Q[o, x], from integer weights so that Probability and
// the implemented ε are exact.
#ifndef LDP_COMMON_WORKLOAD_MATRIX_STRATEGY_H_
#define LDP_COMMON_WORKLOAD_MATRIX_STRATEGY_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "Eigen/Core"
#include "absl/status/statusor.h"
#include "common/workload/strategy.h"
#include "common/workload/strategy_spec.h"

namespace ldp {

// spec.kind == kMatrix.
absl::StatusOr<std::unique_ptr<StrategyMechanism>> CreateMatrixStrategy(
    const StrategySpec& spec);

// Each column of Q is sampled from integer weights summing to exactly
// 2^kMatrixStrategyWeightBits.
inline constexpr int kMatrixStrategyWeightBits = 40;

// Q (K×N, entries finite and ≥ 0, columns summing to 1 within 1e-9) as
// those weights, column-major (weights[x·K + o]), by largest-remainder
// rounding of each column. InvalidArgument naming the offending entry or
// column otherwise.
absl::StatusOr<std::vector<uint64_t>> MatrixStrategyWeights(
    const Eigen::MatrixXd& q);

// The ε the randomizer built from Q implements: max over rows of
// ln(max_x w / min_x w) of the integer weights (+∞ for a row mixing zero
// and non-zero weights; all-zero rows are never output). Lets the optimizer
// check its result exactly as CreateMatrixStrategy will.
absl::StatusOr<double> MatrixStrategyEpsilon(const Eigen::MatrixXd& q);

}  // namespace ldp

#endif  // LDP_COMMON_WORKLOAD_MATRIX_STRATEGY_H_
