// Stable, human-readable names for real-valued mechanism kinds (logs, CLI,
// results).
#include "common/mechanisms/real/real_mechanism.h"

namespace ldp {

std::string_view RealMechanismKindName(RealMechanismKind kind) {
  switch (kind) {
    case RealMechanismKind::kDiscreteLaplace:
      return "discrete_laplace";
    case RealMechanismKind::kDuchi:
      return "duchi";
    case RealMechanismKind::kPiecewise:
      return "piecewise";
    case RealMechanismKind::kHybrid:
      return "hybrid";
  }
  return "unknown";
}

}  // namespace ldp
