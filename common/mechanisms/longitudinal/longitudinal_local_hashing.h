// Longitudinal local hashing, L-OLH (Arcolezi, Couchot, Al Bouna, Xiao,
// 2022): the agent draws a public hash seed once per value, hashes the value
// to x = H_seed(v) in [g], memoizes B = GRR_g(x) at ε∞ with the seed, and
// every report is (seed, GRR_g(B)) with a fresh instantaneous GRR
// (grr_layers.h has the two layers over [g]).
//
// Why: for medium and large domains a repeated question gets local
// hashing's accuracy with a 64-bit seed and a bucket per report, where L-UE
// sends N bits. One report supports v iff its bucket is H_seed(v): with
// probability P = p1 p2 + (1 − p1) q2 (the composed GRR over [g]) at the
// input, and 1/g at any other item (pairwise-independent hash, as OLH's
// local_hashing.h). So the estimator is the pure protocol's with p = P,
// q = 1/g, and
//   Var[f̂_v] = q(1 − q)/(n(P − q)²) + f_v(1 − P − q)/(n(P − q)).
//
// One report is GRR over [g] at ε1 (grr_layers.h), so it has OLH's
// variance at ε1 with the same g, whatever ε∞: the permanent layer costs
// nothing in accuracy, only the instantaneous layer's keep probability.
// num_buckets = 0 picks the g that minimizes q(1 − q)/(P − q)² with
// P = e^{ε1}/(e^{ε1} + g − 1), scanning [2, min(kMaxChosenBuckets,
// 2(e^{ε1} + 2))] (the optimum is near e^{ε1} + 1, OLH's rule).
#ifndef LDP_COMMON_MECHANISMS_LONGITUDINAL_LONGITUDINAL_LOCAL_HASHING_H_
#define LDP_COMMON_MECHANISMS_LONGITUDINAL_LONGITUDINAL_LOCAL_HASHING_H_

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

struct LongitudinalLocalHashingOptions {
  double epsilon_permanent = 0;  // ε∞ in (0, kMaxEpsilon]
  double epsilon_report = 0;     // ε1 in (0, ε∞)
  uint32_t domain_size = 0;      // N in [2, kMaxDomainSize]
  // g in [2, kMaxBuckets]; 0 = the variance-minimizing g up to
  // kMaxChosenBuckets.
  uint32_t num_buckets = 0;
};

class LongitudinalLocalHashing final : public PureFrequencyOracle,
                                       public LongitudinalOracle {
 public:
  static constexpr double kMaxEpsilon = 20;
  // As OLH: the server hashes every report against every item.
  static constexpr uint32_t kMaxDomainSize = uint32_t{1} << 24;
  static constexpr uint32_t kMaxBuckets = uint32_t{1} << 30;
  // The default g is searched up to here, which covers ε1 up to about 11.
  static constexpr uint32_t kMaxChosenBuckets = uint32_t{1} << 16;

  static absl::StatusOr<std::unique_ptr<LongitudinalLocalHashing>> Create(
      const LongitudinalLocalHashingOptions& options);

  // The g num_buckets = 0 selects for ε1 > 0.
  static uint32_t BestNumBuckets(double epsilon_report);

  FrequencyOracleKind kind() const override {
    return FrequencyOracleKind::kLongitudinalLocalHashing;
  }
  uint32_t domain_size() const override { return domain_size_; }
  uint32_t num_buckets() const { return layers_.alphabet(); }
  double epsilon() const override { return layers_.epsilon(); }
  double epsilon_infinity() const override {
    return layers_.epsilon_infinity();
  }
  // {P of the composed layers, 1/g}.
  PureProtocol protocol() const override;
  const GrrLayers& layers() const { return layers_; }

  // A fresh memo (new seed), then a report from it.
  FrequencyReport Randomize(uint32_t item, absl::BitGenRef gen) const override;
  // Pr[bucket | seed, item]; the seed is public and independent of the item.
  double Probability(uint32_t item,
                     const FrequencyReport& report) const override;
  absl::Status Validate(const FrequencyReport& report) const override;
  std::unique_ptr<FrequencyAccumulator> NewAccumulator() const override;

  // Memo and report are both HashedReport{seed, bucket}; a report keeps its
  // memo's seed.
  FrequencyReport Memoize(uint32_t item, absl::BitGenRef gen) const override;
  absl::Status ValidateMemo(const FrequencyReport& memo) const override;
  // A memo that is not a HashedReport counts as {seed 0, bucket 0}; a
  // bucket past g as the last bucket.
  FrequencyReport RandomizeFromMemo(const FrequencyReport& memo,
                                    absl::BitGenRef gen) const override;
  double MemoProbability(uint32_t item,
                         const FrequencyReport& memo) const override;
  // 0 unless the report carries the memo's seed.
  double ProbabilityFromMemo(const FrequencyReport& memo,
                             const FrequencyReport& report) const override;

 private:
  LongitudinalLocalHashing(uint32_t domain_size, GrrLayers layers)
      : domain_size_(domain_size), layers_(layers) {}

  uint32_t Hash(uint64_t seed, uint32_t item) const;

  uint32_t domain_size_;
  GrrLayers layers_;
};

}  // namespace ldp

#endif  // LDP_COMMON_MECHANISMS_LONGITUDINAL_LONGITUDINAL_LOCAL_HASHING_H_
