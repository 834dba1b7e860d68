// The layout of a grouped strategy (grouped_strategy.h): its levels and
// groups, the inner frequency oracle of each level, which row of a group an
// item falls in, and how an agent draws its group. Plain types, no Eigen:
// the agent's randomizer (grouped_randomizer.h) draws through it, and the
// server's strategy and variance algebra (grouped_strategy.h,
// grouped_variance.h) read the same layout; other code goes through
// CreateStrategyRandomizer or CreateGroupedStrategy.
//
// Groups are organized in levels. An agent draws a level — uniformly
// (UniformBelow) or, for Fourier's level weights, by integer weights out of
// 2^32 — and then a group uniformly within the level, so every group
// probability π_g is exact and independent of the item. Every group of a
// level has the same size K and shares one inner frequency oracle: GRR for
// K < 3e^ε + 2 (lower variance at f = 0), else OUE.
#ifndef LDP_COMMON_WORKLOAD_STRATEGY_RANDOMIZERS_GROUPED_LAYOUT_H_
#define LDP_COMMON_WORKLOAD_STRATEGY_RANDOMIZERS_GROUPED_LAYOUT_H_

#include <bit>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/random/bit_gen_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/mechanisms/frequency/frequency_oracle.h"
#include "common/mechanisms/frequency/walsh_hadamard.h"
#include "common/workload/specs/strategy_spec.h"

namespace ldp::grouped {

enum class InnerKind { kGrr, kOue };

struct Level {
  double probability = 0;   // exact π of the level
  uint64_t cumulative = 0;  // weighted levels: Σ numerators up to this one
  uint32_t first_group = 0;
  uint32_t num_groups = 0;
  uint32_t group_size = 0;  // K
  uint64_t divisor = 1;     // hierarchical: c(x) = x / divisor; attribute
                            // sampling: c(x) = (x / divisor) mod K
  uint32_t index = 0;       // haar: the detail level ℓ
  InnerKind inner = InnerKind::kGrr;
  std::shared_ptr<const FrequencyOracle> oracle;
  double p = 0;  // inner Pr[support own item]
  double q = 0;  // inner Pr[support another item]
};

struct Layout {
  StrategySpec spec;
  uint32_t n = 0;          // N
  uint32_t haar_bits = 0;  // L (haar)
  bool weighted = false;   // levels drawn by integer weights
  std::vector<Level> levels;
  std::vector<uint32_t> level_of;  // per group
  std::vector<uint32_t> offset;    // per group, its first row of A; +1 entry
  std::vector<uint32_t> mask;      // fourier: parity mask over x, per group
  double epsilon = 0;

  uint32_t num_groups() const { return static_cast<uint32_t>(level_of.size()); }
  // The known-total row comes after every group's rows.
  uint32_t total_row() const { return offset.back(); }
  uint32_t rows() const { return offset.back() + 1; }
  double GroupProbability(uint32_t g) const {
    const Level& level = levels[level_of[g]];
    return level.probability / level.num_groups;
  }

  // c_g(x): which row of group g item x falls in.
  uint32_t ItemOf(uint32_t g, uint32_t x) const {
    const Level& level = levels[level_of[g]];
    switch (spec.kind) {
      case StrategyKind::kHierarchical:
        return static_cast<uint32_t>(x / level.divisor);
      case StrategyKind::kHaar: {
        const uint32_t shift = haar_bits - level.index;
        const uint32_t coefficient = x >> shift;
        const uint32_t bit = (x >> (shift - 1)) & 1;
        const uint32_t row = g - level.first_group;
        return bit ^ (HadamardEntryIsNegative(row, coefficient) ? 1u : 0u);
      }
      case StrategyKind::kFourier:
        return static_cast<uint32_t>(std::popcount(x & mask[g]) & 1);
      case StrategyKind::kAttributeSampling:
        return static_cast<uint32_t>((x / level.divisor) % level.group_size);
      default:
        return x;
    }
  }
};

// The kind's display name, for messages.
std::string KindName(StrategyKind kind);

// InvalidArgument (naming the field) for a spec no grouped strategy takes:
// ε outside (0, 20], N outside [2, kMaxWorkloadDomainSize], b < 2, a
// Fourier d outside [1, 12], N ≠ 2^d, k outside [1, d] or weights that are
// not k finite positive numbers; attribute sizes CheckAttributeSizes
// refuses (strategy_shape.h).
absl::Status ValidateSpec(const StrategySpec& spec);

// The levels, groups and inner oracles of a validated spec of kind
// identity, hierarchical, haar, fourier or attribute sampling.
absl::StatusOr<std::shared_ptr<const Layout>> BuildLayout(
    const StrategySpec& spec);

// Draws the group: the level first (data-independent), then uniformly
// within it.
uint32_t SampleGroup(const Layout& layout, absl::BitGenRef gen);

}  // namespace ldp::grouped

#endif  // LDP_COMMON_WORKLOAD_STRATEGY_RANDOMIZERS_GROUPED_LAYOUT_H_
