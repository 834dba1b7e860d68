// The size checks a matrix-shaped strategy spec (the matrix Q, the
// factorization's directions) gets before any of its entries is read, so
// that a hostile or mistaken spec is refused before it is allocated over.
#ifndef LDP_COMMON_WORKLOAD_STRATEGY_RANDOMIZERS_STRATEGY_SHAPE_H_
#define LDP_COMMON_WORKLOAD_STRATEGY_RANDOMIZERS_STRATEGY_SHAPE_H_

#include <string_view>

#include "absl/status/status.h"
#include "common/workload/specs/strategy_spec.h"

namespace ldp {

// InvalidArgument, prefixed with `name`, unless spec.kind is `kind`, ε is
// valid, 1 ≤ domain_size ≤ kMaxWorkloadDomainSize, rows ≥ 1, rows ×
// domain_size ≤ kMaxInProcessStrategyMatrixEntries and the matrix holds
// exactly rows × domain_size values.
absl::Status CheckStrategyShape(const StrategySpec& spec, StrategyKind kind,
                                std::string_view name);

// InvalidArgument, prefixed with `name`, unless spec.attribute_sizes holds 1
// to kMaxStrategyAttributes sizes, each ≥ 2, whose product is
// spec.domain_size (the attribute strategies).
absl::Status CheckAttributeSizes(const StrategySpec& spec,
                                 std::string_view name);

}  // namespace ldp

#endif  // LDP_COMMON_WORKLOAD_STRATEGY_RANDOMIZERS_STRATEGY_SHAPE_H_
