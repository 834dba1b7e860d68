// Mean of decoded bounded-real reports; see mean_accumulator.h.
#include "common/mechanisms/real/mean_accumulator.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/estimation/confidence_interval.h"

namespace ldp {

void MeanAccumulator::CompensatedSum::Add(double x) {
  const double total = sum + x;
  // Neumaier: recover the low-order bits of whichever operand was smaller.
  compensation +=
      std::fabs(sum) >= std::fabs(x) ? (sum - total) + x : (x - total) + sum;
  sum = total;
}

absl::Status MeanAccumulator::Add(const ScalarReport& report) {
  if (absl::Status status = mechanism_->Validate(report); !status.ok()) {
    return status;
  }
  const double value = mechanism_->Decode(report);
  ++num_reports_;
  sum_.Add(value);
  sum_of_squares_.Add(value * value);
  return absl::OkStatus();
}

absl::Status MeanAccumulator::Merge(const MeanAccumulator& other) {
  if (other.mechanism_ != mechanism_) {
    return absl::InvalidArgumentError(
        "cannot merge mean accumulators of different mechanisms (build every "
        "shard from the same mechanism object)");
  }
  const MeanAccumulator snapshot = other;  // `other` may be *this
  num_reports_ += snapshot.num_reports_;
  sum_.Merge(snapshot.sum_.sum, snapshot.sum_.compensation);
  sum_of_squares_.Merge(snapshot.sum_of_squares_.sum,
                        snapshot.sum_of_squares_.compensation);
  return absl::OkStatus();
}

AccumulatorState MeanAccumulator::State() const {
  return {.num_reports = num_reports_,
          .reals = {sum_.sum, sum_.compensation, sum_of_squares_.sum,
                    sum_of_squares_.compensation}};
}

absl::Status MeanAccumulator::MergeState(const AccumulatorState& state) {
  constexpr char kName[] = "mean";
  RETURN_IF_ERROR(ValidateStateShape(state, kName, {.reals = 4}, num_reports_));
  const double squares = state.reals[2] + state.reals[3];
  if (!(squares >= 0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "mean state: the sum of squares is ", squares, ", negative"));
  }
  if (state.num_reports == 0 &&
      (state.reals[0] != 0 || state.reals[1] != 0 || squares != 0)) {
    return absl::InvalidArgumentError(
        "mean state: no reports, yet non-zero sums");
  }
  num_reports_ += state.num_reports;
  sum_.Merge(state.reals[0], state.reals[1]);
  sum_of_squares_.Merge(state.reals[2], state.reals[3]);
  return absl::OkStatus();
}

double MeanAccumulator::StandardError() const {
  const double n = static_cast<double>(num_reports_);
  if (num_reports_ < 2) {
    const double b = mechanism_->bound();
    return std::sqrt((mechanism_->WorstCaseVariance() + b * b) / n);
  }
  const double mean = sum_.Total() / n;
  const double sample_variance =
      std::max(0.0, (sum_of_squares_.Total() - n * mean * mean) / (n - 1));
  return std::sqrt(sample_variance / n);
}

ScalarEstimate MeanAccumulator::Estimate(double confidence) const {
  const double b = mechanism_->bound();
  ScalarEstimate estimate{
      .value = num_reports_ > 0
                   ? sum_.Total() / static_cast<double>(num_reports_)
                   : 0.0,
      .standard_error = StandardError(),
      .interval = {.lower = -b, .upper = b},
      .confidence = confidence,
      .num_reports = num_reports_,
      .epsilon = mechanism_->epsilon(),
  };
  if (ValidateConfidence(confidence).ok() && num_reports_ > 0) {
    const Interval normal =
        NormalInterval(estimate.value, estimate.standard_error, confidence);
    estimate.interval = {.lower = std::clamp(normal.lower, -b, b),
                         .upper = std::clamp(normal.upper, -b, b)};
  }
  return estimate;
}

}  // namespace ldp
