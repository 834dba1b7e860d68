// SVG text for a workload's answers; see the header.
#include "tools/loadtest_core/workload_plot.h"

#include <algorithm>
#include <cmath>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tools/loadtest_core/markup.h"

namespace ldp {
namespace {

constexpr double kWidth = 900;
constexpr double kHeight = 520;
constexpr double kLeft = 70;
constexpr double kRight = 20;
constexpr double kTop = 60;
constexpr double kBottom = 70;
constexpr int kTicks = 6;

// Maps query index and value to pixels. Lines run from edge to edge; bars
// sit in the middle of m equal slots.
class Frame {
 public:
  Frame(size_t m, double lo, double hi, bool slots = false)
      : m_(m), lo_(lo), hi_(hi), slots_(slots) {}
  double X(size_t j) const {
    const double width = kWidth - kLeft - kRight;
    if (slots_) return kLeft + SlotWidth() * (static_cast<double>(j) + 0.5);
    return m_ == 1 ? kLeft + width / 2
                   : kLeft + width * static_cast<double>(j) /
                                 static_cast<double>(m_ - 1);
  }
  double SlotWidth() const {
    return (kWidth - kLeft - kRight) / static_cast<double>(m_);
  }
  double Y(double v) const {
    const double height = kHeight - kTop - kBottom;
    const double clipped = std::clamp(v, lo_, hi_);
    return kTop + height * (hi_ - clipped) / (hi_ - lo_);
  }

