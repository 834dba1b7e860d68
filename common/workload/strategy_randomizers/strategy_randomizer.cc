// Builds any strategy's randomizer from its spec (strategy_randomizer.h):
// checks the fields every kind shares, then hands over to the family that
// implements the kind (each family validates its own parameters). The
// server's CreateStrategy (strategy_factory.h) starts here too.
#include "common/workload/strategy_randomizers/strategy_randomizer.h"

#include <memory>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/base/validation.h"
#include "common/workload/specs/workload_spec.h"  // kMaxWorkloadDomainSize
#include "common/workload/strategy_randomizers/fake_data_randomizer.h"
#include "common/workload/strategy_randomizers/grouped_randomizer.h"
#include "common/workload/strategy_randomizers/matrix_randomizer.h"
#include "common/workload/strategy_randomizers/unary_fake_data_randomizer.h"
#include "common/workload/strategy_randomizers/vector_randomizer.h"

namespace ldp {

absl::StatusOr<std::shared_ptr<const StrategyRandomizer>>
CreateStrategyRandomizer(const StrategySpec& spec) {
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
    case StrategyKind::kAttributeSampling:
      return CreateGroupedRandomizer(spec);
    case StrategyKind::kMatrix:
      return CreateMatrixRandomizer(spec);
    case StrategyKind::kFactorization:
      return CreateVectorRandomizer(spec);
    case StrategyKind::kRandomSamplingFakeData:
      return CreateFakeDataRandomizer(spec);
    case StrategyKind::kFakeDataUnaryZero:
    case StrategyKind::kFakeDataUnaryRandom:
      return CreateUnaryFakeDataRandomizer(spec);
  }
  return absl::InvalidArgumentError(
      absl::StrCat("strategy: unknown kind ", static_cast<int>(spec.kind)));
}

}  // namespace ldp
