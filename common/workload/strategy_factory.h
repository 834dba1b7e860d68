// Builds any strategy from its plain spec (agent and server alike).
#ifndef LDP_COMMON_WORKLOAD_STRATEGY_FACTORY_H_
#define LDP_COMMON_WORKLOAD_STRATEGY_FACTORY_H_

#include <memory>

#include "Eigen/Core"
#include "absl/status/statusor.h"
#include "common/workload/strategy.h"
#include "common/workload/strategy_spec.h"

namespace ldp {

// InvalidArgument (naming the field) for ε ≤ 0 or non-finite, N outside
// [1, kMaxWorkloadDomainSize], b < 2, N ≠ 2^d, k outside [1, d], weights
// not k positive finite numbers, a matrix of the wrong size or over
// kMaxInProcessStrategyMatrixEntries (tasks carry at most
// kMaxStrategyMatrixEntries; the wire edges check that), a Q that is not column-stochastic or whose
// implemented ε exceeds spec.epsilon, an all-zero factorization column.
absl::StatusOr<std::unique_ptr<StrategyMechanism>> CreateStrategy(
    const StrategySpec& spec);

// The spec of a strategy given by its matrix (kind kMatrix: Q, K×N;
// kFactorization: A, rank×N) at ε, the matrix stored row-major.
StrategySpec MatrixStrategySpec(StrategyKind kind, double epsilon,
                                const Eigen::MatrixXd& matrix);

}  // namespace ldp

#endif  // LDP_COMMON_WORKLOAD_STRATEGY_FACTORY_H_
