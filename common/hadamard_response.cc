// Hadamard response client, exact likelihoods and FWHT decoder; see
// hadamard_response.h.
#include "common/hadamard_response.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <utility>
#include <variant>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "common/validation.h"
#include "common/walsh_hadamard.h"

namespace ldp {
namespace {

// y ∈ C_v: row v + 1 of H_K is +1 at column y.
bool InHalf(uint32_t item, uint64_t y) {
  return !HadamardEntryIsNegative(uint64_t{item} + 1, y);
}

// ln(p / (1 − p)) for p = k / 2^32, the privacy loss of reporting into or
// out of C_v.
double HalfLogOdds(uint64_t k) {
  return std::log(static_cast<double>(k)) -
         std::log(static_cast<double>(CoinProbability::kDenominator - k));
}

absl::StatusOr<HadamardResponse::Params> MakeParams(
    const HadamardResponseOptions& options) {
  RETURN_IF_ERROR(ValidateEpsilon("Hadamard response", options.epsilon));
  RETURN_IF_ERROR(ValidateDomainSize(
      "Hadamard response", options.domain_size, 2,
      HadamardResponse::kMaxDomainSize,
      /*hint=*/"use a count-mean sketch for larger domains"));
  // Round p down (then step down past any floating-point doubt) so that
  // p / (1 − p) ≤ e^ε: ε is never exceeded.
  const double e = std::exp(options.epsilon);
  uint64_t k = CoinProbability::RoundDown(e / (e + 1)).numerator();
  while (k > CoinProbability::kDenominator / 2 &&
         HalfLogOdds(k) > options.epsilon) {
    --k;
  }
  if (k <= CoinProbability::kDenominator / 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Hadamard response: epsilon ", options.epsilon,
        " is below the resolution of 32-bit coins; use epsilon >= 1e-6"));
  }
  HadamardResponse::Params params;
  params.domain_size = options.domain_size;
  params.output_size =
      static_cast<uint32_t>(std::bit_ceil(uint64_t{options.domain_size} + 1));
  params.in_half = CoinProbability::FromNumerator(k);
  params.epsilon = HalfLogOdds(k);
  return params;
}

// Server side: one counter per output y; the transform happens at Estimate
// time, so Add is O(1).
class HadamardResponseAccumulator final : public FrequencyAccumulator {
 public:
  explicit HadamardResponseAccumulator(const HadamardResponse::Params& params)
      : params_(params), counts_(params.output_size, 0) {}

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
          "the same oracle (same epsilon and domain_size)");
    }
    for (size_t y = 0; y < counts_.size(); ++y) counts_[y] += o->counts_[y];
    num_reports_ += o->num_reports_;
    return absl::OkStatus();
  }

  int64_t num_reports() const override { return num_reports_; }

  HistogramEstimate Estimate() const override {
    // t[r] = Σ_y H[r][y]·counts[y] = |reports in C| − |reports outside C|,
    // so the support of item v is (n + t[v + 1]) / 2.
    std::vector<int64_t> transformed = counts_;
    FastWalshHadamardTransform(absl::MakeSpan(transformed));
    std::vector<int64_t> support(params_.domain_size);
    for (uint32_t v = 0; v < params_.domain_size; ++v) {
      support[v] = (num_reports_ + transformed[v + 1]) / 2;
    }
    const PureProtocol protocol{.p = params_.in_half.value(), .q = 0.5};
    return protocol.Estimate(support, num_reports_, params_.epsilon);
  }

 private:
  HadamardResponse::Params params_;
  std::vector<int64_t> counts_;
  int64_t num_reports_ = 0;
};

}  // namespace

absl::StatusOr<std::unique_ptr<HadamardResponse>> HadamardResponse::Create(
    const HadamardResponseOptions& options) {
  absl::StatusOr<Params> params = MakeParams(options);
  if (!params.ok()) return params.status();
  return std::unique_ptr<HadamardResponse>(new HadamardResponse(*params));
}

PureProtocol HadamardResponse::protocol() const {
  return PureProtocol{.p = params_.in_half.value(), .q = 0.5};
}

FrequencyReport HadamardResponse::Randomize(uint32_t item,
                                            absl::BitGenRef gen) const {
  item = std::min(item, params_.domain_size - 1);
  const bool want_in_half = FlipCoin(params_.in_half, gen);
  // One uniform column, moved into the chosen half if it fell outside:
  // flipping a set bit of row v + 1 flips the parity that decides C_v, so
  // y ↦ y ^ bit pairs the two halves and the result is exactly uniform on
  // the chosen one. Rejection sampling would be just as exact, but its
  // number of draws would depend on the item for given coins.
  const uint64_t row = uint64_t{item} + 1;
  const uint64_t pair_bit = row & (0 - row);
  uint64_t y = UniformBelow(params_.output_size, gen);
  y ^= pair_bit & (0 - uint64_t{InHalf(item, y) != want_in_half});
  return ItemReport{.item = static_cast<uint32_t>(y)};
}

double HadamardResponse::Probability(uint32_t item,
                                     const FrequencyReport& report) const {
  const auto* r = std::get_if<ItemReport>(&report);
  if (r == nullptr || r->item >= params_.output_size) return 0.0;
  item = std::min(item, params_.domain_size - 1);
  const double p = InHalf(item, r->item) ? params_.in_half.value()
                                         : params_.in_half.Complement().value();
  return p / (params_.output_size / 2);
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
  return std::make_unique<HadamardResponseAccumulator>(params_);
}

}  // namespace ldp
