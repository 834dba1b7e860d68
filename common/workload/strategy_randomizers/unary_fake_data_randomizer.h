// Random sampling plus fake data with unary encoding, RS+FD[OUE-z] and
// RS+FD[OUE-r] (Arcolezi, Couchot, Al Bouna, Xiao, CIKM 2021), over d
// categorical attributes whose sizes k_1..k_d multiply to N (mixed radix,
// the first attribute most significant, as fake_data_randomizer.h). The
// agent samples one attribute j uniformly and reports every attribute as
// a block of k_i bits, K = Σ k_i bits in all: attribute j's value one-hot
// through OUE (bit 1 with p = 1/2 at the value, q = 1/(e^ε + 1)
// elsewhere), every other attribute as fake data through the same coins:
// a zero vector (OUE-z: every bit 1 with q) or a uniformly drawn one-hot
// vector (OUE-r). The server cannot tell which block is real.
//
// The privacy figures, as for RS+FD[GRR]. With a = p/q and b = (1−p)/(1−q)
// (a/b = e^ε), Pr[y | x] = Π_i F_i(y_i) · (1/d)·Σ_j ρ_j(y_j, x_j), where F_i
// is the fake block's probability and ρ_j the real block's over it: a or b
// (OUE-z), or a or b over D_j = (t·a + (k_j − t)·b)/k_j for a block with t
// ones (OUE-r). Between any two records the ratio is at most a/b, reached
// by a report whose every block holds x's value and not x''s: so epsilon()
// is the OUE's ε, the charge. Between records that differ in attribute j
// only, the other blocks dilute it; attribute_epsilon() is the exact
// largest ratio, ln((a + (d − 1)b)/(d·b)) for OUE-z (the paper's
// ε' = ln((e^ε + d − 1)/d)), and for OUE-r the same form with attribute j's
// a, b over D_j at t = 1 and the others' smallest ρ, k_i·b/((k_i − 1)a + b).
// Stated beside, never charged. Tests check both by enumeration.
#ifndef LDP_COMMON_WORKLOAD_STRATEGY_RANDOMIZERS_UNARY_FAKE_DATA_RANDOMIZER_H_
#define LDP_COMMON_WORKLOAD_STRATEGY_RANDOMIZERS_UNARY_FAKE_DATA_RANDOMIZER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/random/bit_gen_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/base/coin.h"
#include "common/workload/specs/strategy_spec.h"
#include "common/workload/strategy_randomizers/strategy_randomizer.h"

namespace ldp {

// Immutable; build it with CreateUnaryFakeDataRandomizer.
class UnaryFakeDataRandomizer final : public StrategyRandomizer {
 public:
  UnaryFakeDataRandomizer(StrategySpec spec, CoinProbability p,
                          CoinProbability q);

  std::string Describe() const override;
  uint32_t domain_size() const override { return spec_.domain_size; }
  // ln(p(1 − q)/(q(1 − p))) with the implemented coins.
  double epsilon() const override { return epsilon_; }
  // The same draws whatever the item is: the attribute, one fake value per
  // attribute, and a real and a fake block of coins for every attribute.
  WorkloadReport Randomize(uint32_t item, absl::BitGenRef gen) const override;
  double Probability(uint32_t item,
                     const WorkloadReport& report) const override;
  // Group 0, a BitVectorReport of K bits (or length 0, legacy) with zero
  // padding.
  absl::Status Validate(const WorkloadReport& report) const override;

  // Over records that differ in one attribute only; never charged.
  double attribute_epsilon() const { return attribute_epsilon_; }
  const StrategySpec& spec() const { return spec_; }
  // OUE-r (uniform one-hot fakes) rather than OUE-z (zero-vector fakes).
  bool random_fakes() const {
    return spec_.kind == StrategyKind::kFakeDataUnaryRandom;
  }
  uint32_t num_attributes() const {
    return static_cast<uint32_t>(spec_.attribute_sizes.size());
  }
  uint32_t num_bits() const { return offset_.back(); }  // K
  // First bit of attribute j's block.
  uint32_t offset(uint32_t j) const { return offset_[j]; }
  double p() const { return p_.value(); }
  double q() const { return q_.value(); }
  // Pr[bit v of a fake block of attribute j is 1]: q, or (p + (k_j − 1)q)/k_j.
  double fake_probability(uint32_t j) const;
  uint32_t Digit(uint32_t x, uint32_t j) const {
    return (x / place_[j]) % spec_.attribute_sizes[j];
  }

 private:
  StrategySpec spec_;
  CoinProbability p_, q_;
  std::vector<uint32_t> place_;   // Π of the sizes after attribute j
  std::vector<uint32_t> offset_;  // d + 1 block boundaries
  double epsilon_ = 0;
  double attribute_epsilon_ = 0;
};

// spec.kind is kFakeDataUnaryZero or kFakeDataUnaryRandom: 1 to
// kMaxStrategyAttributes sizes, each ≥ 2, whose product is
// spec.domain_size; the OUE coins run at spec.epsilon (at most 20).
absl::StatusOr<std::shared_ptr<const UnaryFakeDataRandomizer>>
CreateUnaryFakeDataRandomizer(const StrategySpec& spec);

}  // namespace ldp

#endif  // LDP_COMMON_WORKLOAD_STRATEGY_RANDOMIZERS_UNARY_FAKE_DATA_RANDOMIZER_H_
