// Estimates as plots; see the header.
#include "tools/study_page/estimate_plots.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "google/protobuf/repeated_field.h"

namespace ldp {
namespace {

size_t Shown(int size, size_t max_values) {
  const size_t all = static_cast<size_t>(size);
  return max_values == 0 ? all : std::min(all, max_values);
}

std::vector<double> Head(const google::protobuf::RepeatedField<double>& values,
                         size_t n) {
  const size_t k = std::min(n, static_cast<size_t>(values.size()));
  return {values.begin(), values.begin() + static_cast<ptrdiff_t>(k)};
}

// ", first 2000 of 524800 drawn" when not all are.
std::string Truncation(size_t shown, int size) {
  return shown < static_cast<size_t>(size)
             ? absl::StrFormat(", first %d of %d drawn", shown, size)
             : std::string();
}

void SetLabels(const google::protobuf::RepeatedPtrField<std::string>& labels,
               size_t shown, WorkloadPlot& plot) {
  if (labels.empty() || shown == 0) return;
  plot.first_label = labels[0];
  plot.last_label = labels[static_cast<int>(
      std::min(shown - 1, static_cast<size_t>(labels.size() - 1)))];
}

}  // namespace

WorkloadPlot WorkloadEstimatePlot(const std::string& question_id,
                                  const v1::WorkloadEstimate& w,
                                  size_t max_values) {
  const size_t shown = Shown(w.answers_size(), max_values);
  WorkloadPlot plot{
      .title = absl::StrCat(question_id, ": ", w.workload()),
      .subtitle = absl::StrFormat(
          "%s, n=%d, eps=%.4g, simultaneous %g%% band%s", w.strategy(),
          w.num_reports(), w.implemented_epsilon(), w.confidence() * 100,
          Truncation(shown, w.answers_size())),
      .estimates = Head(w.answers(), shown),
      .lower = Head(w.band_lower(), shown),
      .upper = Head(w.band_upper(), shown)};
  SetLabels(w.labels(), shown, plot);
  return plot;
}

WorkloadPlot HistogramEstimatePlot(const std::string& question_id,
                                   const v1::HistogramEstimate& h,
                                   size_t max_values) {
  const size_t shown = Shown(h.frequencies_size(), max_values);
  WorkloadPlot plot{
      .title = absl::StrCat(question_id, ": histogram"),
      .subtitle = absl::StrFormat(
          "%s, n=%d, eps=%.4g, %g%% interval of each item%s", h.mechanism(),
          h.num_reports(), h.implemented_epsilon(), h.confidence() * 100,
          Truncation(shown, h.frequencies_size())),
      .estimates = Head(h.frequencies(), shown),
      .lower = Head(h.interval_lower(), shown),
      .upper = Head(h.interval_upper(), shown),
      .x_name = "item",
      .band_name = "interval of each item",
      .estimate_name = "frequency",
      .bars = true};
  SetLabels(h.labels(), shown, plot);
  return plot;
}

}  // namespace ldp
