// The randomizer of the grouped strategies (identity, hierarchical, Haar,
// Fourier; grouped_strategy.h has the report format): the agent samples a
// group with a public probability π_g and reports the row its item falls
// in through the group's inner GRR or OUE. Without Eigen, for the agent;
// the server's GroupedStrategy wraps this object and reads its layout.
#ifndef LDP_COMMON_WORKLOAD_STRATEGY_RANDOMIZERS_GROUPED_RANDOMIZER_H_
#define LDP_COMMON_WORKLOAD_STRATEGY_RANDOMIZERS_GROUPED_RANDOMIZER_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/random/bit_gen_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/workload/specs/strategy_spec.h"
#include "common/workload/strategy_randomizers/grouped_layout.h"
#include "common/workload/strategy_randomizers/strategy_randomizer.h"

namespace ldp {

class GroupedRandomizer final : public StrategyRandomizer {
 public:
  explicit GroupedRandomizer(std::shared_ptr<const grouped::Layout> layout)
      : layout_(std::move(layout)) {}

  std::string Describe() const override;
  uint32_t domain_size() const override { return layout_->n; }
  double epsilon() const override { return layout_->epsilon; }
  // Pr = π_g · Pr_inner[c_g(x)]: π_g cancels in every likelihood ratio, so
  // the implemented ε is the inner oracles'.
  WorkloadReport Randomize(uint32_t item, absl::BitGenRef gen) const override;
  double Probability(uint32_t item,
                     const WorkloadReport& report) const override;
  absl::Status Validate(const WorkloadReport& report) const override;

  const std::shared_ptr<const grouped::Layout>& layout() const {
    return layout_;
  }

 private:
  std::shared_ptr<const grouped::Layout> layout_;
};

// spec.kind ∈ {kIdentity, kHierarchical, kHaar, kFourier}; InvalidArgument
// as grouped::ValidateSpec says.
absl::StatusOr<std::shared_ptr<const GroupedRandomizer>>
CreateGroupedRandomizer(const StrategySpec& spec);

}  // namespace ldp

#endif  // LDP_COMMON_WORKLOAD_STRATEGY_RANDOMIZERS_GROUPED_RANDOMIZER_H_
