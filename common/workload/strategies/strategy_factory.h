// Builds any strategy, the server's linear structure with its randomizer,
// from its plain spec or from the randomizer an agent-side caller already
// built (strategy_randomizer.h).
#ifndef LDP_COMMON_WORKLOAD_STRATEGIES_STRATEGY_FACTORY_H_
#define LDP_COMMON_WORKLOAD_STRATEGIES_STRATEGY_FACTORY_H_

#include <memory>

#include "Eigen/Core"
#include "absl/status/statusor.h"
#include "common/workload/specs/strategy_spec.h"
#include "common/workload/strategies/strategy.h"
#include "common/workload/strategy_randomizers/strategy_randomizer.h"

namespace ldp {

// InvalidArgument exactly as CreateStrategyRandomizer.
absl::StatusOr<std::unique_ptr<StrategyMechanism>> CreateStrategy(
    const StrategySpec& spec);

// The strategy around `randomizer`, which it shares: one object draws and
// checks reports for the task and the estimator alike. Cannot fail for a
// randomizer from CreateStrategyRandomizer (or a strategy's randomizer());
// InvalidArgument for any other.
absl::StatusOr<std::unique_ptr<StrategyMechanism>> StrategyForRandomizer(
    std::shared_ptr<const StrategyRandomizer> randomizer);

// The spec of a strategy given by its matrix (kind kMatrix: Q, K×N;
// kFactorization: A, rank×N) at ε, the matrix stored row-major.
StrategySpec MatrixStrategySpec(StrategyKind kind, double epsilon,
                                const Eigen::MatrixXd& matrix);

}  // namespace ldp

#endif  // LDP_COMMON_WORKLOAD_STRATEGIES_STRATEGY_FACTORY_H_
