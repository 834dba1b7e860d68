// The live study page's HTML fragment; see the header.
#include "tools/study_page/study_page_view.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tools/loadtest_core/markup.h"
#include "tools/loadtest_core/workload_plot.h"
#include "tools/study_page/estimate_plots.h"

namespace ldp {
namespace {

std::string Number(double v) { return absl::StrFormat("%.6g", v); }

// <tr><th>name</th><td data-field="field">value</td></tr>; value is escaped.
std::string FactRow(std::string_view name, std::string_view field,
                    std::string_view value) {
  return absl::StrCat("<tr><th>", EscapeMarkup(name), "</th><td data-field=\"",
                      EscapeMarkup(field), "\">", EscapeMarkup(value),
                      "</td></tr>\n");
}

std::string Problem(std::string_view what, const absl::Status& status) {
  return absl::StrCat("<p class=\"problem\">", EscapeMarkup(what), ": ",
                      EscapeMarkup(status.ToString()), "</p>\n");
}

// The plot as inline SVG, or why it cannot be drawn.
std::string Chart(const WorkloadPlot& plot) {
  absl::StatusOr<std::string> svg = WorkloadPlotSvg(plot);
  if (!svg.ok()) return Problem("chart not drawn", svg.status());
  return absl::StrCat("<figure class=\"chart\">", *svg, "</figure>\n");
}

std::string Facts(const v1::Study& study) {
  const v1::StudyStatus& s = study.status();
  std::string rows;
  absl::StrAppend(
      &rows, FactRow("State", "state", v1::StudyState_Name(s.state())),
      FactRow("Mode", "mode", v1::StudyMode_Name(study.spec().mode())),
      FactRow("Rounds", "rounds", absl::StrCat(s.round_ids_size())),
      FactRow("Agents", "agents", absl::StrCat(s.num_agents())),
      FactRow("Reports", "reports", absl::StrCat(s.num_reports())),
      FactRow("Quorum per question", "quorum",
              study.spec().quorum() == 0 ? "none (deadline only)"
                                         : absl::StrCat(study.spec().quorum())),
      FactRow("ε charged (largest agent spend)", "epsilon-spent",
              Number(s.max_spent_nanos() * 1e-9)),
      FactRow("ε cap per agent", "epsilon-cap",
              Number(study.spec().epsilon_cap_nanos() * 1e-9)));
  return absl::StrCat("<table class=\"facts\">\n", rows, "</table>\n");
}

std::string ProgramResult(const v1::Study& study) {
  if (!study.status().has_program_result()) return "";
  const v1::ProgramResult& r = study.status().program_result();
  std::string out = absl::StrCat(
      "<h3>Program ", EscapeMarkup(study.spec().program().name()),
      r.done() ? ": result" : ": so far",
      "</h3>\n<p data-field=\"program-summary\">", EscapeMarkup(r.summary()),
      "</p>\n<table class=\"values\">\n");
  for (const v1::ProgramValue& v : r.values()) {
    absl::StrAppend(&out, "<tr><th>", EscapeMarkup(v.name()), "</th><td>",
                    Number(v.value()), "</td></tr>\n");
  }
  return absl::StrCat(out, "</table>\n");
}

std::string ProgressChart(const StudySnapshot& s) {
  if (s.progress.empty()) return "";
  WorkloadPlot plot{.title = "Reports of the latest round against the quorum",
                    .subtitle = absl::StrFormat(
                        "fewest reports of any question, over %.0f s of polls",
                        s.progress.back().seconds),
                    .x_name = "poll",
                    .band_name = "",
                    .estimate_name = "fewest reports",
                    .truth_name = "quorum"};
  for (const ProgressPoint& p : s.progress) {
    plot.estimates.push_back(static_cast<double>(p.fewest_reports));
    if (s.study.spec().quorum() > 0) {
      plot.truth.push_back(static_cast<double>(s.study.spec().quorum()));
    }
  }
  plot.lower = plot.upper = plot.estimates;
  return Chart(plot);
}

std::string Round(const StudySnapshot& s) {
  if (!s.round_status.ok()) return Problem("latest round", s.round_status);
  if (!s.round.has_value()) return "<p>No round has started.</p>\n";
  const v1::Round& r = *s.round;
  std::string out = absl::StrFormat(
      "<h3>Round <span data-field=\"round-id\">%d</span>: <span "
      "data-field=\"round-state\">%s</span></h3>\n<table class=\"progress\">\n"
      "<tr><th>Question</th><th>Reports</th></tr>\n",
      r.round_id(), EscapeMarkup(v1::RoundState_Name(r.state())));
  for (const v1::QuestionProgress& p : r.progress()) {
    absl::StrAppendFormat(&out,
                          "<tr data-question=\"%s\"><td>%s</td>"
                          "<td data-field=\"question-reports\">%d</td></tr>\n",
                          EscapeMarkup(p.question_id()),
                          EscapeMarkup(p.question_id()), p.num_reports());
  }
  return absl::StrCat(out, "</table>\n", ProgressChart(s));
}

std::string ScalarRow(const std::string& id, const v1::ScalarEstimate& e) {
  return absl::StrFormat(
      "<table class=\"values\" data-question=\"%s\"><tr><th>%s</th>"
      "<td data-field=\"estimate\">%s</td><td>se %s</td><td>[%s, %s] at "
      "%g%%</td><td>n=%d, ε=%s, %s</td></tr></table>\n",
      EscapeMarkup(id), EscapeMarkup(id), Number(e.value()),
      Number(e.standard_error()), Number(e.interval().lower()),
      Number(e.interval().upper()), e.interval().confidence() * 100,
      e.num_reports(), Number(e.implemented_epsilon()),
      EscapeMarkup(e.mechanism()));
}

std::string Estimate(const v1::QuestionEstimate& q) {
  const std::string id = EscapeMarkup(q.question_id());
  if (q.has_scalar()) return ScalarRow(q.question_id(), q.scalar());
  std::string chart;
  if (q.has_histogram()) {
    chart = Chart(HistogramEstimatePlot(q.question_id(), q.histogram(),
                                        kPageMaxPlottedValues));
  } else if (q.has_workload()) {
    chart = Chart(WorkloadEstimatePlot(q.question_id(), q.workload(),
                                       kPageMaxPlottedValues));
  } else {
    chart = "<p>No estimate yet.</p>\n";
  }
  return absl::StrCat("<div class=\"estimate\" data-question=\"", id, "\">\n",
                      chart, "</div>\n");
}

std::string Estimates(const StudySnapshot& s) {
  if (!s.estimates_status.ok()) return Problem("estimates", s.estimates_status);
  if (s.estimates == nullptr) return "";
  const v1::GetEstimatesResponse& e = *s.estimates;
  std::string out = absl::StrFormat(
      "<h3>Estimates of round %d (%s)</h3>\n", e.round_id(),
      e.round_state() == v1::ROUND_OPEN ? "interim: the round is open"
                                        : "final");
  for (const v1::QuestionEstimate& q : e.estimates()) {
    absl::StrAppend(&out, Estimate(q));
  }
  return out;
}

std::string Study(const StudySnapshot& s) {
  const v1::Study& study = s.study;
  return absl::StrFormat(
      "<section class=\"study\" id=\"study-%d\" data-study-id=\"%d\">\n"
      "<h2>Study %d: <span data-field=\"name\">%s</span></h2>\n%s%s%s%s"
      "</section>\n",
      study.study_id(), study.study_id(), study.study_id(),
      EscapeMarkup(study.spec().display_name()), Facts(study),
      ProgramResult(study), Round(s), Estimates(s));
}

}  // namespace

uint64_t FewestReports(const v1::Round& round) {
  if (round.progress().empty()) return 0;
  uint64_t fewest = round.progress(0).num_reports();
  for (const v1::QuestionProgress& p : round.progress()) {
    fewest = std::min<uint64_t>(fewest, p.num_reports());
  }
  return fewest;
}

std::string RenderPageFragment(const PageSnapshot& snapshot) {
  if (snapshot.polled_at == absl::InfinitePast() && snapshot.status.ok()) {
    return "<p class=\"polled\">Waiting for the first answer from the "
           "server…</p>\n";
  }
  std::string out = absl::StrFormat(
      "<p class=\"polled\">Polled <time data-field=\"polled-at\">%s</time>: "
      "<span data-field=\"study-count\">%d</span> studies.</p>\n",
      absl::FormatTime("%Y-%m-%d %H:%M:%S UTC", snapshot.polled_at,
                       absl::UTCTimeZone()),
      snapshot.studies.size());
  if (!snapshot.status.ok()) {
    absl::StrAppend(
        &out, Problem("The last poll of the server failed", snapshot.status));
  }
  for (const StudySnapshot& s : snapshot.studies)
    absl::StrAppend(&out, Study(s));
  return out;
}

}  // namespace ldp
