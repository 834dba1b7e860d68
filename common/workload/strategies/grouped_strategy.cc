// Grouped strategies (grouped_strategy.h): identity, hierarchical b-ary
// trees, Haar wavelet (HaarHRR) and Fourier parities, on one machinery.
//
// The layout (grouped_layout.h) fixes the levels, groups and inner oracles;
// the randomizer (grouped_randomizer.h) draws and checks reports, and this
// file adds the linear structure the server estimates with.
//
// A stacks each group's indicator rows (row i of group g = 1[c_g(x) = i]),
// then one all-ones row: the known total, whose "estimate" is exactly 1
// (zero variance). Giving that row a large least-squares weight makes the
// reconstruction honor Σh = 1, as the constrained inference of Hay et al.
// does with the known root; at ε = 1 it lowers prefix v_max by 1–4% for
// trees and slightly for the identity, and changes nothing for Haar. The
// variances are in grouped_variance.h.
#include "common/workload/strategies/grouped_strategy.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "Eigen/Core"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/base/coin.h"
#include "common/base/status_macros.h"
#include "common/mechanisms/frequency/frequency_oracle.h"
#include "common/workload/strategies/binomial_draw.h"
#include "common/workload/strategies/grouped_variance.h"
#include "common/workload/strategy_randomizers/grouped_layout.h"
#include "common/workload/strategy_randomizers/grouped_randomizer.h"

namespace ldp {
namespace {

using grouped::InnerKind;
using grouped::KindName;
using grouped::Layout;
using grouped::Level;

// Least-squares weight of the known-total row, relative to the information
// the group rows carry about the total (Σ_i w_i·y_i² at uniform y, i.e.
// 1ᵀAᵀΣA1/N²): 10^4 times as much honors Σh = 1 to about 4 digits while
// adding only a factor ~10^4 to AᵀΣA's condition number.
constexpr double kTotalRowWeight = 1e4;

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
        bin + 1 == bins ? left : DrawBinomial(left, 1.0 / (bins - bin), gen);
    if (here > 0) visit(bin, here);
    left -= here;
  }
}

class GroupedAccumulator : public StrategyAccumulator {
 public:
  explicit GroupedAccumulator(
      std::shared_ptr<const GroupedRandomizer> randomizer)
      : randomizer_(std::move(randomizer)), layout_(randomizer_->layout()) {
    groups_.reserve(layout_->num_groups());
    for (uint32_t g = 0; g < layout_->num_groups(); ++g) {
      groups_.push_back(
          layout_->levels[layout_->level_of[g]].oracle->NewAccumulator());
    }
  }

  absl::Status Add(const WorkloadReport& report) override {
    if (absl::Status s = randomizer_->Validate(report); !s.ok()) return s;
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

  // parts: each group's inner accumulator state, in group order (their
  // num_reports sum to num_reports); no counts or reals of its own.
  AccumulatorState State() const override {
    AccumulatorState state{.num_reports = num_reports_};
    state.parts.reserve(groups_.size());
    for (const auto& group : groups_) state.parts.push_back(group->State());
    return state;
  }

  absl::Status MergeState(const AccumulatorState& state) override {
    const std::string name =
        absl::StrCat(KindName(layout_->spec.kind), " strategy");
    RETURN_IF_ERROR(ValidateStateShape(state, name, {.parts = groups_.size()},
                                       num_reports_));
    // Each part goes into an empty accumulator of its group's oracle first,
    // which checks it: a bad part must leave every group unchanged.
    std::vector<std::unique_ptr<FrequencyAccumulator>> staged;
    std::vector<int64_t> group_reports;
    for (uint32_t g = 0; g < groups_.size(); ++g) {
      staged.push_back(
          layout_->levels[layout_->level_of[g]].oracle->NewAccumulator());
      if (absl::Status s = staged.back()->MergeState(state.parts[g]); !s.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat(name, " state, group ", g, ": ", s.message()));
      }
      group_reports.push_back(state.parts[g].num_reports);
    }
    RETURN_IF_ERROR(ValidateStateSum(group_reports, name, "groups' num_reports",
                                     state.num_reports));
    for (size_t g = 0; g < groups_.size(); ++g) {
      if (absl::Status s = groups_[g]->Merge(*staged[g]); !s.ok()) {
        return absl::InternalError(absl::StrCat(
            "grouped strategy: inner merge failed: ", s.message()));
      }
    }
    num_reports_ += state.num_reports;
    return absl::OkStatus();
  }

 private:
  std::shared_ptr<const GroupedRandomizer> randomizer_;
  std::shared_ptr<const Layout> layout_;
  std::vector<std::unique_ptr<FrequencyAccumulator>> groups_;
  int64_t num_reports_ = 0;
};

class GroupedStrategy : public StrategyMechanism {
 public:
  explicit GroupedStrategy(std::shared_ptr<const GroupedRandomizer> randomizer)
      : StrategyMechanism(randomizer),
        randomizer_(std::move(randomizer)),
        layout_(randomizer_->layout()) {}

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
    const Eigen::VectorXd y = grouped::GroupDistributions(
        l, Eigen::VectorXd::Constant(l.n, 1.0 / l.n));
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
    return std::make_unique<GroupedAccumulator>(randomizer_);
  }

  Eigen::MatrixXd PointMassVariances(
      const Eigen::MatrixXd& rows) const override {
    return grouped::PointMassSum(*layout_, rows);
  }

  Eigen::VectorXd Variances(const Eigen::MatrixXd& rows,
                            const Eigen::VectorXd& h) const override {
    return grouped::GroupVariances(*layout_, rows, h, 0);
  }

  Eigen::VectorXd FiniteSampleVariances(const Eigen::MatrixXd& rows,
                                        const Eigen::VectorXd& h,
                                        int64_t n) const override {
    return grouped::GroupVariances(*layout_, rows, h, n);
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
                : DrawBinomial(
                      left, std::min(1.0, level.probability / mass_left), gen);
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
          support[i] = DrawBinomial(t[i], level.p, gen) +
                       DrawBinomial(reports - t[i], level.q, gen);
        } else if (t[i] > 0) {
          const int64_t kept = DrawBinomial(t[i], level.p, gen);
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
  std::shared_ptr<const GroupedRandomizer> randomizer_;
  std::shared_ptr<const Layout> layout_;
};

}  // namespace

std::unique_ptr<StrategyMechanism> GroupedStrategyFor(
    std::shared_ptr<const GroupedRandomizer> randomizer) {
  return std::make_unique<GroupedStrategy>(std::move(randomizer));
}

absl::StatusOr<std::unique_ptr<StrategyMechanism>> CreateGroupedStrategy(
    const StrategySpec& spec) {
  absl::StatusOr<std::shared_ptr<const GroupedRandomizer>> randomizer =
      CreateGroupedRandomizer(spec);
  if (!randomizer.ok()) return randomizer.status();
  return GroupedStrategyFor(*std::move(randomizer));
}

}  // namespace ldp
