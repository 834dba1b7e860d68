// Canonical task questions; see the header.
#include "common/tasks/canonical_task.h"

#include <cmath>

#include "common/mechanisms/frequency/count_mean_sketch.h"
#include "common/mechanisms/frequency/hadamard_response.h"
#include "common/mechanisms/frequency/local_hashing.h"
#include "common/mechanisms/frequency/subset_selection.h"
#include "common/mechanisms/longitudinal/dbit_flip.h"
#include "common/mechanisms/longitudinal/longitudinal_local_hashing.h"
#include "common/mechanisms/longitudinal/longitudinal_oracle.h"
#include "common/mechanisms/rappor/rappor.h"
#include "common/mechanisms/real/discrete_laplace.h"
#include "common/mechanisms/real/hybrid_mechanism.h"
#include "common/mechanisms/real/piecewise_mechanism.h"

namespace ldp {
namespace {

RealMechanismSpec CanonicalMechanism(const RealMechanismSpec& given,
                                     const RealMechanism& built) {
  RealMechanismSpec spec{
      .kind = given.kind, .epsilon = given.epsilon, .bound = built.bound()};
  if (const auto* laplace =
          dynamic_cast<const DiscreteLaplaceMechanism*>(&built)) {
    // The lattice step is bound / 2^k exactly (ldexp), so this is k.
    spec.resolution_bits =
        std::ilogb(laplace->bound() / laplace->lattice_step());
  } else if (const auto* piecewise =
                 dynamic_cast<const PiecewiseMechanism*>(&built)) {
    spec.num_cells = piecewise->num_cells();
  } else if (const auto* hybrid =
                 dynamic_cast<const HybridMechanism*>(&built)) {
    spec.num_cells = hybrid->duchi_minus_level();  // = its piecewise cells
  }
  return spec;
}

FrequencyOracleSpec CanonicalOracle(const FrequencyOracleSpec& given,
                                    const FrequencyOracle& built) {
  FrequencyOracleSpec spec{.kind = given.kind,
                           .epsilon = given.epsilon,
                           .domain_size = built.domain_size()};
  if (const auto* olh = dynamic_cast<const OptimizedLocalHashing*>(&built)) {
    spec.num_buckets = olh->num_buckets();
  } else if (const auto* ss = dynamic_cast<const SubsetSelection*>(&built)) {
    spec.subset_size = ss->subset_size();
  } else if (const auto* cms = dynamic_cast<const CountMeanSketch*>(&built)) {
    spec.num_hashes = cms->num_hashes();
    spec.num_columns = cms->num_columns();
    spec.hash_seed = cms->hash_seed();
  } else if (const auto* hr = dynamic_cast<const HadamardResponse*>(&built)) {
    // 0 for the one-block form, as specs written before the general one.
    spec.rows_per_item = hr->rows_per_item() > 1 ? hr->rows_per_item() : 0;
  } else if (const auto* lolh =
                 dynamic_cast<const LongitudinalLocalHashing*>(&built)) {
    spec.epsilon_permanent = given.epsilon_permanent;
    spec.num_buckets = lolh->num_buckets();
  } else if (const auto* dbit = dynamic_cast<const DBitFlip*>(&built)) {
    spec.sampled_buckets = dbit->sampled_buckets();
  } else if (const auto* rappor = dynamic_cast<const Rappor*>(&built)) {
    spec.epsilon_permanent = given.epsilon_permanent;
    spec.num_columns = rappor->bloom().num_bits();
    spec.num_hashes = rappor->bloom().num_hashes();
    spec.num_cohorts = rappor->bloom().num_cohorts();
    spec.hash_seed = rappor->bloom().hash_seed();
  } else if (dynamic_cast<const LongitudinalOracle*>(&built) != nullptr) {
    spec.epsilon_permanent = given.epsilon_permanent;  // L-UE, L-GRR
  }
  return spec;
}

StrategySpec CanonicalStrategy(const StrategySpec& given,
                               const StrategyRandomizer& built) {
  StrategySpec spec;
  spec.kind = given.kind;
  spec.epsilon = given.epsilon;
  spec.domain_size = built.domain_size();
  switch (given.kind) {
    case StrategyKind::kHierarchical:
      spec.branching = given.branching;
      break;
    case StrategyKind::kFourier:
      spec.num_bits = given.num_bits;
      spec.order = given.order;
      spec.level_weights = given.level_weights;
      break;
    case StrategyKind::kMatrix:
    case StrategyKind::kFactorization:
      spec.rows = given.rows;
      spec.matrix = given.matrix;
      break;
    case StrategyKind::kRandomSamplingFakeData:
    case StrategyKind::kFakeDataUnaryZero:
    case StrategyKind::kFakeDataUnaryRandom:
    case StrategyKind::kAttributeSampling:
      spec.attribute_sizes = given.attribute_sizes;
      break;
    case StrategyKind::kIdentity:
    case StrategyKind::kHaar:
      break;
  }
  return spec;
}

}  // namespace

Task CanonicalTask(const Task& task, const FrequencyOracle* oracle,
                   const RealMechanism* mechanism,
                   const StrategyRandomizer* strategy) {
  Task canonical = task;
  canonical.study_id = canonical.round_id = canonical.task_id = 0;
  canonical.epsilon_nanos = 0;
  if (auto* sq = std::get_if<StatisticalQueryTask>(&canonical.question)) {
    sq->mechanism = CanonicalMechanism(sq->mechanism, *mechanism);
  } else if (auto* histogram =
                 std::get_if<HistogramTask>(&canonical.question)) {
    histogram->oracle = CanonicalOracle(histogram->oracle, *oracle);
  } else {
    auto& workload = std::get<WorkloadTask>(canonical.question);
    workload.strategy = CanonicalStrategy(workload.strategy, *strategy);
  }
  return canonical;
}

}  // namespace ldp
