// Grouped strategies (grouped_strategy.h): identity, hierarchical b-ary
// trees, Haar wavelet (HaarHRR) and Fourier parities, on one machinery.
//
// Groups are organized in levels. An agent draws a level — uniformly
// (UniformBelow) or, for Fourier's level weights, by integer weights out of
// 2^32 — and then a group uniformly within the level, so every group
// probability π_g is exact and independent of the item. Every group of a
// level has the same size K and shares one inner frequency oracle: GRR for
// K < 3e^ε + 2 (lower variance at f = 0), else OUE. A report is (g, inner
// report), Pr = π_g · Pr_inner[c_g(x)]: π_g cancels in every likelihood
// ratio, so the strategy is ε-LDP with the inner oracles' implemented ε.
//
// A stacks each group's indicator rows (row i of group g = 1[c_g(x) = i]),
// then one all-ones row: the known total, whose "estimate" is exactly 1
// (zero variance). Giving that row a large least-squares weight makes the
// reconstruction honor Σh = 1, as the constrained inference of Hay et al.
// does with the known root; at ε = 1 it lowers prefix v_max by 1–4% for
// trees and slightly for the identity, and changes nothing for Haar. The
// server normalizes each group by its own report count. Per-user
// covariance of ŷ is then block-diagonal with block (1/π_g)·Cov_g(y_g),
// Cov_g the single-report covariance of the inner oracle's unbiased
// estimate at group distribution y_g = A_g·h (agents drawn iid from h):
//   GRR: (diag(P) − P·Pᵀ)/(p − q)²,  P_i = q + (p − q)·y_i;
//   OUE: diag(P_i(1 − P_i))/(p − q)² − (y·yᵀ − diag(y_i²)) — the bits are
//   independent given the item, but not across a mixture of items.
// Point-mass variances v_j(e_x) = Σ_g τ_{j,g}(c_g(x)) with τ computed once
// per (row, group), then summed over each item's tree nodes (contiguous
// blocks); the two-item groups of Haar and Fourier use randomized response
// whose point-mass variance does not depend on the bit, so there v_j(e_x)
// is the same for every x. Both avoid the O(b·N·#groups) generic sum.
#include "common/workload/grouped_strategy.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "Eigen/Core"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/coin.h"
#include "common/frequency_oracle.h"
#include "common/frequency_oracle_factory.h"
#include "common/generalized_randomized_response.h"
#include "common/unary_encoding.h"
#include "common/validation.h"
#include "common/walsh_hadamard.h"
#include "common/workload/report_count.h"
#include "common/workload/workload.h"

namespace ldp {
namespace {

// The inner oracles cap ε here (32-bit coins).
constexpr double kMaxEpsilon = 20;
// Workload bit limit (workload.h): N = 2^d ≤ 4096.
constexpr uint32_t kMaxBits = 12;
// Least-squares weight of the known-total row, relative to the information
// the group rows carry about the total (Σ_i w_i·y_i² at uniform y, i.e.
// 1ᵀAᵀΣA1/N²): 10^4 times as much honors Σh = 1 to about 4 digits while
// adding only a factor ~10^4 to AᵀΣA's condition number.
constexpr double kTotalRowWeight = 1e4;

enum class InnerKind { kGrr, kOue };

struct Level {
  double probability = 0;   // exact π of the level
  uint64_t cumulative = 0;  // weighted levels: Σ numerators up to this one
  uint32_t first_group = 0;
  uint32_t num_groups = 0;
  uint32_t group_size = 0;  // K
  uint64_t divisor = 1;     // hierarchical: c(x) = x / divisor
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
      default:
        return x;
    }
  }
};

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

