// A factorization's strategy A with the ℓ2-ball randomizer of Duchi,
// Jordan and Wainwright (vector_randomizer.h): a_x = A·e_x is privatized
// as B·U for a uniformly random direction U (sent as a public seed) on the
// hemisphere agreeing with a randomized ±a_x/‖a_x‖ with probability
// e^ε/(1+e^ε); unbiased for a_x, with E[Z·Zᵀ] = (B²/rank)·I. This is the
// server's decoding and variance algebra around the agent's randomizer.
#ifndef LDP_COMMON_WORKLOAD_STRATEGIES_VECTOR_STRATEGY_H_
#define LDP_COMMON_WORKLOAD_STRATEGIES_VECTOR_STRATEGY_H_

#include <memory>

#include "absl/status/statusor.h"
#include "common/workload/specs/strategy_spec.h"
#include "common/workload/strategies/strategy.h"
#include "common/workload/strategy_randomizers/vector_randomizer.h"

namespace ldp {

// spec.kind == kFactorization; columns of A must have norm ≤ 1 (+1e-9).
absl::StatusOr<std::unique_ptr<StrategyMechanism>> CreateVectorStrategy(
    const StrategySpec& spec);

// The linear structure around an agent's randomizer (shared, not copied).
std::unique_ptr<StrategyMechanism> VectorStrategyFor(
    std::shared_ptr<const VectorRandomizer> randomizer);

}  // namespace ldp

#endif  // LDP_COMMON_WORKLOAD_STRATEGIES_VECTOR_STRATEGY_H_
