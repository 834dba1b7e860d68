// Grouped strategies: identity, hierarchical trees, Haar wavelet and
// Fourier parities. Each agent samples one group of A's rows with a public,
// data-independent probability π_g, and reports which row of that group its
// item falls in through randomized response (small groups) or optimized
// unary encoding (large ones), whichever has the lower variance at ε.
#ifndef LDP_COMMON_WORKLOAD_GROUPED_STRATEGY_H_
#define LDP_COMMON_WORKLOAD_GROUPED_STRATEGY_H_

#include <memory>

#include "absl/status/statusor.h"
#include "common/workload/strategy.h"
#include "common/workload/strategy_spec.h"

namespace ldp {

// spec.kind ∈ {kIdentity, kHierarchical, kHaar, kFourier}.
absl::StatusOr<std::unique_ptr<StrategyMechanism>> CreateGroupedStrategy(
    const StrategySpec& spec);

}  // namespace ldp

#endif  // LDP_COMMON_WORKLOAD_GROUPED_STRATEGY_H_
