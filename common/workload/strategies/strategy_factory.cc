// Builds any strategy from its spec (strategy_factory.h): the randomizer
// factory (strategy_randomizer.h) checks the spec and builds the agent's
// randomizer, and the family that implements the kind adds its linear
// structure around it.
#include "common/workload/strategies/strategy_factory.h"

#include <memory>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/workload/strategies/fake_data_strategy.h"
#include "common/workload/strategies/grouped_strategy.h"
#include "common/workload/strategies/matrix_strategy.h"
#include "common/workload/strategies/vector_strategy.h"
#include "common/workload/strategy_randomizers/strategy_randomizer.h"

namespace ldp {

absl::StatusOr<std::unique_ptr<StrategyMechanism>> CreateStrategy(
    const StrategySpec& spec) {
  absl::StatusOr<std::shared_ptr<const StrategyRandomizer>> randomizer =
      CreateStrategyRandomizer(spec);
  if (!randomizer.ok()) return randomizer.status();
  return StrategyForRandomizer(*std::move(randomizer));
}

absl::StatusOr<std::unique_ptr<StrategyMechanism>> StrategyForRandomizer(
    std::shared_ptr<const StrategyRandomizer> randomizer) {
  if (auto grouped =
          std::dynamic_pointer_cast<const GroupedRandomizer>(randomizer)) {
    return GroupedStrategyFor(std::move(grouped));
  }
  if (auto matrix =
          std::dynamic_pointer_cast<const MatrixRandomizer>(randomizer)) {
    return MatrixStrategyFor(std::move(matrix));
  }
  if (auto vector =
          std::dynamic_pointer_cast<const VectorRandomizer>(randomizer)) {
    return VectorStrategyFor(std::move(vector));
  }
  if (auto fake =
          std::dynamic_pointer_cast<const FakeDataRandomizer>(randomizer)) {
    return FakeDataStrategyFor(std::move(fake));
  }
  if (auto fake = std::dynamic_pointer_cast<const UnaryFakeDataRandomizer>(
          randomizer)) {
    return FakeDataStrategyFor(std::move(fake));
  }
  if (auto strategy =
          std::dynamic_pointer_cast<const StrategyMechanism>(randomizer)) {
    return StrategyForRandomizer(strategy->randomizer());
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "strategy: ",
      randomizer == nullptr ? "no randomizer" : randomizer->Describe(),
      " was not built by CreateStrategyRandomizer"));
}

StrategySpec MatrixStrategySpec(StrategyKind kind, double epsilon,
                                const Eigen::MatrixXd& matrix) {
  StrategySpec spec;
  spec.kind = kind;
  spec.epsilon = epsilon;
  spec.domain_size = static_cast<uint32_t>(matrix.cols());
  spec.rows = static_cast<uint32_t>(matrix.rows());
  spec.matrix.resize(static_cast<size_t>(matrix.size()));
  Eigen::Map<
      Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
      spec.matrix.data(), matrix.rows(), matrix.cols()) = matrix;
  return spec;
}

}  // namespace ldp
