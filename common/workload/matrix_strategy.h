// The optimized finite strategy Q as a randomizer: the agent draws output o
// with probability Q[o, x], from integer weights so that Probability and
// the implemented ε are exact.
#ifndef LDP_COMMON_WORKLOAD_MATRIX_STRATEGY_H_
#define LDP_COMMON_WORKLOAD_MATRIX_STRATEGY_H_

#include <memory>

#include "absl/status/statusor.h"
#include "common/workload/strategy.h"
#include "common/workload/strategy_spec.h"

namespace ldp {

// spec.kind == kMatrix.
absl::StatusOr<std::unique_ptr<StrategyMechanism>> CreateMatrixStrategy(
    const StrategySpec& spec);

}  // namespace ldp

#endif  // LDP_COMMON_WORKLOAD_MATRIX_STRATEGY_H_
