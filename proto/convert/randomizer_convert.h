// ldp.v1.RandomizerSpec <-> FrequencyOracleSpec / RealMechanismSpec /
// StrategySpec (workload strategies) plus the exact ε in nano-ε.
//
// The wire carries ε only as integer nano-ε so ledgers add exactly; the
// common/ specs carry it as a double. Reading sets spec.epsilon =
// epsilon_nanos / 1e9 and keeps the integer beside it; writing takes the
// integer explicitly, never a rounded double.
#ifndef LDP_PROTO_CONVERT_RANDOMIZER_CONVERT_H_
#define LDP_PROTO_CONVERT_RANDOMIZER_CONVERT_H_

#include <cstdint>
#include <variant>

#include "absl/status/statusor.h"
#include "common/mechanisms/frequency_oracle_factory.h"
#include "common/mechanisms/real/real_mechanism_factory.h"
#include "common/workload/specs/strategy_spec.h"
#include "proto/ldp/v1/types.pb.h"

namespace ldp {

// ε in nano-ε → ε (nanos / 1e9).
double NanosToEpsilon(int64_t nanos);
// ε → the nearest whole nano-ε; exact inverse of NanosToEpsilon for
// |nanos| < 2^51. Non-finite or negative ε gives 0.
int64_t EpsilonToNanos(double epsilon);

// A randomizer as the wire describes it.
struct RandomizerConfig {
  // εₜ in nano-ε, > 0.
  int64_t epsilon_nanos = 0;
  // The mechanism; its `epsilon` is epsilon_nanos / 1e9. A frequency
  // oracle's or strategy's `domain_size` is the wire value (may be 0 = not
  // stated); a real mechanism's `bound` is 1 (the task's query range sets
  // the real bound).
  std::variant<FrequencyOracleSpec, RealMechanismSpec, StrategySpec>
      mechanism{};
};

// InvalidArgument unless 0 < epsilon_nanos ≤ 2^63 − 1, a mechanism is set,
// a real mechanism has domain_size 0, and the parameters fit their types
// (resolution_bits ≤ 30, OLH g ≠ 1, a strategy kind set, at most
// kMaxStrategyMatrixEntries matrix values and 64 level weights, all
// finite). Mechanism-specific limits beyond that are
// CreateFrequencyOracle's / CreateRealMechanism's / CreateStrategy's job.
absl::StatusOr<RandomizerConfig> RandomizerFromProto(
    const v1::RandomizerSpec& proto);

// Overwrites `proto` with config.epsilon_nanos and the mechanism's
// parameters (the spec's own `epsilon` and a real mechanism's `bound` are
// not serialized).
void ToProto(const RandomizerConfig& config, v1::RandomizerSpec* proto);

// The parameter-only halves (no ε, no domain size): write the mechanism
// alternative of `proto`, leaving its other fields alone.
void MechanismToProto(const FrequencyOracleSpec& spec,
                      v1::RandomizerSpec* proto);
void MechanismToProto(const RealMechanismSpec& spec, v1::RandomizerSpec* proto);
void MechanismToProto(const StrategySpec& spec, v1::RandomizerSpec* proto);

// StrategyKind <-> the wire enum; InvalidArgument for KIND_UNSPECIFIED or an
// unknown value.
absl::StatusOr<StrategyKind> StrategyKindFromProto(int kind);
v1::StrategySpec::Kind StrategyKindToProto(StrategyKind kind);

}  // namespace ldp

#endif  // LDP_PROTO_CONVERT_RANDOMIZER_CONVERT_H_
