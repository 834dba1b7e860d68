// Randomizer specs between ldp.v1 and the common/ factories; see the header.
#include "proto/convert/randomizer_convert.h"

#include <cmath>
#include <limits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/mechanisms/frequency/hadamard_subspaces.h"
#include "common/tasks/task.h"

namespace ldp {
namespace {

constexpr uint64_t kMaxNanos = std::numeric_limits<int64_t>::max();
constexpr uint32_t kMaxResolutionBits = 30;
constexpr int kMaxLevelWeights = 64;

using Wire = v1::RandomizerSpec;

// ε∞ of a longitudinal spec; `field` names the oneof member in errors.
absl::StatusOr<double> PermanentEpsilon(uint64_t nanos,
                                        absl::string_view field) {
  if (nanos == 0 || nanos > kMaxNanos) {
    return absl::InvalidArgumentError(absl::StrCat(
        field, ".epsilon_permanent_nanos must be in [1, 2^63 - 1], got ",
        nanos));
  }
  return NanosToEpsilon(static_cast<int64_t>(nanos));
}

// The oracles with a memoized permanent layer at ε∞; `spec` has the
// domain size.
absl::StatusOr<FrequencyOracleSpec> LongitudinalFromProto(
    const Wire& proto, FrequencyOracleSpec spec) {
  using K = FrequencyOracleKind;
  uint64_t nanos = 0;
  absl::string_view field;
  if (proto.has_longitudinal_grr()) {
    spec.kind = K::kLongitudinalGrr;
    nanos = proto.longitudinal_grr().epsilon_permanent_nanos();
    field = "longitudinal_grr";
  } else if (proto.has_longitudinal_local_hashing()) {
    spec.kind = K::kLongitudinalLocalHashing;
    nanos = proto.longitudinal_local_hashing().epsilon_permanent_nanos();
    spec.num_buckets = proto.longitudinal_local_hashing().num_buckets();
    field = "longitudinal_local_hashing";
  } else if (proto.has_rappor()) {
    spec.kind = K::kRappor;
    nanos = proto.rappor().epsilon_permanent_nanos();
    spec.num_columns = proto.rappor().num_bits();
    spec.num_hashes = proto.rappor().num_hashes();
    spec.num_cohorts = proto.rappor().num_cohorts();
    spec.hash_seed = proto.rappor().hash_seed();
    field = "rappor";
  } else {
    spec.kind = K::kLongitudinalUnaryEncoding;
    nanos = proto.longitudinal_unary_encoding().epsilon_permanent_nanos();
    field = "longitudinal_unary_encoding";
  }
  ASSIGN_OR_RETURN(spec.epsilon_permanent, PermanentEpsilon(nanos, field));
  return spec;
}

absl::StatusOr<FrequencyOracleSpec> OracleFromProto(const Wire& proto) {
  FrequencyOracleSpec spec{.domain_size = proto.domain_size()};
  using K = FrequencyOracleKind;
  switch (proto.mechanism_case()) {
    case Wire::kGrr:
      spec.kind = K::kGeneralizedRandomizedResponse;
      break;
    case Wire::kOue:
      spec.kind = K::kOptimizedUnaryEncoding;
      break;
    case Wire::kSue:
      spec.kind = K::kSymmetricUnaryEncoding;
      break;
    case Wire::kOlh:
      spec.kind = K::kOptimizedLocalHashing;
      spec.num_buckets = proto.olh().num_buckets();
      if (spec.num_buckets == 1) {
        return absl::InvalidArgumentError(
            "olh.num_buckets must be 0 (optimal) or >= 2, got 1");
      }
      break;
    case Wire::kSubsetSelection:
      spec.kind = K::kSubsetSelection;
      spec.subset_size = proto.subset_selection().subset_size();
      break;
    case Wire::kHadamardResponse:
      spec.kind = K::kHadamardResponse;
      spec.rows_per_item = proto.hadamard_response().rows_per_item();
      if (spec.rows_per_item > HadamardSubspaces::kMaxRowsPerItem) {
        return absl::InvalidArgumentError(absl::StrCat(
            "hadamard_response.rows_per_item must be in [0, ",
            HadamardSubspaces::kMaxRowsPerItem, "], got ", spec.rows_per_item));
      }
      break;
    case Wire::kCountMeanSketch:
      spec.kind = K::kCountMeanSketch;
      spec.num_hashes = proto.count_mean_sketch().num_hashes();
      spec.num_columns = proto.count_mean_sketch().num_columns();
      spec.hash_seed = proto.count_mean_sketch().hash_seed();
      break;
    case Wire::kHadamardCountMeanSketch:
      spec.kind = K::kHadamardCountMeanSketch;
      spec.num_hashes = proto.hadamard_count_mean_sketch().num_hashes();
      spec.num_columns = proto.hadamard_count_mean_sketch().num_columns();
      spec.hash_seed = proto.hadamard_count_mean_sketch().hash_seed();
      break;
    case Wire::kLongitudinalUnaryEncoding:
    case Wire::kLongitudinalGrr:
    case Wire::kLongitudinalLocalHashing:
    case Wire::kRappor:
      return LongitudinalFromProto(proto, spec);
    case Wire::kDbitFlip:
      spec.kind = K::kDBitFlip;
      spec.sampled_buckets = proto.dbit_flip().sampled_buckets();
      break;
    default:
      return absl::InvalidArgumentError("not a frequency oracle");
  }
  return spec;
}

absl::StatusOr<RealMechanismSpec> RealFromProto(const Wire& proto) {
  if (proto.domain_size() != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "domain_size must be 0 for a real-valued mechanism (its input range "
        "is the query's output range), got ",
        proto.domain_size()));
  }
  RealMechanismSpec spec{.bound = 1};
  switch (proto.mechanism_case()) {
    case Wire::kDiscreteLaplace: {
      spec.kind = RealMechanismKind::kDiscreteLaplace;
      const uint32_t bits = proto.discrete_laplace().resolution_bits();
      if (bits > kMaxResolutionBits) {
        return absl::InvalidArgumentError(
            absl::StrCat("discrete_laplace.resolution_bits must be 0 to ",
                         kMaxResolutionBits, ", got ", bits));
      }
      spec.resolution_bits = static_cast<int>(bits);
      break;
    }
    case Wire::kDuchi:
      spec.kind = RealMechanismKind::kDuchi;
      break;
    case Wire::kPiecewise:
      spec.kind = RealMechanismKind::kPiecewise;
      spec.num_cells = proto.piecewise().num_cells();
      break;
    case Wire::kHybrid:
      spec.kind = RealMechanismKind::kHybrid;
      spec.num_cells = proto.hybrid().num_cells();
      break;
    default:
      return absl::InvalidArgumentError("not a real-valued mechanism");
  }
  return spec;
}

