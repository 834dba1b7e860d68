// Random sampling plus fake data, RS+FD[GRR] (Arcolezi, Couchot, Al Bouna,
// Xiao, CIKM 2021), as a workload strategy over d categorical attributes:
// the domain [N] is their mixed-radix product (sizes k_1..k_d, the first
// attribute most significant, as a ProductEncoding numbers it). The agent
// samples one attribute j uniformly, reports it through GRR over [k_j], and
// reports every other attribute as a uniform fake value; the server cannot
// tell which value is real. The report is the reported tuple, as one item
// of [N].
//
// The paper runs the sampled attribute's GRR at ε' = ln(d(e^ε − 1) + 1) and
// calls the result ε-LDP. That bound holds only between records that
// differ in one attribute of equal-sized domains. Between any two records
// (this system's guarantee, DESIGN invariant 3) the loss is ε' itself:
//   Pr[y | x] = (1/d)·Π_i(1/k_i)·Σ_j k_j·Pr[GRR_j(x_j) = y_j],
// which for a y that agrees with x everywhere and with x' nowhere has the
// ratio Σ_j k_j p_j / Σ_j k_j q_j = e^ε'. So the ε this randomizer is
// created with, charged to the agent, is the sampled attribute's GRR ε,
// and epsilon() is that exact ratio; the paper's weaker per-attribute
// figure is attribute_epsilon(), stated beside it and never charged (it
// exceeds the paper's ε when the sizes differ: 1.12 for ε = 1 at sizes
// 2, 3, 4). Tests (fake_data_randomizer_test.cc) check both by enumeration.
#ifndef LDP_COMMON_WORKLOAD_STRATEGY_RANDOMIZERS_FAKE_DATA_RANDOMIZER_H_
#define LDP_COMMON_WORKLOAD_STRATEGY_RANDOMIZERS_FAKE_DATA_RANDOMIZER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/random/bit_gen_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/mechanisms/frequency/generalized_randomized_response.h"
#include "common/workload/specs/strategy_spec.h"
#include "common/workload/strategy_randomizers/strategy_randomizer.h"

namespace ldp {

// Immutable; build it with CreateFakeDataRandomizer.
class FakeDataRandomizer final : public StrategyRandomizer {
 public:
  FakeDataRandomizer(
      StrategySpec spec,
      std::vector<std::unique_ptr<GeneralizedRandomizedResponse>> grr);

  std::string Describe() const override;
  uint32_t domain_size() const override { return spec_.domain_size; }
  // Over any two records: ln(Σ_j k_j p_j / Σ_j k_j q_j) with the GRRs'
  // implemented p_j, q_j.
  double epsilon() const override { return epsilon_; }
  // The same draws whatever the item is: the attribute, one fake value per
  // attribute and the sampled attribute's GRR coins.
  WorkloadReport Randomize(uint32_t item, absl::BitGenRef gen) const override;
  double Probability(uint32_t item,
                     const WorkloadReport& report) const override;
  absl::Status Validate(const WorkloadReport& report) const override;

  // Over records that differ in one attribute only: the largest over j of
  // ln((k_j p_j + Σ_{i≠j} k_i q_i) / Σ_i k_i q_i). Equals the paper's ε at
  // equal sizes; never charged.
  double attribute_epsilon() const { return attribute_epsilon_; }
  const StrategySpec& spec() const { return spec_; }
  uint32_t num_attributes() const {
    return static_cast<uint32_t>(spec_.attribute_sizes.size());
  }
  // The sampled attribute's GRR over [k_j].
  const GeneralizedRandomizedResponse& grr(uint32_t j) const {
    return *grr_[j];
  }
  // Value of attribute j in item x (mixed radix, attribute 0 most
  // significant).
  uint32_t Digit(uint32_t x, uint32_t j) const {
    return (x / place_[j]) % spec_.attribute_sizes[j];
  }

 private:
  StrategySpec spec_;
  std::vector<std::unique_ptr<GeneralizedRandomizedResponse>> grr_;
  std::vector<uint32_t> place_;  // Π of the sizes after attribute j
  double epsilon_ = 0;
  double attribute_epsilon_ = 0;
};

// spec.kind == kRandomSamplingFakeData: 1 to kMaxStrategyAttributes sizes,
// each ≥ 2, whose product is spec.domain_size; the GRRs run at spec.epsilon.
absl::StatusOr<std::shared_ptr<const FakeDataRandomizer>>
CreateFakeDataRandomizer(const StrategySpec& spec);

}  // namespace ldp

#endif  // LDP_COMMON_WORKLOAD_STRATEGY_RANDOMIZERS_FAKE_DATA_RANDOMIZER_H_
