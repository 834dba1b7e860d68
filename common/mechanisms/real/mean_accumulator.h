// Server side of every bounded-real mechanism: the mean of φ(x) over the
// agents who reported, with an honest standard error.
//
// Each report decodes to an unbiased estimate of its agent's value
// (RealMechanism::Decode), so their average is unbiased for the population
// mean. The standard error is the sample standard deviation of the decoded
// values over √n: it covers both the mechanism's noise and the spread of
// the agents' values (the right error bar when the agents are a sample of a
// larger population, and conservative otherwise). The interval is the
// normal interval, intersected with [−b, b], where the true mean lies.
//
// Sums are kept with Neumaier's compensated summation, so estimates are
// accurate to a few ulps whatever the number and order of reports, and
// shards merge without loss. Thread-compatible: shard one accumulator per
// ingest thread and Merge.
#ifndef LDP_COMMON_MECHANISMS_REAL_MEAN_ACCUMULATOR_H_
#define LDP_COMMON_MECHANISMS_REAL_MEAN_ACCUMULATOR_H_

#include <cstdint>

#include "absl/status/status.h"
#include "common/estimation/accumulator_state.h"
#include "common/estimation/estimate.h"
#include "common/mechanisms/real/real_mechanism.h"

namespace ldp {

class MeanAccumulator {
 public:
  // `mechanism` is not owned and must outlive the accumulator (servers keep
  // one mechanism per task and share it between shards).
  explicit MeanAccumulator(const RealMechanism& mechanism)
      : mechanism_(&mechanism) {}

  // Validates and counts one report; an invalid report changes nothing.
  absl::Status Add(const ScalarReport& report);
  // Adds another accumulator's reports. InvalidArgument (and no change)
  // unless it was built on the same mechanism object.
  absl::Status Merge(const MeanAccumulator& other);

  int64_t num_reports() const { return num_reports_; }

  // The sums as plain numbers (accumulator_state.h), so a shard's
  // statistics can be stored and merged later. reals: the sum of the
  // decoded values and its compensation, then the sum of their squares and
  // its compensation.
  AccumulatorState State() const;
  // Adds a State() of an accumulator of the same mechanism:
  // a.MergeState(b.State()) leaves `a` exactly as a.Merge(b) would. The
  // state may come from a damaged or hostile store: InvalidArgument, and no
  // change, unless it holds exactly four finite reals and no counts or
  // parts, num_reports ≥ 0, a non-negative sum of squares, and zero sums
  // when it has no reports. The mechanism is the caller's to know.
  absl::Status MergeState(const AccumulatorState& state);

  // `confidence` is 1 − β, in (0, 1). With fewer than two reports there is
  // no sample variance, so the standard error falls back to the largest
  // possible per-report spread, √(WorstCaseVariance + b²) / √n (infinite
  // with no reports). An invalid confidence yields the interval [−b, b],
  // which always holds the truth.
  ScalarEstimate Estimate(double confidence) const;

 private:
  // A compensated (Neumaier) running sum.
  struct CompensatedSum {
    double sum = 0;
    double compensation = 0;
    void Add(double x);
    // Adds another compensated sum: its sum as a term, its compensation to
    // this one's, so merging into an empty sum copies it exactly.
    void Merge(double other_sum, double other_compensation) {
      Add(other_sum);
      compensation += other_compensation;
    }
    double Total() const { return sum + compensation; }
  };

  // The standard error of the mean of the decoded values.
  double StandardError() const;

  const RealMechanism* mechanism_;  // not owned
  int64_t num_reports_ = 0;
  CompensatedSum sum_;
  CompensatedSum sum_of_squares_;
};

}  // namespace ldp

#endif  // LDP_COMMON_MECHANISMS_REAL_MEAN_ACCUMULATOR_H_
