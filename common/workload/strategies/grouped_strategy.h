// Grouped strategies: identity, hierarchical trees, Haar wavelet and
// Fourier parities; the randomizer is grouped_randomizer.h, this is the
// server's linear structure around it. Each agent samples one group of A's
// rows with a public, data-independent probability π_g, and reports which
// row of that group its item falls in through randomized response (small
// groups) or optimized unary encoding (large ones), whichever has the lower
// variance at ε.
//
// Report: `group` indexes the groups in this order, and `inner` is the
// group's GRR ItemReport or OUE BitVectorReport:
//  - identity: one group of N rows (row x = 1[item = x]);
//  - hierarchical b: tree levels 1..h, h = ceil(log_b N) (the root is
//    known), each one group of ceil(N / b^{h−ℓ}) nodes, node = x / b^{h−ℓ};
//  - haar: detail levels ℓ = 0..L−1 over [2^L] ⊇ [N], and within level ℓ
//    the public Hadamard rows r ∈ [2^ℓ]; two rows, the bit
//    [s(x)·H[r][x >> (L−ℓ)] = −1] with s(x) = −1 iff bit L−ℓ−1 of x is set;
//  - fourier: parities T with 1 ≤ |T| ≤ k by weight, then lexicographically
//    (record bit convention of workload.h); two rows, the parity bit.
// A (and ŷ) stacks the groups' rows in that order and ends with one
// all-ones row, the known total: ŷ's last entry is exactly 1 once any
// report arrived, so least squares reconstructs under Σh = 1.
#ifndef LDP_COMMON_WORKLOAD_STRATEGIES_GROUPED_STRATEGY_H_
#define LDP_COMMON_WORKLOAD_STRATEGIES_GROUPED_STRATEGY_H_

#include <memory>

#include "absl/status/statusor.h"
#include "common/workload/specs/strategy_spec.h"
#include "common/workload/strategies/strategy.h"
#include "common/workload/strategy_randomizers/grouped_randomizer.h"

namespace ldp {

// spec.kind ∈ {kIdentity, kHierarchical, kHaar, kFourier}.
absl::StatusOr<std::unique_ptr<StrategyMechanism>> CreateGroupedStrategy(
    const StrategySpec& spec);

// The linear structure around an agent's randomizer (shared, not copied).
std::unique_ptr<StrategyMechanism> GroupedStrategyFor(
    std::shared_ptr<const GroupedRandomizer> randomizer);

}  // namespace ldp

#endif  // LDP_COMMON_WORKLOAD_STRATEGIES_GROUPED_STRATEGY_H_
