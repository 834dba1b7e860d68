// Support counts of a pure protocol; see support_counts.h.
#include "common/estimation/support_counts.h"

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
  return MergeCounts(state, accumulator, items_per_report, &counts_,
                     &num_reports_);
}

HistogramEstimate SupportCounts::Estimate() const {
  return protocol_.Estimate(counts_, num_reports_, epsilon_);
}

}  // namespace ldp
