// Hadamard response client, exact likelihoods and FWHT decoder, for any
// number of rows per item; see hadamard_response.h.
#include "common/mechanisms/frequency/hadamard_response.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <variant>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/base/validation.h"
#include "common/mechanisms/frequency/walsh_hadamard.h"

namespace ldp {
namespace {

// ln(p / (1 − p)) + ln(2^t − 1) for p = k / 2^32: the privacy loss of
// reporting into C_v (probability p over K/2^t columns) rather than out of
// it (1 − p over K − K/2^t).
double SetLogOdds(uint64_t k, uint32_t rows_per_item) {
  return std::log(static_cast<double>(k)) -
         std::log(static_cast<double>(CoinProbability::kDenominator - k)) +
         std::log(std::exp2(rows_per_item) - 1);
}

absl::StatusOr<HadamardResponse::Params> MakeParams(
    const HadamardResponseOptions& options,
    const HadamardSubspaces& subspaces) {
  const uint32_t t = options.rows_per_item;
  // Round p down (then step down past any floating-point doubt) so that the
  // loss stays within ε: ε is never exceeded.
  const double e = std::exp(options.epsilon);
  uint64_t k =
      CoinProbability::RoundDown(e / (e + std::exp2(t) - 1)).numerator();
  while (k > 0 && SetLogOdds(k, t) > options.epsilon) --k;
  if (k == 0 || SetLogOdds(k, t) <= 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Hadamard response: epsilon ", options.epsilon,
        " is below the resolution of 32-bit coins; use epsilon >= 1e-6"));
  }
  HadamardResponse::Params params;
  params.domain_size = options.domain_size;
  params.rows_per_item = t;
  params.output_size = static_cast<uint32_t>(subspaces.output_size());
  params.in_set = CoinProbability::FromNumerator(k);
  params.epsilon = SetLogOdds(k, t);
  return params;
}

PureProtocol ProtocolOf(const HadamardResponse::Params& params) {
  return PureProtocol{
      .p = params.in_set.value(),
      .q = std::exp2(-static_cast<double>(params.rows_per_item))};
}

// Server side: one counter per output y; the transform happens at Estimate
// time, so Add is O(1).
class HadamardResponseAccumulator final : public FrequencyAccumulator {
 public:
  HadamardResponseAccumulator(const HadamardResponse::Params& params,
                              const HadamardSubspaces& subspaces)
      : params_(params),
        subspaces_(subspaces),
        counts_(params.output_size, 0) {}

  absl::Status Add(const FrequencyReport& report) override {
    const auto* r = std::get_if<ItemReport>(&report);
    if (r == nullptr || r->item >= params_.output_size) {
      return absl::InvalidArgumentError(
          "Hadamard response accumulator: report is not an ItemReport with "
          "index below the output size");
    }
    ++counts_[r->item];
    ++num_reports_;
    return absl::OkStatus();
  }

  absl::Status Merge(const FrequencyAccumulator& other) override {
    const auto* o = dynamic_cast<const HadamardResponseAccumulator*>(&other);
    if (o == nullptr || !(o->params_ == params_)) {
      return absl::InvalidArgumentError(
          "Hadamard response accumulator: can only merge an accumulator of "
          "the same oracle (same epsilon, domain_size and rows_per_item)");
    }
    for (size_t y = 0; y < counts_.size(); ++y) counts_[y] += o->counts_[y];
    num_reports_ += o->num_reports_;
    return absl::OkStatus();
  }

  int64_t num_reports() const override { return num_reports_; }

  // counts: the reports per output (output_size values), summing to
  // num_reports.
  AccumulatorState State() const override {
    return {.num_reports = num_reports_, .counts = counts_};
  }

  absl::Status MergeState(const AccumulatorState& state) override {
    return MergeCounts(state, "Hadamard response", 1, &counts_, &num_reports_);
  }

  HistogramEstimate Estimate() const override {
    // T[a] = Σ_y H[a][y]·counts[y]; an item's support is the mean of T
    // over its row space (hadamard_subspaces.h).
    std::vector<int64_t> transformed = counts_;
    FastWalshHadamardTransform(absl::MakeSpan(transformed));
    std::vector<int64_t> support(params_.domain_size);
    for (uint32_t v = 0; v < params_.domain_size; ++v) {
      support[v] = subspaces_.SupportCount(v, transformed);
    }
    return ProtocolOf(params_).Estimate(support, num_reports_, params_.epsilon);
  }

 private:
  HadamardResponse::Params params_;
  HadamardSubspaces subspaces_;
  std::vector<int64_t> counts_;
  int64_t num_reports_ = 0;
};

}  // namespace