absl::StatusOr<StrategySpec> StrategyFromProto(const Wire& proto) {
  const v1::StrategySpec& wire = proto.strategy();
  StrategySpec spec;
  spec.domain_size = proto.domain_size();
  absl::StatusOr<StrategyKind> kind = StrategyKindFromProto(wire.kind());
  if (!kind.ok()) return kind.status();
  spec.kind = *kind;
  if (wire.level_weights_size() > kMaxLevelWeights) {
    return absl::InvalidArgumentError(
        absl::StrCat("strategy.level_weights has ", wire.level_weights_size(),
                     " values; at most ", kMaxLevelWeights, " are allowed"));
  }
  if (static_cast<uint64_t>(wire.matrix_size()) > kMaxStrategyMatrixEntries) {
    return absl::InvalidArgumentError(absl::StrCat(
        "strategy.matrix has ", wire.matrix_size(), " values; at most ",
        kMaxStrategyMatrixEntries, " are allowed"));
  }
  for (double w : wire.level_weights()) {
    if (!std::isfinite(w)) {
      return absl::InvalidArgumentError(
          "strategy.level_weights must be finite");
    }
  }
  for (double a : wire.matrix()) {
    if (!std::isfinite(a)) {
      return absl::InvalidArgumentError("strategy.matrix must be finite");
    }
  }
  if (static_cast<uint32_t>(wire.attribute_sizes_size()) >
      kMaxStrategyAttributes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "strategy.attribute_sizes has ", wire.attribute_sizes_size(),
        " values; at most ", kMaxStrategyAttributes, " are allowed"));
  }
  spec.branching = wire.branching();
  spec.num_bits = wire.num_bits();
  spec.order = wire.order();
  spec.level_weights.assign(wire.level_weights().begin(),
                            wire.level_weights().end());
  spec.rows = wire.rows();
  spec.matrix.assign(wire.matrix().begin(), wire.matrix().end());
  spec.attribute_sizes.assign(wire.attribute_sizes().begin(),
                              wire.attribute_sizes().end());
  return spec;
}

