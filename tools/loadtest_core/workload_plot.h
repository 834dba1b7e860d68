// An SVG plot of a workload's answers: the estimate as a line, its
// simultaneous confidence band as a shaded area, and (when known, e.g.
// from ldp-loadtest's truth file) the true answers as a second line, over
// the query index. A histogram's items have no order a line could follow:
// it is drawn as bars, each with its interval as an error bar. Hand-written SVG
// text: no plotting dependency, and the file opens in any browser.
#ifndef LDP_TOOLS_LOADTEST_CORE_WORKLOAD_PLOT_H_
#define LDP_TOOLS_LOADTEST_CORE_WORKLOAD_PLOT_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace ldp {

struct WorkloadPlot {
  std::string title{};
  std::string subtitle{};  // e.g. the strategy, n and ε
  // One value per query, in the workload's order; lower ≤ estimate ≤ upper
  // (the band may be ±∞ before any report: it is clipped to the plot).
  std::vector<double> estimates{};
  std::vector<double> lower{};
  std::vector<double> upper{};
  // Empty, or one value per query.
  std::vector<double> truth{};
  // First and last query labels, shown under the x axis (may be empty).
  std::string first_label{};
  std::string last_label{};
  // What the axis and legend call things; other line plots (ldp-loadtest's
  // throughput over time) reuse the drawing with their own words. An empty
  // band_name draws no band and no band legend.
  std::string x_name = "query";
  std::string band_name = "simultaneous band";
  std::string estimate_name = "estimate";
  std::string truth_name = "truth";
  // Bars from 0 with each value's interval as an error bar (categories),
  // instead of a line through the values inside a band (ordered queries).
  bool bars = false;
};

// InvalidArgument for no queries, arrays of unequal lengths, or a
// non-finite estimate or truth.
absl::StatusOr<std::string> WorkloadPlotSvg(const WorkloadPlot& plot);

}  // namespace ldp

#endif  // LDP_TOOLS_LOADTEST_CORE_WORKLOAD_PLOT_H_