absl::StatusOr<std::shared_ptr<const Layout>> BuildLayout(
    const StrategySpec& spec) {
  auto layout = std::make_shared<Layout>();
  layout->spec = spec;
  layout->n = spec.domain_size;
  layout->offset.push_back(0);
  const uint32_t n = spec.domain_size;
  switch (spec.kind) {
    case StrategyKind::kIdentity:
      if (absl::Status s = AddLevel(*layout, 1.0, 1, n); !s.ok()) return s;
      break;
    case StrategyKind::kHierarchical: {
      // Levels 1..h (the root is known); level ℓ's nodes span b^{h−ℓ} items.
      const uint64_t b = spec.branching;
      const uint32_t h = TreeHeight(n, b);
      for (uint32_t level = 1; level <= h; ++level) {
        uint64_t span = 1;
        for (uint32_t i = level; i < h; ++i) span *= b;
        const uint32_t nodes = static_cast<uint32_t>((n + span - 1) / span);
        if (absl::Status s = AddLevel(*layout, 1.0 / h, 1, nodes); !s.ok()) {
          return s;
        }
        layout->levels.back().divisor = span;
      }
      break;
    }
    case StrategyKind::kHaar: {
      const uint32_t bits = TreeHeight(n, 2);
      layout->haar_bits = bits;
      for (uint32_t level = 0; level < bits; ++level) {
        if (absl::Status s =
                AddLevel(*layout, 1.0 / bits, uint32_t{1} << level, 2);
            !s.ok()) {
          return s;
        }
        layout->levels.back().index = level;
      }
      break;
    }
    case StrategyKind::kFourier: {
      // Level i (parities of weight i) gets an integer share of 2^32
      // proportional to its weight, at least 1, so π is exact.
      const uint32_t d = spec.num_bits;
      double total = 0;
      for (double w : spec.level_weights) total += w;
      std::vector<uint64_t> numerators;
      uint64_t sum = 0;
      for (double w : spec.level_weights) {
        const double share = std::floor(
            w / total * static_cast<double>(CoinProbability::kDenominator));
        numerators.push_back(
            std::max<uint64_t>(1, static_cast<uint64_t>(share)));
        sum += numerators.back();
      }
      auto largest = std::max_element(numerators.begin(), numerators.end());
      if (sum > CoinProbability::kDenominator) {
        *largest -= sum - CoinProbability::kDenominator;
      } else {
        *largest += CoinProbability::kDenominator - sum;
      }
      layout->weighted = true;
      uint64_t cumulative = 0;
      for (uint32_t weight = 1; weight <= spec.order; ++weight) {
        const size_t before = layout->mask.size();
        AppendParityMasks(d, weight, layout->mask);
        const uint32_t groups =
            static_cast<uint32_t>(layout->mask.size() - before);
        const uint64_t numerator = numerators[weight - 1];
        if (absl::Status s =
                AddLevel(*layout,
                         static_cast<double>(numerator) /
                             static_cast<double>(CoinProbability::kDenominator),
                         groups, 2);
            !s.ok()) {
          return s;
        }
        cumulative += numerator;
        layout->levels.back().cumulative = cumulative;
      }
      break;
    }
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("grouped strategy: kind ", KindName(spec.kind),
                       " is not identity, hierarchical, haar or fourier"));
  }
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

// Exact binomial draws for the sufficient-statistic sampler (benchmarks).
int64_t Binomial(int64_t trials, double probability, absl::BitGenRef gen) {
  if (trials <= 0 || probability <= 0) return 0;
  if (probability >= 1) return trials;
  return std::binomial_distribution<int64_t>(trials, probability)(gen);
}

// Spreads `count` agents uniformly over `bins` bins: agent by agent when
// that is cheaper, else by sequential binomials. visit(bin, agents).
template <typename Visit>
void SpreadUniformly(int64_t count, uint32_t bins, absl::BitGenRef gen,
                     Visit visit) {
  if (count <= 0) return;
  if (bins == 1) {
    visit(0, count);
    return;
  }
  if (count < static_cast<int64_t>(bins)) {
    for (int64_t i = 0; i < count; ++i) {
      visit(static_cast<uint32_t>(UniformBelow(bins, gen)), 1);
    }
    return;
  }
  int64_t left = count;
  for (uint32_t bin = 0; bin < bins && left > 0; ++bin) {
    const int64_t here =
        bin + 1 == bins ? left : Binomial(left, 1.0 / (bins - bin), gen);
    if (here > 0) visit(bin, here);
    left -= here;
  }
}

