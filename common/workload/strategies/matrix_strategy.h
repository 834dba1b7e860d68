// The optimized finite strategy Q as the server's linear strategy, around
// the agent's randomizer (matrix_randomizer.h: the agent draws output o
// with probability Q[o, x], from integer weights so that Probability and
// the implemented ε are exact).
#ifndef LDP_COMMON_WORKLOAD_STRATEGIES_MATRIX_STRATEGY_H_
#define LDP_COMMON_WORKLOAD_STRATEGIES_MATRIX_STRATEGY_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "Eigen/Core"
#include "absl/status/statusor.h"
#include "common/workload/specs/strategy_spec.h"
#include "common/workload/strategies/strategy.h"
#include "common/workload/strategy_randomizers/matrix_randomizer.h"

namespace ldp {

// spec.kind == kMatrix.
absl::StatusOr<std::unique_ptr<StrategyMechanism>> CreateMatrixStrategy(
    const StrategySpec& spec);

// The linear structure around an agent's randomizer (shared, not copied).
std::unique_ptr<StrategyMechanism> MatrixStrategyFor(
    std::shared_ptr<const MatrixRandomizer> randomizer);

// MatrixStrategyWeights (matrix_randomizer.h) of an Eigen Q (K×N): the
// weights CreateMatrixStrategy would sample from.
absl::StatusOr<std::vector<uint64_t>> MatrixStrategyWeights(
    const Eigen::MatrixXd& q);

// The ε the randomizer built from Q implements: max over rows of
// ln(max_x w / min_x w) of the integer weights (+∞ for a row mixing zero
// and non-zero weights; all-zero rows are never output). Lets the optimizer
// check its result exactly as CreateMatrixStrategy will.
absl::StatusOr<double> MatrixStrategyEpsilon(const Eigen::MatrixXd& q);

}  // namespace ldp

#endif  // LDP_COMMON_WORKLOAD_STRATEGIES_MATRIX_STRATEGY_H_
