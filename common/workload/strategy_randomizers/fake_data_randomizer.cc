// RS+FD[GRR]'s agent half (fake_data_randomizer.h): the draw, the exact
// probability of a reported tuple and both privacy figures.
#include "common/workload/strategy_randomizers/fake_data_randomizer.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/base/coin.h"
#include "common/workload/strategy_randomizers/strategy_shape.h"

namespace ldp {
namespace {

// Σ_j k_j·p_j and Σ_j k_j·q_j: the tuple probabilities (up to the common
// factor (1/d)·Π 1/k_i) of a report that matches the record in every
// attribute, and in none.
struct MatchSums {
  double all = 0;
  double none = 0;
};

MatchSums Sums(
    const std::vector<uint32_t>& sizes,
    const std::vector<std::unique_ptr<GeneralizedRandomizedResponse>>& grr) {
  MatchSums s;
  for (size_t j = 0; j < sizes.size(); ++j) {
    s.all += sizes[j] * grr[j]->keep_probability();
    s.none += sizes[j] * grr[j]->other_probability();
  }
  return s;
}

}  // namespace

FakeDataRandomizer::FakeDataRandomizer(
    StrategySpec spec,
    std::vector<std::unique_ptr<GeneralizedRandomizedResponse>> grr)
    : spec_(std::move(spec)), grr_(std::move(grr)) {
  const std::vector<uint32_t>& sizes = spec_.attribute_sizes;
  place_.assign(sizes.size(), 1);
  for (size_t j = sizes.size() - 1; j-- > 0;) {
    place_[j] = place_[j + 1] * sizes[j + 1];
  }
  const MatchSums s = Sums(sizes, grr_);
  // A weighted mean of ratios never exceeds the largest: capping by the
  // GRRs' own ε keeps rounding from stating more than they implement.
  double largest = 0;
  for (const auto& g : grr_) largest = std::max(largest, g->epsilon());
  epsilon_ = std::min(std::log(s.all / s.none), largest);
  for (size_t j = 0; j < sizes.size(); ++j) {
    const double changed =
        sizes[j] * (grr_[j]->keep_probability() - grr_[j]->other_probability());
    attribute_epsilon_ =
        std::max(attribute_epsilon_, std::log((s.none + changed) / s.none));
  }
}

std::string FakeDataRandomizer::Describe() const {
  return absl::StrCat("sampling_fake_data d=", num_attributes(), " (",
                      absl::StrJoin(spec_.attribute_sizes, "×"),
                      "), GRR, epsilon=", epsilon_, " (per attribute ",
                      attribute_epsilon_, ")");
}

WorkloadReport FakeDataRandomizer::Randomize(uint32_t item,
                                             absl::BitGenRef gen) const {
  const uint32_t x = std::min(item, spec_.domain_size - 1);
  const auto j = static_cast<uint32_t>(UniformBelow(num_attributes(), gen));
  const uint32_t real =
      std::get<ItemReport>(grr_[j]->Randomize(Digit(x, j), gen)).item;
  uint32_t y = 0;
  for (uint32_t i = 0; i < num_attributes(); ++i) {
    // Every attribute's fake value is drawn, the sampled one's too, so the
    // draws do not depend on j.
    const auto fake =
        static_cast<uint32_t>(UniformBelow(spec_.attribute_sizes[i], gen));
    y += place_[i] * (i == j ? real : fake);
  }
  return WorkloadReport{.group = 0, .inner = ItemReport{y}};
}

double FakeDataRandomizer::Probability(uint32_t item,
                                       const WorkloadReport& report) const {
  if (!Validate(report).ok()) return 0;
  const uint32_t x = std::min(item, spec_.domain_size - 1);
  const uint32_t y = std::get<ItemReport>(report.inner).item;
  // (1/d)·Σ_j Pr[GRR_j(x_j) = y_j]·Π_{i≠j} 1/k_i.
  double sum = 0;
  for (uint32_t j = 0; j < num_attributes(); ++j) {
    sum += spec_.attribute_sizes[j] *
           grr_[j]->Probability(Digit(x, j), ItemReport{Digit(y, j)});
  }
  return sum / num_attributes() / spec_.domain_size;
}

absl::Status FakeDataRandomizer::Validate(const WorkloadReport& report) const {
  const auto* item = std::get_if<ItemReport>(&report.inner);
  if (report.group != 0 || item == nullptr) {
    return absl::InvalidArgumentError(
        "sampling_fake_data strategy: a report is group 0 with one item");
  }
  if (item->item >= spec_.domain_size) {
    return absl::InvalidArgumentError(
        absl::StrCat("sampling_fake_data strategy: report item ", item->item,
                     " is outside [0, ", spec_.domain_size, ")"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<const FakeDataRandomizer>>
CreateFakeDataRandomizer(const StrategySpec& spec) {
  if (absl::Status s = CheckAttributeSizes(spec, "sampling_fake_data strategy");
      !s.ok()) {
    return s;
  }
  std::vector<std::unique_ptr<GeneralizedRandomizedResponse>> grr;
  for (uint32_t k : spec.attribute_sizes) {
    absl::StatusOr<std::unique_ptr<GeneralizedRandomizedResponse>> g =
        GeneralizedRandomizedResponse::Create(
            {.epsilon = spec.epsilon, .domain_size = k});
    if (!g.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("sampling_fake_data strategy: ", g.status().message()));
    }
    grr.push_back(*std::move(g));
  }
  StrategySpec kept = spec;
  kept.matrix.clear();
  return std::make_shared<const FakeDataRandomizer>(std::move(kept),
                                                    std::move(grr));
}

}  // namespace ldp