class GroupedAccumulator : public StrategyAccumulator {
 public:
  explicit GroupedAccumulator(std::shared_ptr<const Layout> layout)
      : layout_(std::move(layout)) {
    groups_.reserve(layout_->num_groups());
    for (uint32_t g = 0; g < layout_->num_groups(); ++g) {
      groups_.push_back(
          layout_->levels[layout_->level_of[g]].oracle->NewAccumulator());
    }
  }

  absl::Status Add(const WorkloadReport& report) override {
    if (report.group >= groups_.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat(KindName(layout_->spec.kind), " strategy: report group ",
                       report.group, " is outside [0, ", groups_.size(), ")"));
    }
    if (absl::Status s = groups_[report.group]->Add(report.inner); !s.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(KindName(layout_->spec.kind), " strategy, group ",
                       report.group, ": ", s.message()));
    }
    ++num_reports_;
    return absl::OkStatus();
  }

  absl::Status Merge(const StrategyAccumulator& other) override {
    const auto* grouped = dynamic_cast<const GroupedAccumulator*>(&other);
    if (grouped == nullptr || !(grouped->layout_->spec == layout_->spec)) {
      return absl::InvalidArgumentError(
          absl::StrCat(KindName(layout_->spec.kind),
                       " strategy: can only merge an accumulator of the same "
                       "strategy (kind, epsilon, domain_size and parameters)"));
    }
    // Same spec, hence the same inner oracles: every inner merge succeeds.
    for (size_t g = 0; g < groups_.size(); ++g) {
      if (absl::Status s = groups_[g]->Merge(*grouped->groups_[g]); !s.ok()) {
        return absl::InternalError(absl::StrCat(
            "grouped strategy: inner merge failed: ", s.message()));
      }
    }
    num_reports_ += grouped->num_reports_;
    return absl::OkStatus();
  }

  int64_t num_reports() const override { return num_reports_; }

  Eigen::VectorXd Estimate() const override {
    Eigen::VectorXd y = Eigen::VectorXd::Zero(layout_->rows());
    for (uint32_t g = 0; g < groups_.size(); ++g) {
      if (groups_[g]->num_reports() == 0) continue;
      const HistogramEstimate estimate = groups_[g]->Estimate();
      for (size_t i = 0; i < estimate.frequencies.size(); ++i) {
        y[layout_->offset[g] + i] = estimate.frequencies[i];
      }
    }
    if (num_reports_ > 0) y[layout_->total_row()] = 1;
    return y;
  }

 private:
  std::shared_ptr<const Layout> layout_;
  std::vector<std::unique_ptr<FrequencyAccumulator>> groups_;
  int64_t num_reports_ = 0;
};

class GroupedStrategy : public StrategyMechanism {
 public:
  explicit GroupedStrategy(std::shared_ptr<const Layout> layout)
      : layout_(std::move(layout)) {}

  std::string Describe() const override {
    const Layout& l = *layout_;
    const StrategySpec& s = l.spec;
    std::string what;
    switch (s.kind) {
      case StrategyKind::kHierarchical:
        what = absl::StrCat("hierarchical b=", s.branching, " N=", l.n, " (",
                            l.levels.size(), " levels)");
        break;
      case StrategyKind::kHaar:
        what = absl::StrCat("haar N=", l.n, " (", l.haar_bits, " levels)");
        break;
      case StrategyKind::kFourier:
        what = absl::StrCat("fourier d=", s.num_bits, " k=", s.order, " (",
                            l.num_groups(), " parities)");
        break;
      default:
        what = absl::StrCat("identity N=", l.n);
        break;
    }
    int grr = 0, oue = 0;
    for (const Level& level : l.levels) {
      (level.inner == InnerKind::kGrr ? grr : oue) += 1;
    }
    const char* inner = oue == 0 ? "GRR" : grr == 0 ? "OUE" : "GRR+OUE";
    return absl::StrCat(what, ", ", inner, ", epsilon=", l.epsilon);
  }

  uint32_t domain_size() const override { return layout_->n; }
  double epsilon() const override { return layout_->epsilon; }

