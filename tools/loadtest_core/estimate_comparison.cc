// Estimate-vs-truth rows and their text table; see the header.
#include "tools/loadtest_core/estimate_comparison.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/base/status_macros.h"
#include "common/estimation/confidence_interval.h"

namespace ldp {
namespace {

double ZScore(double estimate, double truth, double standard_error) {
  const double error = estimate - truth;
  if (error == 0) return 0;
  if (standard_error > 0) return error / standard_error;
  return error > 0 ? std::numeric_limits<double>::infinity()
                   : -std::numeric_limits<double>::infinity();
}

constexpr char kRowFormat[] =
    "  %-24s %11.6f %11.6f [%11.6f, %11.6f] %9.6f %+7.2f\n";

std::string Header() {
  return absl::StrFormat("  %-24s %11s %11s %26s %9s %7s\n", "item", "truth",
                         "estimate", "interval", "std.err", "err/se");
}

std::string Row(const ComparedValue& v) {
  std::string label =
      v.label.size() > 24 ? v.label.substr(0, 21) + "..." : v.label;
  return absl::StrFormat(kRowFormat, label, v.truth, v.estimate,
                         v.interval.lower, v.interval.upper, v.standard_error,
                         v.z);
}

}  // namespace

ComparedValue CompareScalar(const ScalarEstimate& estimate, double truth,
                            std::string label) {
  ComparedValue value{.label = std::move(label),
                      .truth = truth,
                      .estimate = estimate.value,
                      .standard_error = estimate.standard_error,
                      .interval = estimate.interval};
  value.z = ZScore(estimate.value, truth, estimate.standard_error);
  value.covered = estimate.interval.Contains(truth);
  return value;
}

absl::StatusOr<HistogramComparison> CompareHistogram(
    const HistogramEstimate& estimate, absl::Span<const double> truth,
    absl::Span<const std::string> labels, double confidence) {
  RETURN_IF_ERROR(ValidateConfidence(confidence));
  const size_t n = estimate.frequencies.size();
  if (estimate.variances.size() != n || truth.size() != n ||
      (!labels.empty() && labels.size() != n)) {
    return absl::InvalidArgumentError(
        absl::StrCat("histogram sizes disagree: ", n, " frequencies, ",
                     estimate.variances.size(), " variances, ", truth.size(),
                     " true values, ", labels.size(), " labels"));
  }
  HistogramComparison result{.confidence = confidence};
  double sum_squares = 0;
  for (size_t i = 0; i < n; ++i) {
    const double se = std::sqrt(std::max(0.0, estimate.variances[i]));
    ComparedValue v{
        .label = labels.empty() ? absl::StrCat(i) : labels[i],
        .truth = truth[i],
        .estimate = estimate.frequencies[i],
        .standard_error = se,
        .interval = NormalInterval(estimate.frequencies[i], se, confidence)};
    v.z = ZScore(v.estimate, v.truth, se);
    v.covered = v.interval.Contains(v.truth);
    result.num_covered += v.covered;
    result.max_abs_z = std::max(result.max_abs_z, std::abs(v.z));
    sum_squares += v.z * v.z;
    result.items.push_back(std::move(v));
  }
  if (n > 0) result.root_mean_square_z = std::sqrt(sum_squares / n);
  return result;
}

std::string FormatScalarComparison(const ComparedValue& value) {
  return absl::StrCat(Header(), Row(value));
}

std::string FormatHistogramComparison(const HistogramComparison& comparison,
                                      int top) {
  std::vector<size_t> order(comparison.items.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return comparison.items[a].truth > comparison.items[b].truth;
  });
  std::string out = Header();
  const size_t shown =
      std::min(order.size(), static_cast<size_t>(std::max(top, 0)));
  for (size_t i = 0; i < shown; ++i) {
    absl::StrAppend(&out, Row(comparison.items[order[i]]));
  }
  if (shown < order.size()) {
    absl::StrAppend(&out, "  ... ", order.size() - shown, " more items\n");
  }
  absl::StrAppendFormat(
      &out,
      "  %g%% intervals covering the truth: %d of %d (%.1f%%); max |err/se| "
      "%.2f, RMS err/se %.2f\n",
      comparison.confidence * 100, comparison.num_covered,
      static_cast<int>(comparison.items.size()),
      comparison.items.empty()
          ? 0.0
          : 100.0 * comparison.num_covered / comparison.items.size(),
      comparison.max_abs_z, comparison.root_mean_square_z);
  return out;
}

}  // namespace ldp
