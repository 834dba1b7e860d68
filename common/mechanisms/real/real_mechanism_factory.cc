// Real-mechanism construction from a spec.
#include "common/mechanisms/real/real_mechanism_factory.h"

#include "common/mechanisms/real/discrete_laplace.h"
#include "common/mechanisms/real/duchi_mechanism.h"
#include "common/mechanisms/real/hybrid_mechanism.h"
#include "common/mechanisms/real/piecewise_mechanism.h"

namespace ldp {
namespace {

template <typename T>
absl::StatusOr<std::unique_ptr<RealMechanism>> Upcast(
    absl::StatusOr<std::unique_ptr<T>> mechanism) {
  if (!mechanism.ok()) return mechanism.status();
  return std::unique_ptr<RealMechanism>(std::move(*mechanism));
}

}  // namespace

absl::StatusOr<std::unique_ptr<RealMechanism>> CreateRealMechanism(
    const RealMechanismSpec& spec) {
  switch (spec.kind) {
    case RealMechanismKind::kDiscreteLaplace: {
      DiscreteLaplaceOptions options{.epsilon = spec.epsilon,
                                     .bound = spec.bound};
      if (spec.resolution_bits != 0)
        options.resolution_bits = spec.resolution_bits;
      return Upcast(DiscreteLaplaceMechanism::Create(options));
    }
    case RealMechanismKind::kDuchi:
      return Upcast(DuchiMechanism::Create(
          {.epsilon = spec.epsilon, .bound = spec.bound}));
    case RealMechanismKind::kPiecewise: {
      PiecewiseOptions options{.epsilon = spec.epsilon, .bound = spec.bound};
      if (spec.num_cells != 0) options.num_cells = spec.num_cells;
      return Upcast(PiecewiseMechanism::Create(options));
    }
    case RealMechanismKind::kHybrid: {
      HybridOptions options{.epsilon = spec.epsilon, .bound = spec.bound};
      if (spec.num_cells != 0) options.num_cells = spec.num_cells;
      return Upcast(HybridMechanism::Create(options));
    }
  }
  return absl::InvalidArgumentError("unknown real mechanism kind");
}

}  // namespace ldp
