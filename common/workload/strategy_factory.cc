// Builds any strategy from its spec (strategy_factory.h): checks the fields
// every kind shares, then hands over to the family that implements the kind
// (each family validates its own parameters).
#include "common/workload/strategy_factory.h"

#include <memory>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/validation.h"
#include "common/workload/grouped_strategy.h"
#include "common/workload/matrix_strategy.h"
#include "common/workload/vector_strategy.h"
#include "common/workload/workload.h"

namespace ldp {

absl::StatusOr<std::unique_ptr<StrategyMechanism>> CreateStrategy(
    const StrategySpec& spec) {
  if (absl::Status s = ValidateEpsilon("strategy", spec.epsilon); !s.ok()) {
    return s;
  }
  if (absl::Status s = ValidateDomainSize("strategy", spec.domain_size, 1,
                                          kMaxWorkloadDomainSize);
      !s.ok()) {
    return s;
  }
  switch (spec.kind) {
    case StrategyKind::kIdentity:
    case StrategyKind::kHierarchical:
    case StrategyKind::kHaar:
    case StrategyKind::kFourier:
      return CreateGroupedStrategy(spec);
    case StrategyKind::kMatrix:
      return CreateMatrixStrategy(spec);
    case StrategyKind::kFactorization:
      return CreateVectorStrategy(spec);
  }
  return absl::InvalidArgumentError(
      absl::StrCat("strategy: unknown kind ", static_cast<int>(spec.kind)));
}

StrategySpec MatrixStrategySpec(StrategyKind kind, double epsilon,
                                const Eigen::MatrixXd& matrix) {
  StrategySpec spec;
  spec.kind = kind;
  spec.epsilon = epsilon;
  spec.domain_size = static_cast<uint32_t>(matrix.cols());
  spec.rows = static_cast<uint32_t>(matrix.rows());
  spec.matrix.resize(static_cast<size_t>(matrix.size()));
  Eigen::Map<Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
      spec.matrix.data(), matrix.rows(), matrix.cols()) = matrix;
  return spec;
}

}  // namespace ldp