absl::Status Invalid(const absl::Status& status) {
  return absl::InvalidArgumentError(
      absl::StrCat("invalid randomizer: ", status.message()));
}

bool IsRealMechanism(Wire::MechanismCase c) {
  return c == Wire::kDiscreteLaplace || c == Wire::kDuchi ||
         c == Wire::kPiecewise || c == Wire::kHybrid;
}

}  // namespace

double NanosToEpsilon(int64_t nanos) {
  return static_cast<double>(nanos) / static_cast<double>(kNanosPerEpsilon);
}

int64_t EpsilonToNanos(double epsilon) {
  if (!(epsilon >= 0) || !std::isfinite(epsilon)) return 0;
  const double nanos = epsilon * static_cast<double>(kNanosPerEpsilon);
  // 2^63 is exactly representable; anything at or above it saturates.
  if (nanos >= 9223372036854775808.0) {
    return std::numeric_limits<int64_t>::max();
  }
  return std::llround(nanos);
}

absl::StatusOr<RandomizerConfig> RandomizerFromProto(const Wire& proto) {
  if (proto.epsilon_nanos() == 0 || proto.epsilon_nanos() > kMaxNanos) {
    return absl::InvalidArgumentError(absl::StrCat(
        "randomizer.epsilon_nanos must be in [1, 2^63 - 1] (1 epsilon = 1e9 "
        "nano-epsilon), got ",
        proto.epsilon_nanos()));
  }
  if (proto.mechanism_case() == Wire::MECHANISM_NOT_SET) {
    return absl::InvalidArgumentError(
        "randomizer has no mechanism set (e.g. oue, olh, grr, hybrid)");
  }
  RandomizerConfig config;
  config.epsilon_nanos = static_cast<int64_t>(proto.epsilon_nanos());
  const double epsilon = NanosToEpsilon(config.epsilon_nanos);
  if (proto.mechanism_case() == Wire::kStrategy) {
    absl::StatusOr<StrategySpec> spec = StrategyFromProto(proto);
    if (!spec.ok()) return Invalid(spec.status());
    spec->epsilon = epsilon;
    config.mechanism = *std::move(spec);
  } else if (IsRealMechanism(proto.mechanism_case())) {
    absl::StatusOr<RealMechanismSpec> spec = RealFromProto(proto);
    if (!spec.ok()) return Invalid(spec.status());
    spec->epsilon = epsilon;
    config.mechanism = *spec;
  } else {
    absl::StatusOr<FrequencyOracleSpec> spec = OracleFromProto(proto);
    if (!spec.ok()) return Invalid(spec.status());
    spec->epsilon = epsilon;
    config.mechanism = *spec;
  }
  return config;
}

