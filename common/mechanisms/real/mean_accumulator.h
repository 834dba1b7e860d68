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
