// The layout of a grouped strategy: levels, groups and inner oracles
// (grouped_layout.h).
#include "common/workload/strategy_randomizers/grouped_layout.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/base/coin.h"
#include "common/base/validation.h"
#include "common/mechanisms/frequency/frequency_oracle.h"
#include "common/mechanisms/frequency/generalized_randomized_response.h"
#include "common/mechanisms/frequency/unary_encoding.h"
#include "common/mechanisms/frequency_oracle_factory.h"
#include "common/workload/specs/workload_spec.h"  // kMaxWorkloadDomainSize
#include "common/workload/strategy_randomizers/strategy_shape.h"

namespace ldp::grouped {
namespace {

// The inner oracles cap ε here (32-bit coins).
constexpr double kMaxEpsilon = 20;
// Workload bit limit (workload.h): N = 2^d ≤ 4096.
constexpr uint32_t kMaxBits = 12;

// Appends one level of `num_groups` groups of `group_size` rows with its
// inner oracle.
absl::Status AddLevel(Layout& layout, double probability, uint32_t num_groups,
                      uint32_t group_size) {
  Level level;
  level.probability = probability;
  level.first_group = layout.num_groups();
  level.num_groups = num_groups;
  level.group_size = group_size;
  const double grr_limit = 3 * std::exp(layout.spec.epsilon) + 2;
  level.inner = group_size < grr_limit ? InnerKind::kGrr : InnerKind::kOue;
  FrequencyOracleSpec oracle_spec;
  oracle_spec.kind = level.inner == InnerKind::kGrr
                         ? FrequencyOracleKind::kGeneralizedRandomizedResponse
                         : FrequencyOracleKind::kOptimizedUnaryEncoding;
  oracle_spec.epsilon = layout.spec.epsilon;
  oracle_spec.domain_size = group_size;
  absl::StatusOr<std::unique_ptr<FrequencyOracle>> oracle =
      CreateFrequencyOracle(oracle_spec);
  if (!oracle.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(KindName(layout.spec.kind),
                     " strategy: cannot build the inner oracle for groups of ",
                     group_size, " items: ", oracle.status().message()));
  }
  if (const auto* grr =
          dynamic_cast<const GeneralizedRandomizedResponse*>(oracle->get())) {
    level.p = grr->keep_probability();
    level.q = grr->other_probability();
  } else if (const auto* oue =
                 dynamic_cast<const UnaryEncoding*>(oracle->get())) {
    level.p = oue->p();
    level.q = oue->q();
  } else {
    return absl::InternalError("grouped strategy: unexpected inner oracle");
  }
  layout.epsilon = std::max(layout.epsilon, (*oracle)->epsilon());
  level.oracle = std::shared_ptr<const FrequencyOracle>(std::move(*oracle));
  const uint32_t level_index = static_cast<uint32_t>(layout.levels.size());
  for (uint32_t i = 0; i < num_groups; ++i) {
    layout.level_of.push_back(level_index);
    layout.offset.push_back(layout.offset.back() + group_size);
  }
  layout.levels.push_back(std::move(level));
  return absl::OkStatus();
}

// Smallest h with b^h ≥ n.
uint32_t TreeHeight(uint64_t n, uint64_t b) {
  uint32_t h = 0;
  for (uint64_t span = 1; span < n; span *= b) ++h;
  return h;
}

// All subsets of {0..d−1} of size `size` in lexicographic order, as masks
// over x (record bit i is bit d−1−i of x, workload.h).
void AppendParityMasks(uint32_t d, uint32_t size, std::vector<uint32_t>& out) {
  std::vector<uint32_t> pick(size);
  for (uint32_t i = 0; i < size; ++i) pick[i] = i;
  while (true) {
    uint32_t mask = 0;
    for (uint32_t bit : pick) mask |= uint32_t{1} << (d - 1 - bit);
    out.push_back(mask);
    int i = static_cast<int>(size) - 1;
    while (i >= 0 && pick[i] == d - size + static_cast<uint32_t>(i)) --i;
    if (i < 0) return;
    ++pick[i];
    for (uint32_t j = static_cast<uint32_t>(i) + 1; j < size; ++j) {
      pick[j] = pick[j - 1] + 1;
    }
  }
}

// Levels 1..h (the root is known); level ℓ's nodes span b^{h−ℓ} items.
absl::Status AddTreeLevels(Layout& layout) {
  const uint32_t n = layout.spec.domain_size;
  const uint64_t b = layout.spec.branching;
  const uint32_t h = TreeHeight(n, b);
  for (uint32_t level = 1; level <= h; ++level) {
    uint64_t span = 1;
    for (uint32_t i = level; i < h; ++i) span *= b;
    const uint32_t nodes = static_cast<uint32_t>((n + span - 1) / span);
    if (absl::Status s = AddLevel(layout, 1.0 / h, 1, nodes); !s.ok()) {
      return s;
    }
    layout.levels.back().divisor = span;
  }
  return absl::OkStatus();
}

absl::Status AddHaarLevels(Layout& layout) {
  const uint32_t bits = TreeHeight(layout.spec.domain_size, 2);
  layout.haar_bits = bits;
  for (uint32_t level = 0; level < bits; ++level) {
    if (absl::Status s = AddLevel(layout, 1.0 / bits, uint32_t{1} << level, 2);
        !s.ok()) {
      return s;
    }
    layout.levels.back().index = level;
  }
  return absl::OkStatus();
}

// Level i (parities of weight i) gets an integer share of 2^32
// proportional to its weight, at least 1, so π is exact.
absl::Status AddFourierLevels(Layout& layout) {
  const StrategySpec& spec = layout.spec;
  const uint32_t d = spec.num_bits;
  double total = 0;
  for (double w : spec.level_weights) total += w;
  std::vector<uint64_t> numerators;
  uint64_t sum = 0;
  for (double w : spec.level_weights) {
    const double share = std::floor(
        w / total * static_cast<double>(CoinProbability::kDenominator));
    numerators.push_back(std::max<uint64_t>(1, static_cast<uint64_t>(share)));
    sum += numerators.back();
  }
  auto largest = std::max_element(numerators.begin(), numerators.end());
  if (sum > CoinProbability::kDenominator) {
    *largest -= sum - CoinProbability::kDenominator;
  } else {
    *largest += CoinProbability::kDenominator - sum;
  }
  layout.weighted = true;
  uint64_t cumulative = 0;
  for (uint32_t weight = 1; weight <= spec.order; ++weight) {
    const size_t before = layout.mask.size();
    AppendParityMasks(d, weight, layout.mask);
    const uint32_t groups = static_cast<uint32_t>(layout.mask.size() - before);
    const uint64_t numerator = numerators[weight - 1];
    if (absl::Status s =
            AddLevel(layout,
                     static_cast<double>(numerator) /
                         static_cast<double>(CoinProbability::kDenominator),
                     groups, 2);
        !s.ok()) {
      return s;
    }
    cumulative += numerator;
    layout.levels.back().cumulative = cumulative;
  }
  return absl::OkStatus();
}

// One level per attribute, each drawn with probability 1/d: attribute j's
// value is the j-th mixed-radix digit, the first attribute most significant.
absl::Status AddAttributeLevels(Layout& layout) {
  const std::vector<uint32_t>& sizes = layout.spec.attribute_sizes;
  uint64_t place = layout.spec.domain_size;
  for (uint32_t k : sizes) {
    place /= k;
    if (absl::Status s =
            AddLevel(layout, 1.0 / static_cast<double>(sizes.size()), 1, k);
        !s.ok()) {
      return s;
    }
    layout.levels.back().divisor = place;
  }
  return absl::OkStatus();
}

}  // namespace

