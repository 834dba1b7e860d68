// The count-mean sketch accumulator's stored state (count_mean_sketch.h
// gives the layout), apart from the sketch's estimator.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/mechanisms/frequency/count_mean_sketch.h"

namespace ldp {

AccumulatorState CountMeanSketchAccumulator::State() const {
  AccumulatorState state{.num_reports = num_reports_, .counts = row_reports_};
  state.counts.reserve(row_reports_.size() +
                       size_t{params_.num_hashes} * params_.num_columns);
  if (params_.variant == SketchVariant::kHadamard) {
    state.counts.insert(state.counts.end(), sign_sums_.begin(),
                        sign_sums_.end());
  } else {
    for (const BitSlicedCounter& row : bit_sums_) {
      const std::vector<int64_t> sums = row.Counts();
      state.counts.insert(state.counts.end(), sums.begin(), sums.end());
    }
  }
  return state;
}

absl::Status CountMeanSketchAccumulator::MergeState(
    const AccumulatorState& state) {
  const bool hadamard = params_.variant == SketchVariant::kHadamard;
  const char* name =
      hadamard ? "Hadamard count-mean sketch" : "count-mean sketch";
  const size_t k = params_.num_hashes;
  const size_t m = params_.num_columns;
  RETURN_IF_ERROR(
      ValidateStateShape(state, name, {.counts = k + k * m}, num_reports_));
  const absl::Span<const int64_t> rows =
      absl::MakeConstSpan(state.counts).first(k);
  RETURN_IF_ERROR(
      ValidateStateRange(rows, name, "row report count", 0, state.num_reports));
  RETURN_IF_ERROR(
      ValidateStateSum(rows, name, "row report counts", state.num_reports));
  for (size_t j = 0; j < k; ++j) {
    const absl::Span<const int64_t> sums =
        absl::MakeConstSpan(state.counts).subspan(k + j * m, m);
    RETURN_IF_ERROR(ValidateStateRange(
        sums, name,
        absl::StrCat(hadamard ? "signed sum" : "column sum", " of row ", j),
        hadamard ? -rows[j] : 0, rows[j]));
  }
  for (size_t j = 0; j < k; ++j) {
    const absl::Span<const int64_t> sums =
        absl::MakeConstSpan(state.counts).subspan(k + j * m, m);
    if (hadamard) {
      for (size_t c = 0; c < m; ++c) sign_sums_[j * m + c] += sums[c];
    } else {
      bit_sums_[j].AddCounts(sums);
    }
    row_reports_[j] += rows[j];
  }
  num_reports_ += state.num_reports;
  return absl::OkStatus();
}

}  // namespace ldp