void MechanismToProto(const FrequencyOracleSpec& spec, Wire* proto) {
  using K = FrequencyOracleKind;
  switch (spec.kind) {
    case K::kGeneralizedRandomizedResponse:
      proto->mutable_grr();
      return;
    case K::kOptimizedUnaryEncoding:
      proto->mutable_oue();
      return;
    case K::kSymmetricUnaryEncoding:
      proto->mutable_sue();
      return;
    case K::kOptimizedLocalHashing:
      proto->mutable_olh()->set_num_buckets(spec.num_buckets);
      return;
    case K::kSubsetSelection:
      proto->mutable_subset_selection()->set_subset_size(spec.subset_size);
      return;
    case K::kHadamardResponse:
      // Only the general form names its rows: one-block specs stay as
      // they were on the wire (and in stored studies).
      if (spec.rows_per_item > 1) {
        proto->mutable_hadamard_response()->set_rows_per_item(
            spec.rows_per_item);
      } else {
        proto->mutable_hadamard_response();
      }
      return;
    case K::kCountMeanSketch: {
      v1::CountMeanSketchSpec* s = proto->mutable_count_mean_sketch();
      s->set_num_hashes(spec.num_hashes);
      s->set_num_columns(spec.num_columns);
      s->set_hash_seed(spec.hash_seed);
      return;
    }
    case K::kHadamardCountMeanSketch: {
      v1::HadamardCountMeanSketchSpec* s =
          proto->mutable_hadamard_count_mean_sketch();
      s->set_num_hashes(spec.num_hashes);
      s->set_num_columns(spec.num_columns);
      s->set_hash_seed(spec.hash_seed);
      return;
    }
    case K::kLongitudinalUnaryEncoding:
      proto->mutable_longitudinal_unary_encoding()->set_epsilon_permanent_nanos(
          EpsilonToNanos(spec.epsilon_permanent));
      return;
    case K::kLongitudinalGrr:
      proto->mutable_longitudinal_grr()->set_epsilon_permanent_nanos(
          EpsilonToNanos(spec.epsilon_permanent));
      return;
    case K::kLongitudinalLocalHashing: {
      v1::LongitudinalLocalHashingSpec* s =
          proto->mutable_longitudinal_local_hashing();
      s->set_epsilon_permanent_nanos(EpsilonToNanos(spec.epsilon_permanent));
      s->set_num_buckets(spec.num_buckets);
      return;
    }
    case K::kDBitFlip:
      proto->mutable_dbit_flip()->set_sampled_buckets(spec.sampled_buckets);
      return;
    case K::kRappor: {
      v1::RapporSpec* s = proto->mutable_rappor();
      s->set_epsilon_permanent_nanos(EpsilonToNanos(spec.epsilon_permanent));
      s->set_num_bits(spec.num_columns);
      s->set_num_hashes(spec.num_hashes);
      s->set_num_cohorts(spec.num_cohorts);
      s->set_hash_seed(spec.hash_seed);
      return;
    }
  }
}

void MechanismToProto(const RealMechanismSpec& spec, Wire* proto) {
  switch (spec.kind) {
    case RealMechanismKind::kDiscreteLaplace:
      proto->mutable_discrete_laplace()->set_resolution_bits(
          static_cast<uint32_t>(spec.resolution_bits));
      return;
    case RealMechanismKind::kDuchi:
      proto->mutable_duchi();
      return;
    case RealMechanismKind::kPiecewise:
      proto->mutable_piecewise()->set_num_cells(
          static_cast<uint32_t>(spec.num_cells));
      return;
    case RealMechanismKind::kHybrid:
      proto->mutable_hybrid()->set_num_cells(
          static_cast<uint32_t>(spec.num_cells));
      return;
  }
}

