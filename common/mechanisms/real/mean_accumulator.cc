// Mean of decoded bounded-real reports; see mean_accumulator.h.
#include "common/mechanisms/real/mean_accumulator.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/estimation/confidence_interval.h"

namespace ldp {
namespace {

// Bits of the fixed-point fraction: a grid value has magnitude below 2^61,
// so n of them sum below 2^124 for any int64 n.
constexpr int kFractionBits = 61;

}  // namespace

MeanAccumulator::MeanAccumulator(const RealMechanism& mechanism)
    : mechanism_(&mechanism),
      exponent_(std::ilogb(mechanism.DecodeBound()) + 1) {}

absl::Status MeanAccumulator::Add(const ScalarReport& report) {
  if (absl::Status status = mechanism_->Validate(report); !status.ok()) {
    return status;
  }
  const double value = mechanism_->Decode(report);
  // |half| < 2^30, so its square needs no care about range.
  const double half = std::ldexp(value, kFractionBits / 2 - exponent_);
  if (!(std::fabs(half) < std::ldexp(1.0, kFractionBits / 2))) {
    return absl::InternalError(
        absl::StrCat(std::string(RealMechanismKindName(mechanism_->kind())),
                     " decoded a valid report to ", value,
                     ", beyond its DecodeBound ", mechanism_->DecodeBound()));
  }
  ++num_reports_;
  sum_ += std::llrint(std::ldexp(value, kFractionBits - exponent_));
  sum_of_squares_ += std::llrint(2 * half * half);
  return absl::OkStatus();
}

absl::Status MeanAccumulator::Merge(const MeanAccumulator& other) {
  if (other.mechanism_ != mechanism_) {
    return absl::InvalidArgumentError(
        "cannot merge mean accumulators of different mechanisms (build every "
        "shard from the same mechanism object)");
  }
  num_reports_ += other.num_reports_;  // `other` may be *this
  sum_ += other.sum_;
  sum_of_squares_ += other.sum_of_squares_;
  return absl::OkStatus();
}

AccumulatorState MeanAccumulator::State() const {
  AccumulatorState state{.num_reports = num_reports_};
  AppendInt128(sum_of_squares_, state.counts);
  AppendInt128(sum_, state.counts);
  state.counts.push_back(exponent_);
  return state;
}

absl::Status MeanAccumulator::MergeState(const AccumulatorState& state) {
  constexpr char kName[] = "mean";
  RETURN_IF_ERROR(
      ValidateStateShape(state, kName, {.counts = 5}, num_reports_));
  if (state.counts[4] != exponent_) {
    return absl::InvalidArgumentError(absl::StrCat(
        "mean state: its sums are on a grid for values below 2^",
        state.counts[4], ", this accumulator's below 2^", exponent_,
        " (a state of another mechanism or parameters)"));
  }
  const __int128 squares = Int128At(state.counts, 0);
  const __int128 sum = Int128At(state.counts, 2);
  // Each report adds at most 2^61 to either sum, in magnitude.
  const __int128 most = static_cast<__int128>(state.num_reports)
                        << kFractionBits;
  if (squares < 0 || squares > most || sum < -most || sum > most) {
    return absl::InvalidArgumentError(
        absl::StrCat("mean state: its sums are beyond what ", state.num_reports,
                     " reports within the mechanism's bound can add up to"));
  }
  num_reports_ += state.num_reports;
  sum_ += sum;
  sum_of_squares_ += squares;
  return absl::OkStatus();
}

double MeanAccumulator::Sum() const {
  return std::ldexp(static_cast<double>(sum_), exponent_ - kFractionBits);
}

double MeanAccumulator::SumOfSquares() const {
  return std::ldexp(static_cast<double>(sum_of_squares_),
                    2 * exponent_ - kFractionBits);
}

double MeanAccumulator::StandardError() const {
  const double n = static_cast<double>(num_reports_);
  if (num_reports_ < 2) {
    const double b = mechanism_->bound();
    return std::sqrt((mechanism_->WorstCaseVariance() + b * b) / n);
  }
  const double mean = Sum() / n;
  const double sample_variance =
      std::max(0.0, (SumOfSquares() - n * mean * mean) / (n - 1));
  return std::sqrt(sample_variance / n);
}

ScalarEstimate MeanAccumulator::Estimate(double confidence) const {
  const double b = mechanism_->bound();
  ScalarEstimate estimate{
      .value =
          num_reports_ > 0 ? Sum() / static_cast<double>(num_reports_) : 0.0,
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
