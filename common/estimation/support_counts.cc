// Support counts of a pure protocol; see support_counts.h.
#include "common/estimation/support_counts.h"

#include "common/base/status_macros.h"

namespace ldp {

void SupportCounts::Merge(const SupportCounts& other) {
  for (size_t v = 0; v < counts_.size(); ++v) counts_[v] += other.counts_[v];
  num_reports_ += other.num_reports_;
}

AccumulatorState SupportCounts::State() const {
  return {.num_reports = num_reports_, .counts = counts_};
}

absl::Status SupportCounts::MergeState(const AccumulatorState& state,
                                       std::string_view accumulator,
                                       int64_t items_per_report) {
  const int64_t n = state.num_reports;
  RETURN_IF_ERROR(ValidateStateShape(state, accumulator,
                                     {.counts = counts_.size()}, num_reports_));
  RETURN_IF_ERROR(
      ValidateStateRange(state.counts, accumulator, "support count", 0, n));
  RETURN_IF_ERROR(
      ValidateStateSum(state.counts, accumulator, "support counts",
                       static_cast<__int128>(items_per_report) * n));
  for (size_t v = 0; v < counts_.size(); ++v) counts_[v] += state.counts[v];
  num_reports_ += n;
  return absl::OkStatus();
}

HistogramEstimate SupportCounts::Estimate() const {
  return protocol_.Estimate(counts_, num_reports_, epsilon_);
}

}  // namespace ldp