absl::StatusOr<StrategyKind> StrategyKindFromProto(int kind) {
  switch (kind) {
    case v1::StrategySpec::IDENTITY:
      return StrategyKind::kIdentity;
    case v1::StrategySpec::HIERARCHICAL:
      return StrategyKind::kHierarchical;
    case v1::StrategySpec::HAAR:
      return StrategyKind::kHaar;
    case v1::StrategySpec::FOURIER:
      return StrategyKind::kFourier;
    case v1::StrategySpec::MATRIX:
      return StrategyKind::kMatrix;
    case v1::StrategySpec::FACTORIZATION:
      return StrategyKind::kFactorization;
    case v1::StrategySpec::SAMPLING_FAKE_DATA:
      return StrategyKind::kRandomSamplingFakeData;
    case v1::StrategySpec::ATTRIBUTE_SAMPLING:
      return StrategyKind::kAttributeSampling;
    case v1::StrategySpec::SAMPLING_FAKE_DATA_OUE_Z:
      return StrategyKind::kFakeDataUnaryZero;
    case v1::StrategySpec::SAMPLING_FAKE_DATA_OUE_R:
      return StrategyKind::kFakeDataUnaryRandom;
    default:
      return absl::InvalidArgumentError(absl::StrCat(
          "strategy kind must be IDENTITY, HIERARCHICAL, HAAR, FOURIER, "
          "MATRIX, FACTORIZATION, SAMPLING_FAKE_DATA, ATTRIBUTE_SAMPLING, "
          "SAMPLING_FAKE_DATA_OUE_Z or SAMPLING_FAKE_DATA_OUE_R, got ",
          kind));
  }
}

v1::StrategySpec::Kind StrategyKindToProto(StrategyKind kind) {
  switch (kind) {
    case StrategyKind::kIdentity:
      return v1::StrategySpec::IDENTITY;
    case StrategyKind::kHierarchical:
      return v1::StrategySpec::HIERARCHICAL;
    case StrategyKind::kHaar:
      return v1::StrategySpec::HAAR;
    case StrategyKind::kFourier:
      return v1::StrategySpec::FOURIER;
    case StrategyKind::kMatrix:
      return v1::StrategySpec::MATRIX;
    case StrategyKind::kFactorization:
      return v1::StrategySpec::FACTORIZATION;
    case StrategyKind::kRandomSamplingFakeData:
      return v1::StrategySpec::SAMPLING_FAKE_DATA;
    case StrategyKind::kAttributeSampling:
      return v1::StrategySpec::ATTRIBUTE_SAMPLING;
    case StrategyKind::kFakeDataUnaryZero:
      return v1::StrategySpec::SAMPLING_FAKE_DATA_OUE_Z;
    case StrategyKind::kFakeDataUnaryRandom:
      return v1::StrategySpec::SAMPLING_FAKE_DATA_OUE_R;
  }
  return v1::StrategySpec::KIND_UNSPECIFIED;
}

void MechanismToProto(const StrategySpec& spec, Wire* proto) {
  v1::StrategySpec* wire = proto->mutable_strategy();
  wire->set_kind(StrategyKindToProto(spec.kind));
  wire->set_branching(spec.branching);
  wire->set_num_bits(spec.num_bits);
  wire->set_order(spec.order);
  wire->mutable_level_weights()->Add(spec.level_weights.begin(),
                                     spec.level_weights.end());
  wire->set_rows(spec.rows);
  wire->mutable_matrix()->Add(spec.matrix.begin(), spec.matrix.end());
  wire->mutable_attribute_sizes()->Add(spec.attribute_sizes.begin(),
                                       spec.attribute_sizes.end());
}

void ToProto(const RandomizerConfig& config, Wire* proto) {
  proto->Clear();
  proto->set_epsilon_nanos(static_cast<uint64_t>(config.epsilon_nanos));
  if (const auto* oracle =
          std::get_if<FrequencyOracleSpec>(&config.mechanism)) {
    proto->set_domain_size(oracle->domain_size);
    MechanismToProto(*oracle, proto);
  } else if (const auto* strategy =
                 std::get_if<StrategySpec>(&config.mechanism)) {
    proto->set_domain_size(strategy->domain_size);
    MechanismToProto(*strategy, proto);
  } else {
    MechanismToProto(std::get<RealMechanismSpec>(config.mechanism), proto);
  }
}

}  // namespace ldp
