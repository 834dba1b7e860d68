#include "tools/loadtest_core/workload_plot.h"

#include <cmath>
#include <cstdio>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::StatusIs;

WorkloadPlot Cdf() {
  return {.title = "age_cdf: prefix N=4",
          .subtitle = "hierarchical b=2 <OUE> & more",
          .estimates = {0.2, 0.5, 0.81, 1.0},
          .lower = {0.1, 0.4, 0.7, 0.9},
          .upper = {0.3, 0.6, 0.92, 1.1},
          .truth = {0.25, 0.5, 0.75, 1.0},
          .first_label = "x ≤ 0",
          .last_label = "x ≤ 3"};
}

int Count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos;
       at = text.find(what, at + 1)) {
    ++n;
  }
  return n;
}

TEST(WorkloadPlot, DrawsBandEstimateTruthAndLegend) {
  absl::StatusOr<std::string> svg = WorkloadPlotSvg(Cdf());
  ASSERT_OK(svg);
  EXPECT_THAT(*svg, HasSubstr("<svg xmlns=\"http://www.w3.org/2000/svg\""));
  EXPECT_EQ(Count(*svg, "<polygon"), 1);   // the band
  EXPECT_EQ(Count(*svg, "<polyline"), 2);  // estimate and truth
  EXPECT_THAT(*svg, HasSubstr(">truth<"));
  EXPECT_THAT(*svg, HasSubstr(">estimate<"));
  EXPECT_THAT(*svg, HasSubstr(">simultaneous band<"));
  // Text is escaped, so the file stays well-formed XML.
  EXPECT_THAT(*svg, HasSubstr("&lt;OUE&gt; &amp; more"));
  EXPECT_THAT(*svg, Not(HasSubstr("<OUE>")));
  EXPECT_THAT(*svg, HasSubstr("</svg>"));
  // The band polygon has 2m points.
  const size_t start = svg->find("<polygon");
  const size_t points = svg->find("points=\"", start) + 8;
  const std::string list = svg->substr(points, svg->find('"', points) - points);
  EXPECT_EQ(Count(list, ","), 8);
}

TEST(WorkloadPlot, WithoutTruthDrawsOneLine) {
  WorkloadPlot plot = Cdf();
  plot.truth.clear();
  absl::StatusOr<std::string> svg = WorkloadPlotSvg(plot);
  ASSERT_OK(svg);
  EXPECT_EQ(Count(*svg, "<polyline"), 1);
  EXPECT_THAT(*svg, Not(HasSubstr(">truth<")));
}

// A histogram as bars: one bar per item, from 0 (a negative estimate hangs
// below the 0 line), each with its interval as an error bar from lower to
// upper; no line through the items and no band.
TEST(WorkloadPlot, DrawsCategoriesAsBarsWithIntervals) {
  WorkloadPlot plot = Cdf();
  plot.estimates = {0.5, -0.05, 0.3, 0.25};
  plot.lower = {0.4, -0.1, 0.2, 0.1};
  plot.upper = {0.6, 0.02, 0.4, 0.4};
  plot.band_name = "interval of each item";
  plot.bars = true;
  absl::StatusOr<std::string> svg = WorkloadPlotSvg(plot);
  ASSERT_OK(svg);
  EXPECT_EQ(Count(*svg, "<rect class=\"bar\""), 4);
  EXPECT_EQ(Count(*svg, "<path class=\"interval\""), 4);
  EXPECT_EQ(Count(*svg, "<line class=\"truth\""), 4);
  EXPECT_EQ(Count(*svg, "<polyline"), 0);
  EXPECT_EQ(Count(*svg, "<polygon"), 0);
  EXPECT_THAT(*svg, HasSubstr(">interval of each item<"));
  // Every bar has a positive height, and the bars' x ranges do not overlap.
  double previous_right = -1;
  for (size_t at = svg->find("<rect class=\"bar\""); at != std::string::npos;
       at = svg->find("<rect class=\"bar\"", at + 1)) {
    double x = 0, y = 0, width = 0, height = 0;
    ASSERT_EQ(std::sscanf(svg->c_str() + at,
                          "<rect class=\"bar\" x=\"%lf\" y=\"%lf\" "
                          "width=\"%lf\" height=\"%lf\"",
                          &x, &y, &width, &height),
              4);
    EXPECT_GT(height, 0);
    EXPECT_GT(x, previous_right);
    previous_right = x + width;
  }
}

// Before any report the band is infinite: it is clipped, never NaN.
TEST(WorkloadPlot, ClipsAnInfiniteBand) {
  WorkloadPlot plot = Cdf();
  plot.lower.assign(4, -INFINITY);
  plot.upper.assign(4, INFINITY);
  absl::StatusOr<std::string> svg = WorkloadPlotSvg(plot);
  ASSERT_OK(svg);
  EXPECT_THAT(*svg, Not(HasSubstr("nan")));
  EXPECT_THAT(*svg, Not(HasSubstr("inf")));
  // One query, all values equal: still a valid plot.
  WorkloadPlot one{.estimates = {0.5}, .lower = {0.5}, .upper = {0.5}};
  ASSERT_OK(WorkloadPlotSvg(one));
}

TEST(WorkloadPlot, RefusesInconsistentInput) {
  EXPECT_THAT(WorkloadPlotSvg({}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  WorkloadPlot short_band = Cdf();
  short_band.upper.pop_back();
  EXPECT_THAT(WorkloadPlotSvg(short_band),
              StatusIs(absl::StatusCode::kInvalidArgument));
  WorkloadPlot nan = Cdf();
  nan.estimates[1] = NAN;
  EXPECT_THAT(WorkloadPlotSvg(nan),
              StatusIs(absl::StatusCode::kInvalidArgument));
  WorkloadPlot short_truth = Cdf();
  short_truth.truth.pop_back();
  EXPECT_THAT(WorkloadPlotSvg(short_truth),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

}  // namespace
}  // namespace ldp
