// Longitudinal generalized randomized response, L-GRR (Arcolezi, Couchot,
// Al Bouna, Xiao, 2022): GRR over [N] at ε∞, memoized per value, then a
// fresh GRR over [N] of that memo for every report (grr_layers.h has the
// layers and their closed forms).
//
// Why: GRR is the best oracle for small domains (N < 3e^ε + 2), and a
// repeated question there should not pay unary encoding's N-bit reports.
// One report is GRR with P = p1 p2 + (1 − p1) q2 and Q = q1 p2 + (1 − q1) q2,
// so the estimator and its variance are the pure protocol's with (P, Q):
//   Var[f̂_v] = Q(1 − Q)/(n(P − Q)²) + f_v(1 − P − Q)/(n(P − Q)).
// The memo is an ItemReport (the permanent symbol), a report is one too.
#ifndef LDP_COMMON_MECHANISMS_LONGITUDINAL_LONGITUDINAL_GRR_H_
#define LDP_COMMON_MECHANISMS_LONGITUDINAL_LONGITUDINAL_GRR_H_

#include <cstdint>
#include <memory>

#include "absl/random/bit_gen_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/estimation/pure_protocol.h"
#include "common/mechanisms/frequency/frequency_oracle.h"
#include "common/mechanisms/frequency/grr_layers.h"
#include "common/mechanisms/frequency/pure_frequency_oracle.h"
#include "common/mechanisms/longitudinal/longitudinal_oracle.h"

namespace ldp {

struct LongitudinalGrrOptions {
  double epsilon_permanent = 0;  // ε∞ in (0, kMaxEpsilon]
  double epsilon_report = 0;     // ε1 in (0, ε∞)
  uint32_t domain_size = 0;      // N in [2, kMaxDomainSize]
};

class LongitudinalGrr final : public PureFrequencyOracle,
                              public LongitudinalOracle {
 public:
  static constexpr double kMaxEpsilon = 20;  // as GRR
  static constexpr uint32_t kMaxDomainSize = uint32_t{1} << 24;

  static absl::StatusOr<std::unique_ptr<LongitudinalGrr>> Create(
      const LongitudinalGrrOptions& options);

  FrequencyOracleKind kind() const override {
    return FrequencyOracleKind::kLongitudinalGrr;
  }
  uint32_t domain_size() const override { return layers_.alphabet(); }
  double epsilon() const override { return layers_.epsilon(); }
  double epsilon_infinity() const override {
    return layers_.epsilon_infinity();
  }
  PureProtocol protocol() const override { return layers_.composed(); }
  const GrrLayers& layers() const { return layers_; }

  // A fresh memo, then a report from it.
  FrequencyReport Randomize(uint32_t item, absl::BitGenRef gen) const override;
  double Probability(uint32_t item,
                     const FrequencyReport& report) const override;
  absl::Status Validate(const FrequencyReport& report) const override;
  std::unique_ptr<FrequencyAccumulator> NewAccumulator() const override;

  FrequencyReport Memoize(uint32_t item, absl::BitGenRef gen) const override;
  absl::Status ValidateMemo(const FrequencyReport& memo) const override;
  // A memo that is not an ItemReport counts as item 0; an item past the
  // domain as the last item.
  FrequencyReport RandomizeFromMemo(const FrequencyReport& memo,
                                    absl::BitGenRef gen) const override;
  double MemoProbability(uint32_t item,
                         const FrequencyReport& memo) const override;
  double ProbabilityFromMemo(const FrequencyReport& memo,
                             const FrequencyReport& report) const override;

 private:
  explicit LongitudinalGrr(GrrLayers layers) : layers_(layers) {}

  uint32_t Clamp(uint32_t item) const {
    return item < domain_size() ? item : domain_size() - 1;
  }

  GrrLayers layers_;
};

}  // namespace ldp

#endif  // LDP_COMMON_MECHANISMS_LONGITUDINAL_LONGITUDINAL_GRR_H_