 private:
  size_t m_;
  double lo_, hi_;
  bool slots_;
};

std::string Points(const Frame& f, const std::vector<double>& values) {
  std::string points;
  for (size_t j = 0; j < values.size(); ++j) {
    absl::StrAppendFormat(&points, "%s%.2f,%.2f", j == 0 ? "" : " ", f.X(j),
                          f.Y(values[j]));
  }
  return points;
}

// The value range to show: estimates, truth and the finite band ends, with
// a 5% margin.
std::pair<double, double> Range(const WorkloadPlot& p) {
  double lo = INFINITY, hi = -INFINITY;
  auto take = [&](double v) {
    if (std::isfinite(v)) {
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  };
  for (size_t j = 0; j < p.estimates.size(); ++j) {
    take(p.estimates[j]);
    take(p.lower[j]);
    take(p.upper[j]);
    if (!p.truth.empty()) take(p.truth[j]);
  }
  if (p.bars) take(0);  // bars rise from 0
  if (!(hi > lo)) {
    lo -= 0.5;
    hi += 0.5;
  }
  const double pad = 0.05 * (hi - lo);
  return {lo - pad, hi + pad};
}

// The arrays agree in length and every plotted value is finite.
absl::Status ValidatePlot(const WorkloadPlot& p) {
  const size_t m = p.estimates.size();
  if (m == 0) return absl::InvalidArgumentError("nothing to plot: no queries");
  if (p.lower.size() != m || p.upper.size() != m ||
      (!p.truth.empty() && p.truth.size() != m)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "plot arrays disagree: ", m, " estimates, ", p.lower.size(), "/",
        p.upper.size(), " band ends, ", p.truth.size(), " true values"));
  }
  for (size_t j = 0; j < m; ++j) {
    if (!std::isfinite(p.estimates[j]) ||
        (!p.truth.empty() && !std::isfinite(p.truth[j]))) {
      return absl::InvalidArgumentError(
          absl::StrCat("query ", j, " has a non-finite estimate or truth"));
    }
  }
  return absl::OkStatus();
}

// Both axes: value ticks at round numbers, query ticks and the x label.
void AppendAxes(const WorkloadPlot& p, const Frame& f, double lo, double hi,
                std::string& svg) {
  const size_t m = p.estimates.size();
  const double x0 = kLeft, x1 = kWidth - kRight;
  const double y0 = kHeight - kBottom, y1 = kTop;
  absl::StrAppendFormat(&svg,
                        "<g stroke=\"#333\"><line x1=\"%.0f\" y1=\"%.0f\" "
                        "x2=\"%.0f\" y2=\"%.0f\"/><line x1=\"%.0f\" "
                        "y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\"/></g>\n",
                        x0, y0, x1, y0, x0, y0, x0, y1);
  // Value ticks at round numbers (1, 2 or 5 times a power of ten).
  const double raw = (hi - lo) / kTicks;
  const double magnitude = std::pow(10, std::floor(std::log10(raw)));
  double step = magnitude;
  for (double factor : {1.0, 2.0, 5.0, 10.0}) {
    step = factor * magnitude;
    if (step >= raw) break;
  }
  for (double v = std::ceil(lo / step) * step; v <= hi + 1e-9 * step;
       v += step) {
    const double shown = std::abs(v) < 1e-9 * step ? 0 : v;
    absl::StrAppendFormat(
        &svg,
        "<line x1=\"%.0f\" y1=\"%.2f\" x2=\"%.0f\" y2=\"%.2f\" "
        "stroke=\"#ddd\"/><text x=\"%.0f\" y=\"%.2f\" "
        "text-anchor=\"end\">%.6g</text>\n",
        x0, f.Y(shown), x1, f.Y(shown), x0 - 6, f.Y(shown) + 4, shown);
  }
  // Query ticks: first, middle, last index.
  for (size_t j : {size_t{0}, (m - 1) / 2, m - 1}) {
    absl::StrAppendFormat(&svg,
                          "<text x=\"%.2f\" y=\"%.0f\" "
                          "text-anchor=\"middle\">%d</text>\n",
                          f.X(j), y0 + 16, j);
  }
  absl::StrAppendFormat(
      &svg, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">%s%s</text>\n",
      (x0 + x1) / 2, y0 + 36, EscapeMarkup(p.x_name),
      p.first_label.empty() && p.last_label.empty()
          ? std::string()
          : absl::StrCat(" (", EscapeMarkup(p.first_label), " … ",
                         EscapeMarkup(p.last_label), ")"));
}

// One bar per value, from 0, and its interval as an error bar with caps;
// the truth (if given) as a dashed mark across each bar.
void AppendBars(const WorkloadPlot& p, const Frame& f, std::string& svg) {
  const double width = std::max(1.0, 0.7 * f.SlotWidth());
  const double cap = std::min(8.0, width / 2);
  absl::StrAppend(&svg, "<g class=\"bars\">\n");
  for (size_t j = 0; j < p.estimates.size(); ++j) {
    const double x = f.X(j), top = f.Y(std::max(0.0, p.estimates[j]));
    const double bottom = f.Y(std::min(0.0, p.estimates[j]));
    const double lo = f.Y(p.lower[j]), hi = f.Y(p.upper[j]);
    absl::StrAppendFormat(
        &svg,
        "<rect class=\"bar\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
        "height=\"%.2f\" fill=\"#6baed6\"/>"
        "<path class=\"interval\" d=\"M%.2f %.2fV%.2fM%.2f %.2fH%.2fM%.2f "
        "%.2fH%.2f\" stroke=\"#08306b\" stroke-width=\"1.5\" "
        "fill=\"none\"/>\n",
        x - width / 2, top, width, bottom - top, x, hi, lo, x - cap, hi,
        x + cap, x - cap, lo, x + cap);
    if (!p.truth.empty()) {
      absl::StrAppendFormat(
          &svg,
          "<line class=\"truth\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" "
          "y2=\"%.2f\" stroke=\"#d62728\" stroke-width=\"2\" "
          "stroke-dasharray=\"4,2\"/>\n",
          x - width / 2, f.Y(p.truth[j]), x + width / 2, f.Y(p.truth[j]));
    }
  }
  absl::StrAppend(&svg, "</g>\n");
}

// The band (if named), the truth (if given) and the estimates.
void AppendSeries(const WorkloadPlot& p, const Frame& f, std::string& svg) {
  if (p.bars) return AppendBars(p, f, svg);
  const size_t m = p.estimates.size();
  // The band: upper ends left to right, then lower ends back.
  std::string band = Points(f, p.upper);
  std::vector<double> lower_back(p.lower.rbegin(), p.lower.rend());
  std::string back;
  for (size_t i = 0; i < m; ++i) {
    absl::StrAppendFormat(&back, " %.2f,%.2f", f.X(m - 1 - i),
                          f.Y(lower_back[i]));
  }
  if (!p.band_name.empty()) {
    absl::StrAppend(&svg,
                    "<polygon fill=\"#9ecae1\" fill-opacity=\"0.6\" "
                    "stroke=\"none\" points=\"",
                    band, back, "\"/>\n");
  }
  if (!p.truth.empty()) {
    absl::StrAppend(&svg,
                    "<polyline fill=\"none\" stroke=\"#d62728\" "
                    "stroke-width=\"1.5\" stroke-dasharray=\"5,3\" points=\"",
                    Points(f, p.truth), "\"/>\n");
  }
  absl::StrAppend(&svg,
                  "<polyline class=\"estimate\" fill=\"none\" "
                  "stroke=\"#08519c\" stroke-width=\"1.5\" points=\"",
                  Points(f, p.estimates), "\"/>\n");
}

// Width of a legend entry: its 14-pixel key, a gap, and the text at about
// 7 pixels per character of the 12-pixel sans-serif font.
double LegendWidth(std::string_view text) {
  size_t characters = 0;
  for (const char c : text) characters += (c & 0xC0) != 0x80;  // UTF-8 starts
  return 20 + 7.0 * static_cast<double>(characters) + 16;
}

// The legend, in the header to the right (never over the data): the band,
// the estimate and the truth, each as wide as its name.
void AppendLegend(const WorkloadPlot& p, std::string& svg) {
  const double ly = 30;
  double width = LegendWidth(p.estimate_name);
  if (!p.band_name.empty()) width += LegendWidth(p.band_name);
  if (!p.truth.empty()) width += LegendWidth(p.truth_name);
  double x = kWidth - kRight - width;
  absl::StrAppend(&svg, "<g>");
  // Keys: the band's shade or an error bar; the line or a bar.
  if (!p.band_name.empty()) {
    absl::StrAppend(
        &svg, p.bars
                  ? absl::StrFormat("<path d=\"M%.0f %.0fV%.0fM%.0f %.0fH%.0f"
                                    "M%.0f %.0fH%.0f\" stroke=\"#08306b\" "
                                    "stroke-width=\"1.5\"/>",
                                    x + 7, ly, ly + 10, x + 3, ly, x + 11,
                                    x + 3, ly + 10, x + 11)
                  : absl::StrFormat("<rect x=\"%.0f\" y=\"%.0f\" "
                                    "width=\"14\" height=\"10\" "
                                    "fill=\"#9ecae1\"/>",
                                    x, ly));
    absl::StrAppendFormat(&svg, "<text x=\"%.0f\" y=\"%.0f\">%s</text>", x + 20,
                          ly + 10, EscapeMarkup(p.band_name));
    x += LegendWidth(p.band_name);
  }
  absl::StrAppend(
      &svg, p.bars
                ? absl::StrFormat("<rect x=\"%.0f\" y=\"%.0f\" width=\"14\" "
                                  "height=\"10\" fill=\"#6baed6\"/>",
                                  x, ly)
                : absl::StrFormat("<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" "
                                  "y2=\"%.0f\" stroke=\"#08519c\" "
                                  "stroke-width=\"2\"/>",
                                  x, ly + 5, x + 14, ly + 5));
  absl::StrAppendFormat(&svg, "<text x=\"%.0f\" y=\"%.0f\">%s</text>", x + 20,
                        ly + 10, EscapeMarkup(p.estimate_name));
  x += LegendWidth(p.estimate_name);
  if (!p.truth.empty()) {
    absl::StrAppendFormat(
        &svg,
        "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" "
        "stroke=\"#d62728\" stroke-width=\"2\" stroke-dasharray=\"5,3\"/>"
        "<text x=\"%.0f\" y=\"%.0f\">%s</text>",
        x, ly + 5, x + 14, ly + 5, x + 20, ly + 10, EscapeMarkup(p.truth_name));
  }
  absl::StrAppend(&svg, "</g>\n");
}

}  // namespace

absl::StatusOr<std::string> WorkloadPlotSvg(const WorkloadPlot& p) {
  if (absl::Status valid = ValidatePlot(p); !valid.ok()) return valid;
  const size_t m = p.estimates.size();
  const auto [lo, hi] = Range(p);
  const Frame f(m, lo, hi, p.bars);
  std::string svg = absl::StrFormat(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
      "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" "
      "font-size=\"12\">\n"
      "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
      kWidth, kHeight, kWidth, kHeight);
  absl::StrAppendFormat(&svg,
                        "<text x=\"%.0f\" y=\"24\" font-size=\"16\">%s</text>\n"
                        "<text x=\"%.0f\" y=\"44\" fill=\"#555\">%s</text>\n",
                        kLeft, EscapeMarkup(p.title), kLeft,
                        EscapeMarkup(p.subtitle));
  AppendAxes(p, f, lo, hi, svg);
  AppendSeries(p, f, svg);
  AppendLegend(p, svg);
  absl::StrAppend(&svg, "</svg>\n");
  return svg;
}

}  // namespace ldp
