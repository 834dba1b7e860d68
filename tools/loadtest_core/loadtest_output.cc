// ldp-loadtest's timeline and --out files; see the header.
#include "tools/loadtest_core/loadtest_output.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "client/core/atomic_file.h"
#include "common/base/status_macros.h"
#include "nlohmann/json.hpp"
#include "tools/loadtest_core/workload_plot.h"

namespace ldp {
namespace {

using Json = nlohmann::json;

// A field for CSV: quoted when it holds a comma, a quote or a newline.
std::string Csv(const std::string& field) {
  if (field.find_first_of(",\"\n\r") == std::string::npos) return field;
  std::string out = "\"";
  for (const char c : field) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

// Question ids become file names: keep [A-Za-z0-9_-], replace the rest.
std::string FileStem(const std::string& id) {
  std::string out;
  for (const char c : id) {
    out += std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'
               ? c
               : '_';
  }
  return out.empty() ? "question" : out;
}

double Seconds(absl::Duration d) { return absl::ToDoubleSeconds(d); }

std::string SummaryJson(const LoadtestSummary& s) {
  Json errors = Json::object();
  for (const auto& [what, count] : s.errors) errors[what] = count;
  Json configuration = Json::object();
  for (const auto& [flag, value] : s.configuration) configuration[flag] = value;
  const Json json = {{"mode", s.mode},
                     {"configuration", configuration},
                     {"agents", s.agents},
                     {"reports_accepted", s.reports_accepted},
                     {"reports_rejected", s.reports_rejected},
                     {"seconds", s.seconds},
                     {"reports_per_second",
                      s.seconds > 0 ? s.reports_accepted / s.seconds : 0.0},
                     {"ack_latency_seconds",
                      {{"uploads", s.uploads},
                       {"p50", Seconds(s.p50)},
                       {"p90", Seconds(s.p90)},
                       {"p99", Seconds(s.p99)},
                       {"max", Seconds(s.max)}}},
                     {"errors", errors}};
  return json.dump(2) + "\n";
}

absl::StatusOr<std::string> ThroughputSvg(
    const std::vector<int64_t>& per_second, const LoadtestSummary& s) {
  WorkloadPlot plot{
      .title = "ldp-loadtest: reports acknowledged per second",
      .subtitle = absl::StrFormat(
          "%s mode, %d agents, %.0f reports/s overall", s.mode, s.agents,
          s.seconds > 0 ? s.reports_accepted / s.seconds : 0.0),
      .x_name = "second of the run",
      .band_name = "",
      .estimate_name = "reports/s"};
  for (const int64_t n : per_second)
    plot.estimates.push_back(static_cast<double>(n));
  if (plot.estimates.empty()) plot.estimates.push_back(0);
  plot.lower = plot.upper = plot.estimates;
  return WorkloadPlotSvg(plot);
}

absl::StatusOr<std::string> EstimateSvg(const EstimateSeries& series) {
  WorkloadPlot plot{.title = series.title,
                    .subtitle = series.subtitle,
                    .x_name = series.simultaneous_band ? "query" : "item",
                    .band_name = series.simultaneous_band
                                     ? "simultaneous band"
                                     : "interval of each value"};
  for (const ComparedValue& v : series.values) {
    plot.estimates.push_back(v.estimate);
    plot.lower.push_back(v.interval.lower);
    plot.upper.push_back(v.interval.upper);
    plot.truth.push_back(v.truth);
  }
  if (!series.values.empty()) {
    plot.first_label = series.values.front().label;
    plot.last_label = series.values.back().label;
  }
  return WorkloadPlotSvg(plot);
}

}  // namespace

void ThroughputTimeline::Record(absl::Time at, int64_t n) {
  const int64_t second =
      std::max<int64_t>(0, absl::ToInt64Seconds(at - start_));
  absl::MutexLock lock(&mutex_);
  if (counts_.size() <= static_cast<size_t>(second))
    counts_.resize(second + 1, 0);
  counts_[second] += n;
}

std::vector<int64_t> ThroughputTimeline::PerSecond() const {
  absl::MutexLock lock(&mutex_);
  return counts_;
}

absl::Status WriteLoadtestOutput(const std::string& dir,
                                 const LoadtestSummary& summary,
                                 const std::vector<int64_t>& per_second,
                                 const std::vector<EstimateSeries>& estimates) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) {
    return absl::PermissionDeniedError(absl::StrCat(
        "--out: cannot create directory ", dir, ": ", error.message()));
  }
  const std::filesystem::path out(dir);
  RETURN_IF_ERROR(WriteFileAtomically((out / "summary.json").string(),
                                      SummaryJson(summary)));
  std::string csv = "second,reports\n";
  for (size_t i = 0; i < per_second.size(); ++i) {
    absl::StrAppend(&csv, i, ",", per_second[i], "\n");
  }
  RETURN_IF_ERROR(WriteFileAtomically((out / "throughput.csv").string(), csv));
  ASSIGN_OR_RETURN(const std::string throughput_svg,
                   ThroughputSvg(per_second, summary));
  RETURN_IF_ERROR(
      WriteFileAtomically((out / "throughput.svg").string(), throughput_svg));
  std::string values =
      "question,label,truth,estimate,standard_error,lower,upper,z,covered\n";
  for (const EstimateSeries& series : estimates) {
    for (const ComparedValue& v : series.values) {
      absl::StrAppendFormat(&values,
                            "%s,%s,%.17g,%.17g,%.17g,%.17g,%.17g,%.6g,%d\n",
                            Csv(series.question), Csv(v.label), v.truth,
                            v.estimate, v.standard_error, v.interval.lower,
                            v.interval.upper, v.z, v.covered ? 1 : 0);
    }
    if (series.values.empty()) continue;
    ASSIGN_OR_RETURN(const std::string svg, EstimateSvg(series));
    RETURN_IF_ERROR(WriteFileAtomically(
        (out / (FileStem(series.question) + ".svg")).string(), svg));
  }
  return WriteFileAtomically((out / "estimates.csv").string(), values);
}

}  // namespace ldp