std::string KindName(StrategyKind kind) {
  return std::string(StrategyKindName(kind));
}

absl::Status ValidateSpec(const StrategySpec& spec) {
  const std::string kind = KindName(spec.kind) + " strategy";
  if (absl::Status s = ValidateEpsilon(kind, spec.epsilon, kMaxEpsilon);
      !s.ok()) {
    return s;
  }
  if (absl::Status s =
          ValidateDomainSize(kind, spec.domain_size, 2, kMaxWorkloadDomainSize);
      !s.ok()) {
    return s;
  }
  if (spec.kind == StrategyKind::kHierarchical && spec.branching < 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "hierarchical strategy: branching must be at least 2, got ",
        spec.branching));
  }
  if (spec.kind == StrategyKind::kAttributeSampling) {
    return CheckAttributeSizes(spec, kind);
  }
  if (spec.kind == StrategyKind::kFourier) {
    if (spec.num_bits < 1 || spec.num_bits > kMaxBits) {
      return absl::InvalidArgumentError(
          absl::StrCat("fourier strategy: num_bits must be in [1, ", kMaxBits,
                       "], got ", spec.num_bits));
    }
    if (spec.domain_size != (uint32_t{1} << spec.num_bits)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "fourier strategy: domain_size must be 2^num_bits = ",
          uint32_t{1} << spec.num_bits, ", got ", spec.domain_size));
    }
    if (spec.order < 1 || spec.order > spec.num_bits) {
      return absl::InvalidArgumentError(absl::StrCat(
          "fourier strategy: order must be in [1, num_bits = ", spec.num_bits,
          "], got ", spec.order));
    }
    if (spec.level_weights.size() != spec.order) {
      return absl::InvalidArgumentError(absl::StrCat(
          "fourier strategy: level_weights must have order = ", spec.order,
          " entries, got ", spec.level_weights.size()));
    }
    for (size_t i = 0; i < spec.level_weights.size(); ++i) {
      const double w = spec.level_weights[i];
      if (!(std::isfinite(w) && w > 0)) {
        return absl::InvalidArgumentError(
            absl::StrCat("fourier strategy: level_weights[", i,
                         "] must be finite and positive, got ", w));
      }
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<const Layout>> BuildLayout(
    const StrategySpec& spec) {
  auto layout = std::make_shared<Layout>();
  layout->spec = spec;
  layout->n = spec.domain_size;
  layout->offset.push_back(0);
  absl::Status added;
  switch (spec.kind) {
    case StrategyKind::kIdentity:
      added = AddLevel(*layout, 1.0, 1, spec.domain_size);
      break;
    case StrategyKind::kHierarchical:
      added = AddTreeLevels(*layout);
      break;
    case StrategyKind::kHaar:
      added = AddHaarLevels(*layout);
      break;
    case StrategyKind::kFourier:
      added = AddFourierLevels(*layout);
      break;
    case StrategyKind::kAttributeSampling:
      added = AddAttributeLevels(*layout);
      break;
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("grouped strategy: kind ", KindName(spec.kind),
                       " is not identity, hierarchical, haar, fourier or "
                       "attribute sampling"));
  }
  if (!added.ok()) return added;
  return std::shared_ptr<const Layout>(std::move(layout));
}

// Draws the group: the level first (data-independent), then uniformly
// within it.
uint32_t SampleGroup(const Layout& layout, absl::BitGenRef gen) {
  uint32_t level = 0;
  const uint32_t num_levels = static_cast<uint32_t>(layout.levels.size());
  if (layout.weighted) {
    const uint64_t u = UniformBelow(CoinProbability::kDenominator, gen);
    while (level + 1 < num_levels && u >= layout.levels[level].cumulative) {
      ++level;
    }
  } else if (num_levels > 1) {
    level = static_cast<uint32_t>(UniformBelow(num_levels, gen));
  }
  const Level& chosen = layout.levels[level];
  const uint32_t within =
      chosen.num_groups > 1
          ? static_cast<uint32_t>(UniformBelow(chosen.num_groups, gen))
          : 0;
  return chosen.first_group + within;
}

}  // namespace ldp::grouped
