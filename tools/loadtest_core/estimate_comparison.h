// Estimates beside the truth, for ldp-loadtest's report.
//
// A load test is also an end-to-end accuracy check: every estimate the
// server releases carries a standard error (DESIGN invariant 6), so the
// error measured in standard errors, z = (estimate − truth) / se, should
// look standard normal, and about `confidence` of the intervals should
// cover the truth. Printing z beside each number makes a broken pipeline
// (a biased decoder, a wrong ε, lost reports) visible at a glance.
#ifndef LDP_TOOLS_LOADTEST_CORE_ESTIMATE_COMPARISON_H_
#define LDP_TOOLS_LOADTEST_CORE_ESTIMATE_COMPARISON_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "common/estimation/estimate.h"
#include "common/estimation/histogram_estimate.h"

namespace ldp {

struct ComparedValue {
  std::string label{};
  double truth = 0;
  double estimate = 0;
  double standard_error = 0;
  Interval interval{};
  // (estimate − truth) / standard_error; 0 if both are equal, ±inf if the
  // standard error is 0 but they differ.
  double z = 0;
  bool covered = false;
};

struct HistogramComparison {
  std::vector<ComparedValue> items{};  // in item order
  int num_covered = 0;
  double confidence = 0;
  double max_abs_z = 0;
  double root_mean_square_z = 0;
};

// One scalar; the interval is the estimate's own.
ComparedValue CompareScalar(const ScalarEstimate& estimate, double truth,
                            std::string label);

// Per item: standard error √variance and a normal interval at `confidence`.
// InvalidArgument if the sizes of estimate, truth and labels (which may be
// empty: items are then labelled by index) disagree, or confidence ∉ (0,1).
absl::StatusOr<HistogramComparison> CompareHistogram(
    const HistogramEstimate& estimate, absl::Span<const double> truth,
    absl::Span<const std::string> labels, double confidence);

// A fixed-width table: a header, then one row per value.
std::string FormatScalarComparison(const ComparedValue& value);
// The `top` items with the largest true frequency, then a summary line
// (coverage over ALL items, max |z|, RMS z).
std::string FormatHistogramComparison(const HistogramComparison& comparison,
                                      int top);

}  // namespace ldp

#endif  // LDP_TOOLS_LOADTEST_CORE_ESTIMATE_COMPARISON_H_
