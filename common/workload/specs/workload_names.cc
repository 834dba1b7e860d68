// Display names of workload and strategy kinds: the words the study file,
// the CLI and the benchmark tables use, kept in one place so they agree.
#include <string_view>

#include "common/workload/specs/strategy_spec.h"
#include "common/workload/specs/workload_spec.h"

namespace ldp {

std::string_view WorkloadKindName(WorkloadKind kind) {
  switch (kind) {
    case WorkloadKind::kHistogram:
      return "histogram";
    case WorkloadKind::kPrefix:
      return "prefix";
    case WorkloadKind::kAllRange:
      return "all_range";
    case WorkloadKind::kMarginals:
      return "marginals";
    case WorkloadKind::kParities:
      return "parities";
    case WorkloadKind::kCustom:
      return "custom";
    case WorkloadKind::kAttributeMarginals:
      return "attribute_marginals";
  }
  return "unknown";
}

std::string_view StrategyKindName(StrategyKind kind) {
  switch (kind) {
    case StrategyKind::kIdentity:
      return "identity";
    case StrategyKind::kHierarchical:
      return "hierarchical";
    case StrategyKind::kHaar:
      return "haar";
    case StrategyKind::kFourier:
      return "fourier";
    case StrategyKind::kMatrix:
      return "matrix";
    case StrategyKind::kFactorization:
      return "factorization";
    case StrategyKind::kRandomSamplingFakeData:
      return "sampling_fake_data";
    case StrategyKind::kAttributeSampling:
      return "attribute_sampling";
    case StrategyKind::kFakeDataUnaryZero:
      return "sampling_fake_data_oue_z";
    case StrategyKind::kFakeDataUnaryRandom:
      return "sampling_fake_data_oue_r";
  }
  return "unknown";
}

}  // namespace ldp
