// Stable, human-readable names for frequency oracle kinds (logs, CLI,
// results).
#include "common/mechanisms/frequency/frequency_oracle.h"

namespace ldp {

std::string_view FrequencyOracleKindName(FrequencyOracleKind kind) {
  switch (kind) {
    case FrequencyOracleKind::kGeneralizedRandomizedResponse:
      return "grr";
    case FrequencyOracleKind::kOptimizedUnaryEncoding:
      return "oue";
    case FrequencyOracleKind::kSymmetricUnaryEncoding:
      return "sue";
    case FrequencyOracleKind::kOptimizedLocalHashing:
      return "olh";
    case FrequencyOracleKind::kSubsetSelection:
      return "subset_selection";
    case FrequencyOracleKind::kHadamardResponse:
      return "hadamard_response";
    case FrequencyOracleKind::kCountMeanSketch:
      return "count_mean_sketch";
    case FrequencyOracleKind::kHadamardCountMeanSketch:
      return "hadamard_count_mean_sketch";
    case FrequencyOracleKind::kLongitudinalUnaryEncoding:
      return "longitudinal_unary_encoding";
    case FrequencyOracleKind::kLongitudinalGrr:
      return "longitudinal_grr";
    case FrequencyOracleKind::kLongitudinalLocalHashing:
      return "longitudinal_local_hashing";
    case FrequencyOracleKind::kDBitFlip:
      return "dbit_flip";
    case FrequencyOracleKind::kRappor:
      return "rappor";
  }
  return "unknown";
}

}  // namespace ldp
