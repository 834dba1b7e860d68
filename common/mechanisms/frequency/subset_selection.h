// k-subset selection (Ye, Barg, IEEE Trans. Inf. Theory 2018; Wang, Wu, Hu,
// "Using randomized response for differential privacy preserving data
// collection", 2016): the agent reports k of the N items. With probability
//   p_in = k e^ε / (k e^ε + N − k)
// the subset is its item plus k − 1 uniformly random others, otherwise k
// uniformly random items other than its own. Every k-subset containing v is
// then e^ε times as likely as any not containing it.
//
// Why: with k ≈ N/(e^ε + 1) its variance matches OUE's (order-optimal for all
// ε) while a report is k item indices instead of N bits, and for large ε it
// degrades gracefully into GRR (k = 1).
//
// It is a pure protocol: Pr[v ∈ S | input v] = p_in and
//   Pr[v ∈ S | input ≠ v] = p_in (k − 1)/(N − 1) + (1 − p_in) k/(N − 1).
//
// Coins: p_in is rounded DOWN to a multiple of 2^-32, which can only lower
// the ratio p_in (N − k)/((1 − p_in) k); epsilon() is ln of that ratio. The
// subsets are sampled exactly from integer coins. The item enters only at
// the end, through a pass that rewrites every word of the subset bitmap, so
// the draws and the work depend on N, k and the coins, never on the item
// (DESIGN invariant 8).
#ifndef LDP_COMMON_MECHANISMS_FREQUENCY_SUBSET_SELECTION_H_
#define LDP_COMMON_MECHANISMS_FREQUENCY_SUBSET_SELECTION_H_

#include <cstdint>
#include <memory>

#include "absl/random/bit_gen_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/base/coin.h"
#include "common/estimation/pure_protocol.h"
#include "common/mechanisms/frequency/frequency_oracle.h"
#include "common/mechanisms/frequency/pure_frequency_oracle.h"

namespace ldp {

struct SubsetSelectionOptions {
  double epsilon = 0;        // in (0, kMaxEpsilon]
  uint32_t domain_size = 0;  // N in [2, kMaxDomainSize]
  // k in [1, N − 1]; 0 picks max(1, round(N / (e^ε + 1))), which minimizes
  // the variance up to rounding.
  uint32_t subset_size = 0;
};

class SubsetSelection : public PureFrequencyOracle {
 public:
  // Beyond ε = 20 the flip probabilities fall below ~10 · 2^-32 and the
  // 32-bit coins cannot represent them faithfully.
  static constexpr double kMaxEpsilon = 20;
  // Bounds the server's count vector and the client's scratch bitset.
  static constexpr uint32_t kMaxDomainSize = uint32_t{1} << 24;

  static absl::StatusOr<std::unique_ptr<SubsetSelection>> Create(
      const SubsetSelectionOptions& options);

  FrequencyOracleKind kind() const override {
    return FrequencyOracleKind::kSubsetSelection;
  }
  uint32_t domain_size() const override { return domain_size_; }
  double epsilon() const override { return epsilon_; }

  FrequencyReport Randomize(uint32_t item, absl::BitGenRef gen) const override;
  // Exact up to double rounding; underflows to 0 when C(N − 1, k) exceeds
  // ~1e308.
  double Probability(uint32_t item,
                     const FrequencyReport& report) const override;
  absl::Status Validate(const FrequencyReport& report) const override;
  std::unique_ptr<FrequencyAccumulator> NewAccumulator() const override;
  PureProtocol protocol() const override { return protocol_; }

  uint32_t subset_size() const { return subset_size_; }
  // Implemented Pr[input ∈ report].
  double inclusion_probability() const { return include_.value(); }

 private:
  SubsetSelection(uint32_t domain_size, uint32_t subset_size,
                  CoinProbability include, double epsilon);

  uint32_t domain_size_;
  uint32_t subset_size_;
  CoinProbability include_;
  PureProtocol protocol_;
  double epsilon_;
  // Pr[S | v] for one given k-subset S with v ∈ S, and with v ∉ S.
  double subset_probability_in_;
  double subset_probability_out_;
};

}  // namespace ldp

#endif  // LDP_COMMON_MECHANISMS_FREQUENCY_SUBSET_SELECTION_H_
