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
// Sums are exact, so they do not depend on the order or grouping of the
// reports: shards merged in any order, directly or through stored states,
// give one accumulator's estimate bit for bit. Each decoded value is
// rounded once to a fixed-point grid of step 2^(e − 61), 2^e the power of
// two above the mechanism's DecodeBound, and summed in 128 bits (its
// square, as a double, likewise on a grid of step 2^(2e − 61)). A value of
// at least 2^(e − 9) is on the grid already; a smaller one moves by at most
// 2^(e − 62), about 2e-19 of the bound. Thread-compatible: shard one
// accumulator per ingest thread and Merge.
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
  explicit MeanAccumulator(const RealMechanism& mechanism);

  // Validates and counts one report; an invalid report changes nothing.
  absl::Status Add(const ScalarReport& report);
  // Adds another accumulator's reports. InvalidArgument (and no change)
  // unless it was built on the same mechanism object.
  absl::Status Merge(const MeanAccumulator& other);

  int64_t num_reports() const { return num_reports_; }

  // The sums as plain numbers (accumulator_state.h), so a shard's
  // statistics can be stored and merged later. counts: the sum of squares
  // and the sum (each a 128-bit integer on its grid, as its high then low
  // 64 bits), then the grid's exponent e (the grid step is 2^(e − 61),
  // 2^(2e − 61) for squares).
  AccumulatorState State() const;
  // Adds a State() of an accumulator of the same mechanism:
  // a.MergeState(b.State()) leaves `a` exactly as a.Merge(b) would. The
  // state may come from a damaged or hostile store: InvalidArgument, and no
  // change, unless it holds exactly five counts and no reals or parts,
  // num_reports ≥ 0, this accumulator's grid, and sums no larger than
  // num_reports values within the bound make (a non-negative sum of
  // squares). The mechanism is the caller's to know.
  absl::Status MergeState(const AccumulatorState& state);

  // `confidence` is 1 − β, in (0, 1). With fewer than two reports there is
  // no sample variance, so the standard error falls back to the largest
  // possible per-report spread, √(WorstCaseVariance + b²) / √n (infinite
  // with no reports). An invalid confidence yields the interval [−b, b],
  // which always holds the truth.
  ScalarEstimate Estimate(double confidence) const;

 private:
  // The standard error of the mean of the decoded values.
  double StandardError() const;

  // The sums as doubles.
  double Sum() const;
  double SumOfSquares() const;

  const RealMechanism* mechanism_;  // not owned
  int exponent_;                    // e: every |decoded value| is below 2^e
  int64_t num_reports_ = 0;
  __int128 sum_ = 0;             // Σ round(value · 2^(61 − e))
  __int128 sum_of_squares_ = 0;  // Σ round(value² · 2^(61 − 2e))
};

}  // namespace ldp

#endif  // LDP_COMMON_MECHANISMS_REAL_MEAN_ACCUMULATOR_H_
