// RAPPOR's per-cohort bit counts; see rappor_accumulator.h.
#include "common/mechanisms/rappor/rappor_accumulator.h"

#include <bit>
#include <limits>
#include <numeric>
#include <variant>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/mechanisms/rappor/rappor.h"

namespace ldp {

RapporAccumulator::RapporAccumulator(uint32_t domain_size, RapporBloom bloom,
                                     PureProtocol bit, double epsilon)
    : domain_size_(domain_size), decoder_(bloom, bit), epsilon_(epsilon) {
  counts_.reports.assign(bloom.num_cohorts(), 0);
  counts_.ones.assign(size_t{bloom.num_cohorts()} * bloom.num_bits(), 0);
}

absl::Status RapporAccumulator::Add(const FrequencyReport& report) {
  const RapporBloom& bloom = decoder_.bloom();
  RETURN_IF_ERROR(bloom.ValidateReport(report));
  const SketchReport& filter = std::get<SketchReport>(report);
  int64_t* ones = &counts_.ones[size_t{filter.row} * bloom.num_bits()];
  for (size_t w = 0; w < filter.bits.size(); ++w) {
    for (uint64_t word = filter.bits[w]; word != 0; word &= word - 1) {
      ++ones[w * 64 + std::countr_zero(word)];
    }
  }
  ++counts_.reports[filter.row];
  ++num_reports_;
  return absl::OkStatus();
}

absl::Status RapporAccumulator::Merge(const FrequencyAccumulator& other) {
  const auto* same = dynamic_cast<const RapporAccumulator*>(&other);
  if (same == nullptr || same->domain_size_ != domain_size_ ||
      !(same->decoder_.bloom() == decoder_.bloom()) ||
      !(same->decoder_.bit() == decoder_.bit())) {
    return absl::InvalidArgumentError(
        "rappor: can only merge an accumulator of the same domain_size, "
        "filters and epsilons");
  }
  for (size_t c = 0; c < counts_.reports.size(); ++c) {
    counts_.reports[c] += same->counts_.reports[c];
  }
  for (size_t i = 0; i < counts_.ones.size(); ++i) {
    counts_.ones[i] += same->counts_.ones[i];
  }
  num_reports_ += same->num_reports_;
  return absl::OkStatus();
}

AccumulatorState RapporAccumulator::State() const {
  AccumulatorState state{.num_reports = num_reports_,
                         .counts = counts_.reports};
  state.counts.insert(state.counts.end(), counts_.ones.begin(),
                      counts_.ones.end());
  return state;
}

absl::Status RapporAccumulator::MergeState(const AccumulatorState& state) {
  constexpr char kName[] = "rappor";
  const size_t cohorts = counts_.reports.size();
  const size_t bits = decoder_.bloom().num_bits();
  RETURN_IF_ERROR(ValidateStateShape(
      state, kName, {.counts = cohorts + counts_.ones.size()}, num_reports_));
  const absl::Span<const int64_t> reports =
      absl::MakeConstSpan(state.counts).first(cohorts);
  RETURN_IF_ERROR(ValidateStateRange(reports, kName, "cohort report count", 0,
                                     state.num_reports));
  RETURN_IF_ERROR(ValidateStateSum(reports, kName, "cohort report counts",
                                   state.num_reports));
  for (size_t c = 0; c < cohorts; ++c) {
    RETURN_IF_ERROR(ValidateStateRange(
        absl::MakeConstSpan(state.counts).subspan(cohorts + c * bits, bits),
        kName, absl::StrCat("ones count of cohort ", c), 0, reports[c]));
  }
  for (size_t c = 0; c < cohorts; ++c) counts_.reports[c] += reports[c];
  for (size_t i = 0; i < counts_.ones.size(); ++i) {
    counts_.ones[i] += state.counts[cohorts + i];
  }
  num_reports_ += state.num_reports;
  return absl::OkStatus();
}

absl::StatusOr<RapporFit> RapporAccumulator::FitCandidates(
    absl::Span<const uint32_t> candidates) const {
  for (uint32_t v : candidates) {
    if (v >= domain_size_) {
      return absl::InvalidArgumentError(
          "rappor: a candidate is not an item of the domain");
    }
  }
  return decoder_.Fit(counts_, candidates);
}

HistogramEstimate RapporAccumulator::Estimate() const {
  HistogramEstimate estimate;
  estimate.num_reports = num_reports_;
  estimate.epsilon = epsilon_;
  if (domain_size_ == Rappor::kOpenDomainSize) return estimate;
  std::vector<uint32_t> items(domain_size_);
  std::iota(items.begin(), items.end(), 0);
  absl::StatusOr<RapporFit> fit = decoder_.Fit(counts_, items);
  if (!fit.ok()) {
    estimate.frequencies.assign(domain_size_, 0.0);
    estimate.variances.assign(domain_size_,
                              std::numeric_limits<double>::infinity());
    return estimate;
  }
  estimate.frequencies = std::move(fit->frequencies);
  estimate.variances = std::move(fit->variances);
  return estimate;
}

}  // namespace ldp
