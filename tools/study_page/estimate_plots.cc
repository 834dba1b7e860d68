// Estimates as plots; see the header.
#include "tools/study_page/estimate_plots.h"

#include <algorithm>
#include <cmath>
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

// A RAPPOR question's answer: the candidates the decode selected (finite
// standard error), largest first; the others are 0 by selection and have
// no interval to draw.
WorkloadPlot CandidatePlot(const std::string& question_id,
                           const v1::HistogramEstimate& h, size_t max_values) {
  std::vector<int> order;
  int discovered = 0;
  for (int c = 0; c < h.frequencies_size(); ++c) {
    discovered += h.discovered(c);
    if (std::isfinite(h.standard_errors(c))) order.push_back(c);
  }
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return h.frequencies(a) > h.frequencies(b);
  });
  const size_t selected = order.size();
  order.resize(Shown(static_cast<int>(selected), max_values));
  WorkloadPlot plot{
      .title = absl::StrCat(question_id, ": candidates"),
      .subtitle = absl::StrFormat(
          "%s, n=%d, eps=%.4g, %d of %d candidates selected, %d discovered at "
          "FDR %g, %g%% interval of each%s",
          h.mechanism(), h.num_reports(), h.implemented_epsilon(), selected,
          h.frequencies_size(), discovered, h.false_discovery_rate(),
          h.confidence() * 100,
          Truncation(order.size(), static_cast<int>(selected))),
      .x_name = "candidate",
      .band_name = "interval of each candidate",
      .estimate_name = "frequency",
      .bars = true};
  for (const int c : order) {
    plot.estimates.push_back(h.frequencies(c));
    plot.lower.push_back(h.interval_lower(c));
    plot.upper.push_back(h.interval_upper(c));
  }
  if (!order.empty() && h.labels_size() == h.frequencies_size()) {
    plot.first_label = h.labels(order.front());
    plot.last_label = h.labels(order.back());
  }
  return plot;
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
  if (h.discovered_size() > 0 && h.discovered_size() == h.frequencies_size() &&
      h.standard_errors_size() == h.frequencies_size()) {
    return CandidatePlot(question_id, h, max_values);
  }
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