  WorkloadReport Randomize(uint32_t item, absl::BitGenRef gen) const override {
    const Layout& l = *layout_;
    const uint32_t x = std::min(item, l.n - 1);
    const uint32_t g = SampleGroup(l, gen);
    const Level& level = l.levels[l.level_of[g]];
    return WorkloadReport{
        .group = g, .inner = level.oracle->Randomize(l.ItemOf(g, x), gen)};
  }

  double Probability(uint32_t item,
                     const WorkloadReport& report) const override {
    if (!Validate(report).ok()) return 0;
    const Layout& l = *layout_;
    const uint32_t x = std::min(item, l.n - 1);
    const uint32_t g = report.group;
    return l.GroupProbability(g) * l.levels[l.level_of[g]].oracle->Probability(
                                       l.ItemOf(g, x), report.inner);
  }

  absl::Status Validate(const WorkloadReport& report) const override {
    const Layout& l = *layout_;
    if (report.group >= l.num_groups()) {
      return absl::InvalidArgumentError(
          absl::StrCat(KindName(l.spec.kind), " strategy: report group ",
                       report.group, " is outside [0, ", l.num_groups(), ")"));
    }
    const Level& level = l.levels[l.level_of[report.group]];
    if (absl::Status s = level.oracle->Validate(report.inner); !s.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(KindName(l.spec.kind), " strategy, group ", report.group,
                       ": ", s.message()));
    }
    return absl::OkStatus();
  }

  uint32_t output_dimension() const override { return layout_->rows(); }

  Eigen::MatrixXd StrategyMatrix() const override {
    const Layout& l = *layout_;
    Eigen::MatrixXd a = Eigen::MatrixXd::Zero(l.rows(), l.n);
    for (uint32_t g = 0; g < l.num_groups(); ++g) {
      for (uint32_t x = 0; x < l.n; ++x) a(l.offset[g] + l.ItemOf(g, x), x) = 1;
    }
    a.row(l.total_row()).setOnes();
    return a;
  }

  Eigen::VectorXd ReconstructionWeights() const override {
    const Layout& l = *layout_;
    const Eigen::VectorXd y =
        GroupDistributions(Eigen::VectorXd::Constant(l.n, 1.0 / l.n));
    Eigen::VectorXd weights(l.rows());
    weights[l.total_row()] = 0;
    for (uint32_t g = 0; g < l.num_groups(); ++g) {
      const Level& level = l.levels[l.level_of[g]];
      const double gap = level.p - level.q;
      for (uint32_t i = l.offset[g]; i < l.offset[g + 1]; ++i) {
        const double support = level.q + gap * y[i];
        weights[i] =
            l.GroupProbability(g) * gap * gap / (support * (1 - support));
      }
    }
    weights[l.total_row()] =
        kTotalRowWeight * (weights.head(l.total_row()).array() *
                           y.head(l.total_row()).array().square())
                              .sum();
    return weights;
  }

  std::unique_ptr<StrategyAccumulator> NewAccumulator() const override {
    return std::make_unique<GroupedAccumulator>(layout_);
  }

  Eigen::MatrixXd PointMassVariances(
      const Eigen::MatrixXd& rows) const override {
    return PointMassSum(rows);
  }

  Eigen::VectorXd Variances(const Eigen::MatrixXd& rows,
                            const Eigen::VectorXd& h) const override {
    return GroupVariances(rows, h, 0);
  }

  Eigen::VectorXd FiniteSampleVariances(const Eigen::MatrixXd& rows,
                                        const Eigen::VectorXd& h,
                                        int64_t n) const override {
    return GroupVariances(rows, h, n);
  }


  Eigen::VectorXd SampleEstimate(absl::Span<const int64_t> counts,
                                 absl::BitGenRef gen) const override {
    const Layout& l = *layout_;
    // Agents per (group, row): each agent's group is drawn independently
    // of its item — a multinomial over levels, then uniform within one.
    std::vector<int64_t> truth(l.rows(), 0);
    int64_t agents_total = 0;
    const uint32_t num_levels = static_cast<uint32_t>(l.levels.size());
    for (uint32_t x = 0; x < l.n && x < counts.size(); ++x) {
      int64_t left = counts[x];
      agents_total += left;
      double mass_left = 1;
      for (uint32_t li = 0; li < num_levels && left > 0; ++li) {
        const Level& level = l.levels[li];
        const int64_t here =
            li + 1 == num_levels
                ? left
                : Binomial(left, std::min(1.0, level.probability / mass_left),
                           gen);
        left -= here;
        mass_left -= level.probability;
        SpreadUniformly(here, level.num_groups, gen,
                        [&](uint32_t within, int64_t agents) {
                          const uint32_t g = level.first_group + within;
                          truth[l.offset[g] + l.ItemOf(g, x)] += agents;
                        });
      }
    }
    // The inner oracle's support counts, then the per-group estimate.
    Eigen::VectorXd y = Eigen::VectorXd::Zero(l.rows());
    if (agents_total > 0) y[l.total_row()] = 1;
    std::vector<int64_t> support;
    for (uint32_t g = 0; g < l.num_groups(); ++g) {
      const Level& level = l.levels[l.level_of[g]];
      const uint32_t k = level.group_size;
      const int64_t* t = truth.data() + l.offset[g];
      int64_t reports = 0;
      for (uint32_t i = 0; i < k; ++i) reports += t[i];
      if (reports == 0) continue;
      support.assign(k, 0);
      for (uint32_t i = 0; i < k; ++i) {
        if (level.inner == InnerKind::kOue) {
          support[i] = Binomial(t[i], level.p, gen) +
                       Binomial(reports - t[i], level.q, gen);
        } else if (t[i] > 0) {
          const int64_t kept = Binomial(t[i], level.p, gen);
          support[i] += kept;
          SpreadUniformly(t[i] - kept, k - 1, gen,
                          [&](uint32_t other, int64_t agents) {
                            support[other + (other >= i ? 1 : 0)] += agents;
                          });
        }
      }
      const double n = static_cast<double>(reports);
      for (uint32_t i = 0; i < k; ++i) {
        // The same expression as PureProtocol::Estimate.
        y[l.offset[g] + i] = (static_cast<double>(support[i]) / n - level.q) /
                             (level.p - level.q);
      }
    }
    return y;
  }

 private:
  // n = 0: the limit, each group's report count n_g replaced by n·π_g.
  // n > 0: n_g ~ Binomial(n, π_g); given n_g > 0 the group's estimate has
  // covariance Cov_g/n_g, so the factor 1/π_g becomes n·E[1/n_g; n_g > 0],
  // and an empty group (estimated as zeros) adds its bias
  // n·Pr[n_g = 0]·(r·y_g)². Two groups empty at once add their biases'
  // product, n·Pr[n_g = n_h = 0]·(r·y_g)(r·y_h), Pr = (1 − π_g − π_h)^n:
  // per level pair that is the product of the levels' summed biases, less
  // the g = h terms counted there. They matter when groups get a few
  // reports each (Haar N = 1024 at n = 1e4: the finest groups' biases
  // cancel within the level, and leaving these out overstated v_max by 10%).
  Eigen::VectorXd GroupVariances(const Eigen::MatrixXd& rows,
                                 const Eigen::VectorXd& h, int64_t n) const {
    const Layout& l = *layout_;
    const Eigen::VectorXd y = GroupDistributions(h);
    const Eigen::Index b = rows.rows();
    Eigen::VectorXd v = Eigen::VectorXd::Zero(b);
    Eigen::ArrayXd first(b), second(b), mean(b);
    // The groups of a level share π: one count distribution per level
    // (Haar has 1023 groups at N = 1024 but 10 levels).
    std::vector<ReportCountMoments> level_moments;
    // Per level: Σ_g r·y_g and Σ_g (r·y_g)² over its groups.
    std::vector<Eigen::ArrayXd> level_bias, level_bias_squares;
    if (n > 0) {
      for (const Level& level : l.levels) {
        level_moments.push_back(MomentsOfReportCount(
            n, level.probability / static_cast<double>(level.num_groups)));
        level_bias.push_back(Eigen::ArrayXd::Zero(b));
        level_bias_squares.push_back(Eigen::ArrayXd::Zero(b));
      }
    }
    for (uint32_t g = 0; g < l.num_groups(); ++g) {
      const Level& level = l.levels[l.level_of[g]];
      const double gap = level.p - level.q;
      const uint32_t k = level.group_size, o = l.offset[g];
      const double pi = l.GroupProbability(g);
      double inverse_pi = 1 / pi;
      if (n > 0) {
        const ReportCountMoments& moments = level_moments[l.level_of[g]];
        inverse_pi = static_cast<double>(n) * moments.inverse_mean;
        mean.setZero();
        for (uint32_t i = 0; i < k; ++i) mean += y[o + i] * rows.col(o + i).array();
        v += (static_cast<double>(n) * moments.empty) * mean.square().matrix();
        level_bias[l.level_of[g]] += mean;
        level_bias_squares[l.level_of[g]] += mean.square();
      }
      const double scale = inverse_pi / (gap * gap);
      if (level.inner == InnerKind::kOue) {
        // Bits are independent given the item, not across a mixture:
        // Cov = diag(P_i(1 − P_i))/(p − q)² − (y·yᵀ − diag(y_i²)).
        first.setZero();
        for (uint32_t i = 0; i < k; ++i) {
          const double share = y[o + i];
          const double support = level.q + gap * share;
          v += (scale * support * (1 - support) + inverse_pi * share * share) *
               rows.col(o + i).cwiseAbs2();
          first += share * rows.col(o + i).array();
        }
        v -= inverse_pi * first.square().matrix();
      } else if (k == 2) {
        // Σ r_i²P_i − (Σ r_i P_i)² = P_0·P_1·(r_0 − r_1)² when P_0 + P_1 = 1.
        const double support = level.q + gap * y[o];
        v += (scale * support * (1 - support)) *
             (rows.col(o) - rows.col(o + 1)).cwiseAbs2();
      } else {
        // rᵀ(diag(P) − P·Pᵀ)r.
        first.setZero();
        second.setZero();
        for (uint32_t i = 0; i < k; ++i) {
          const double support = level.q + gap * y[o + i];
          first += support * rows.col(o + i).array();
          second += support * rows.col(o + i).array().square();
        }
        v += (scale * (second - first.square())).matrix();
      }
    }
    for (size_t a = 0; a < level_bias.size(); ++a) {
      for (size_t c = 0; c < level_bias.size(); ++c) {
        const double both_empty =
            static_cast<double>(n) * BothEmpty(n, l.GroupProbability(l.levels[a].first_group) +
                                                      l.GroupProbability(l.levels[c].first_group));
        if (both_empty == 0) continue;
        v += (both_empty * level_bias[a] * level_bias[c]).matrix();
        if (a == c) v -= (both_empty * level_bias_squares[a]).matrix();
      }
    }
    return v;
  }

  // Pr[two given groups both get no report] = (1 − π_g − π_h)^n.
  static double BothEmpty(int64_t n, double pi_sum) {
    if (pi_sum >= 1) return 0;
    return std::exp(static_cast<double>(n) * std::log1p(-pi_sum));
  }

  // A·h: each group's distribution over its rows.
  Eigen::VectorXd GroupDistributions(const Eigen::VectorXd& h) const {
    const Layout& l = *layout_;
    Eigen::VectorXd y = Eigen::VectorXd::Zero(l.rows());
    for (uint32_t g = 0; g < l.num_groups(); ++g) {
      for (uint32_t x = 0; x < l.n; ++x)
        y[l.offset[g] + l.ItemOf(g, x)] += h[x];
    }
    y[l.total_row()] = h.sum();
    return y;
  }

  // Σ_g (1/π_g)·r_{j,g}ᵀ·Cov_g(e_{c_g(x)})·r_{j,g} for every (j, x).
  Eigen::MatrixXd PointMassSum(const Eigen::MatrixXd& rows) const {
    const Layout& l = *layout_;
    const Eigen::Index b = rows.rows();
    if (l.spec.kind == StrategyKind::kHaar ||
        l.spec.kind == StrategyKind::kFourier) {
      // Two-item groups are always GRR (2 < 3e^ε + 2) with p + q = 1, and
      // then rᵀ(diag(P) − P·Pᵀ)r = p·q·(r_0 − r_1)² whichever bit the item
      // has: the point-mass variance is the same for every x.
      Eigen::VectorXd v = Eigen::VectorXd::Zero(b);
      for (uint32_t g = 0; g < l.num_groups(); ++g) {
        const Level& level = l.levels[l.level_of[g]];
        const double gap = level.p - level.q;
        const double scale =
            level.p * level.q / (l.GroupProbability(g) * gap * gap);
        v += scale *
             (rows.col(l.offset[g]) - rows.col(l.offset[g] + 1)).cwiseAbs2();
      }
      return v.replicate(1, l.n);
    }
    // Identity and trees: T(j, offset_g + t) = the contribution of group g
    // when c_g(x) = t, then Σ_g over each item's nodes.
    const Eigen::MatrixXd terms = PointMassTerms(rows);
    if (l.spec.kind == StrategyKind::kIdentity) return terms.leftCols(l.n);
    Eigen::MatrixXd out = Eigen::MatrixXd::Zero(b, l.n);
    for (uint32_t g = 0; g < l.num_groups(); ++g) {
      // Node t of a level covers the contiguous items [t·span, (t+1)·span).
      const Level& level = l.levels[l.level_of[g]];
      for (uint32_t t = 0; t < level.group_size; ++t) {
        const uint64_t first = t * level.divisor;
        const uint64_t last = std::min<uint64_t>(first + level.divisor, l.n);
        out.middleCols(first, last - first).colwise() +=
            terms.col(l.offset[g] + t);
      }
    }
    return out;
  }

  // T (b×k): T(j, offset_g + t) = (1/π_g)·r_{j,g}ᵀ·Cov_g(e_t)·r_{j,g}, the
  // contribution of group g to v_j(e_x) for any x with c_g(x) = t. The
  // known total adds nothing.
  Eigen::MatrixXd PointMassTerms(const Eigen::MatrixXd& rows) const {
    const Layout& l = *layout_;
    const Eigen::Index b = rows.rows();
    Eigen::MatrixXd terms(b, l.rows());
    terms.col(l.total_row()).setZero();
    Eigen::ArrayXd s1(b), s2(b);
    for (uint32_t g = 0; g < l.num_groups(); ++g) {
      const Level& level = l.levels[l.level_of[g]];
      const double p = level.p, q = level.q, gap = p - q;
      const uint32_t k = level.group_size, o = l.offset[g];
      const double scale = 1 / (l.GroupProbability(g) * gap * gap);
      s1.setZero();
      s2.setZero();
      for (uint32_t t = 0; t < k; ++t) {
        s1 += rows.col(o + t).array();
        s2 += rows.col(o + t).array().square();
      }
      for (uint32_t t = 0; t < k; ++t) {
        const auto r = rows.col(o + t).array();
        if (level.inner == InnerKind::kOue) {
          // σ_q²‖r‖² + (σ_p² − σ_q²)·r_t², in units of 1/(p − q)².
          terms.col(o + t).array() =
              scale *
              (q * (1 - q) * s2 + (p * (1 - p) - q * (1 - q)) * r.square());
        } else {
          // rᵀ(diag(P) − P·Pᵀ)r with P = q·1 + (p − q)·e_t.
          terms.col(o + t).array() =
              scale * (q * s2 + gap * r.square() - (q * s1 + gap * r).square());
        }
      }
    }
    return terms;
  }

  std::shared_ptr<const Layout> layout_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<StrategyMechanism>> CreateGroupedStrategy(
    const StrategySpec& spec) {
  if (absl::Status s = ValidateSpec(spec); !s.ok()) return s;
  absl::StatusOr<std::shared_ptr<const Layout>> layout = BuildLayout(spec);
  if (!layout.ok()) return layout.status();
  return std::unique_ptr<StrategyMechanism>(
      new GroupedStrategy(*std::move(layout)));
}

}  // namespace ldp