absl::StatusOr<std::unique_ptr<HadamardResponse>> HadamardResponse::Create(
    const HadamardResponseOptions& options) {
  RETURN_IF_ERROR(ValidateEpsilon("Hadamard response", options.epsilon));
  RETURN_IF_ERROR(ValidateDomainSize(
      "Hadamard response", options.domain_size, 2, kMaxDomainSize,
      /*hint=*/"use a count-mean sketch for larger domains"));
  ASSIGN_OR_RETURN(
      const HadamardSubspaces subspaces,
      HadamardSubspaces::Create(options.rows_per_item, options.domain_size));
  if (options.rows_per_item > 1 &&
      subspaces.output_size() > kMaxGeneralOutputSize) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Hadamard response: ", options.domain_size, " items with ",
        options.rows_per_item, " rows per item need 2^",
        subspaces.output_bits(),
        " server counters, more than 2^22; use fewer rows per item"));
  }
  ASSIGN_OR_RETURN(const Params params, MakeParams(options, subspaces));
  return std::unique_ptr<HadamardResponse>(
      new HadamardResponse(params, subspaces));
}

uint32_t HadamardResponse::BestRowsPerItem(double epsilon,
                                           uint32_t domain_size) {
  uint32_t best = 1;
  double best_variance = std::numeric_limits<double>::infinity();
  for (uint32_t t = 1; t <= HadamardSubspaces::kMaxRowsPerItem; ++t) {
    absl::StatusOr<std::unique_ptr<HadamardResponse>> oracle = Create(
        {.epsilon = epsilon, .domain_size = domain_size, .rows_per_item = t});
    if (!oracle.ok() || (*oracle)->output_size() > kMaxChosenOutputSize) {
      continue;
    }
    const double variance = (*oracle)->Variance(0.0, 1);
    if (variance < best_variance) {  // ties keep the smaller t (smaller K)
      best = t;
      best_variance = variance;
    }
  }
  return best;
}

PureProtocol HadamardResponse::protocol() const { return ProtocolOf(params_); }

// The coin picks C_v or its complement; the target coset is s_v for C_v and
// s_v xor a uniform nonzero syndrome otherwise (each outside coset has K/2^t
// columns, so that is uniform outside). One uniform column is then moved into
// the target coset. Both targets are drawn and one selected, and rejection
// sampling is avoided, so the draws and the work do not depend on the item.
FrequencyReport HadamardResponse::Randomize(uint32_t item,
                                            absl::BitGenRef gen) const {
  item = std::min(item, params_.domain_size - 1);
  const bool in_set = FlipCoin(params_.in_set, gen);
  // With one row (t = 1) the only outside coset is 1, and no draw is
  // needed; t is public.
  const uint32_t cosets = uint32_t{1} << params_.rows_per_item;
  const uint32_t outside =
      cosets == 2 ? 1
                  : 1 + static_cast<uint32_t>(UniformBelow(cosets - 1, gen));
  const uint32_t target =
      subspaces_.Offset(item) ^ (outside & (0 - uint32_t{!in_set}));
  const uint64_t y = UniformBelow(params_.output_size, gen);
  return ItemReport{
      .item = static_cast<uint32_t>(subspaces_.MoveToCoset(item, y, target))};
}

double HadamardResponse::Probability(uint32_t item,
                                     const FrequencyReport& report) const {
  const auto* r = std::get_if<ItemReport>(&report);
  if (r == nullptr || r->item >= params_.output_size) return 0.0;
  item = std::min(item, params_.domain_size - 1);
  const double set_size =
      std::ldexp(params_.output_size, -static_cast<int>(params_.rows_per_item));
  if (subspaces_.Contains(item, r->item)) {
    return params_.in_set.value() / set_size;
  }
  return params_.in_set.Complement().value() / (params_.output_size - set_size);
}

absl::Status HadamardResponse::Validate(const FrequencyReport& report) const {
  const auto* r = std::get_if<ItemReport>(&report);
  if (r == nullptr) {
    return absl::InvalidArgumentError(
        "Hadamard response: expected an ItemReport");
  }
  if (r->item >= params_.output_size) {
    return absl::InvalidArgumentError(
        absl::StrCat("Hadamard response: report index ", r->item,
                     " is not below the output size ", params_.output_size));
  }
  return absl::OkStatus();
}

std::unique_ptr<FrequencyAccumulator> HadamardResponse::NewAccumulator() const {
  return std::make_unique<HadamardResponseAccumulator>(params_, subspaces_);
}

}  // namespace ldp
