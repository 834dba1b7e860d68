// The live study page's fragment: every number a reader looks for is there
// under its data-field, anything a study's creator typed is escaped, charts
// are the SVG `ldp results --plot` draws, and a failure shows as text.
#include "tools/study_page/study_page_view.h"

#include <cmath>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace ldp {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

v1::Study PageTestStudy() {
  v1::Study study;
  study.set_study_id(42);
  study.mutable_spec()->set_display_name(
      "Commute <script>alert(1)</script> & co");
  study.mutable_spec()->set_quorum(500);
  study.mutable_spec()->set_epsilon_cap_nanos(2'000'000'000);
  study.mutable_status()->set_state(v1::STUDY_ACTIVE);
  study.mutable_status()->set_num_agents(1234);
  study.mutable_status()->set_num_reports(1200);
  study.mutable_status()->set_max_spent_nanos(1'500'000'000);
  study.mutable_status()->add_round_ids(3);
  return study;
}

v1::Round PageTestRound() {
  v1::Round round;
  round.set_round_id(3);
  round.set_state(v1::ROUND_OPEN);
  v1::QuestionProgress* a = round.add_progress();
  a->set_question_id("item");
  a->set_num_assigned(700);
  a->set_num_reports(650);
  v1::QuestionProgress* b = round.add_progress();
  b->set_question_id("value");
  b->set_num_assigned(700);
  b->set_num_reports(550);
  return round;
}

v1::GetEstimatesResponse PageTestEstimates(int workload_answers) {
  v1::GetEstimatesResponse response;
  response.set_round_id(3);
  response.set_round_state(v1::ROUND_OPEN);
  v1::QuestionEstimate* mean = response.add_estimates();
  mean->set_question_id("value");
  mean->mutable_scalar()->set_value(0.4375);
  mean->mutable_scalar()->set_standard_error(0.02);
  mean->mutable_scalar()->mutable_interval()->set_lower(0.398);
  mean->mutable_scalar()->mutable_interval()->set_upper(0.477);
  mean->mutable_scalar()->mutable_interval()->set_confidence(0.95);
  v1::QuestionEstimate* hist = response.add_estimates();
  hist->set_question_id("item");
  for (const double f : {0.5, 0.3, 0.2}) {
    hist->mutable_histogram()->add_frequencies(f);
    hist->mutable_histogram()->add_interval_lower(f - 0.05);
    hist->mutable_histogram()->add_interval_upper(f + 0.05);
    hist->mutable_histogram()->add_labels(absl::StrCat("<item ", f, ">"));
  }
  v1::QuestionEstimate* w = response.add_estimates();
  w->set_question_id("cdf");
  for (int j = 0; j < workload_answers; ++j) {
    w->mutable_workload()->add_answers(j);
    w->mutable_workload()->add_band_lower(j - 1.0);
    w->mutable_workload()->add_band_upper(j + 1.0);
  }
  return response;
}

PageSnapshot FullSnapshot(int workload_answers = 10) {
  StudySnapshot study{
      .study = PageTestStudy(),
      .round = PageTestRound(),
      .estimates = std::make_shared<const v1::GetEstimatesResponse>(
          PageTestEstimates(workload_answers)),
      .progress = {{0, 100}, {2, 300}, {4, 550}}};
  return {.polled_at = absl::FromUnixSeconds(1'700'000'000),
          .studies = {study}};
}

TEST(StudyPageView, ShowsTheStudyAndItsNumbersUnderTheirFields) {
  const std::string html = RenderPageFragment(FullSnapshot());
  EXPECT_THAT(html, HasSubstr("data-study-id=\"42\""));
  EXPECT_THAT(html, HasSubstr("data-field=\"state\">STUDY_ACTIVE<"));
  EXPECT_THAT(html, HasSubstr("data-field=\"agents\">1234<"));
  EXPECT_THAT(html, HasSubstr("data-field=\"reports\">1200<"));
  EXPECT_THAT(html, HasSubstr("data-field=\"quorum\">500<"));
  EXPECT_THAT(html, HasSubstr("data-field=\"epsilon-spent\">1.5<"));
  EXPECT_THAT(html, HasSubstr("data-field=\"epsilon-cap\">2<"));
  EXPECT_THAT(html, HasSubstr("data-field=\"round-state\">ROUND_OPEN<"));
  EXPECT_THAT(html, HasSubstr("data-field=\"question-reports\">550<"));
  EXPECT_THAT(html, HasSubstr("data-field=\"estimate\">0.4375<"));
  EXPECT_THAT(html, HasSubstr("data-field=\"study-count\">1<"));
  EXPECT_THAT(html, HasSubstr("2023-11-14 22:13:20 UTC"));
  EXPECT_THAT(html, HasSubstr("interim"));
}

TEST(StudyPageView, EscapesWhatTheStudysCreatorTyped) {
  const std::string html = RenderPageFragment(FullSnapshot());
  EXPECT_THAT(html, Not(HasSubstr("<script>")));
  EXPECT_THAT(html, Not(HasSubstr("<item")));
  EXPECT_THAT(
      html,
      HasSubstr("Commute &lt;script&gt;alert(1)&lt;/script&gt; &amp; co"));
  EXPECT_THAT(html, HasSubstr("&lt;item 0.5&gt;"));
}

TEST(StudyPageView, DrawsProgressAgainstQuorumAndEveryChartedEstimate) {
  const std::string html = RenderPageFragment(FullSnapshot());
  // Progress, the histogram and the workload: three charts; the scalar is a
  // row.
  int charts = 0;
  for (size_t at = html.find("<svg"); at != std::string::npos;
       at = html.find("<svg", at + 1)) {
    ++charts;
  }
  EXPECT_EQ(charts, 3);
  EXPECT_THAT(html, HasSubstr(">quorum</text>"));
  EXPECT_THAT(html, HasSubstr(">fewest reports</text>"));
  EXPECT_THAT(html, HasSubstr("data-question=\"item\""));
  EXPECT_THAT(html, HasSubstr("data-question=\"cdf\""));
}

// The histogram's items are categories: three bars with their intervals.
// The CDF's queries are ordered: a line in a band.
TEST(StudyPageView, DrawsAHistogramAsBarsAndAWorkloadAsALine) {
  const std::string html = RenderPageFragment(FullSnapshot());
  auto chart = [&](const std::string& question) {
    const size_t at =
        html.find("<div class=\"estimate\" data-question=\"" + question + "\"");
    EXPECT_NE(at, std::string::npos) << question;
    const size_t end = html.find("</svg>", at);
    return html.substr(at, end - at);
  };
  auto count = [](const std::string& text, const std::string& what) {
    int n = 0;
    for (size_t at = text.find(what); at != std::string::npos;
         at = text.find(what, at + 1)) {
      ++n;
    }
    return n;
  };
  const std::string histogram = chart("item"), cdf = chart("cdf");
  EXPECT_EQ(count(histogram, "class=\"bar\""), 3);
  EXPECT_EQ(count(histogram, "class=\"interval\""), 3);
  EXPECT_EQ(count(histogram, "<polyline"), 0);
  EXPECT_EQ(count(cdf, "class=\"bar\""), 0);
  EXPECT_EQ(count(cdf, "<polyline class=\"estimate\""), 1);
}

TEST(StudyPageView, DrawsOnlyTheFirstValuesOfAHugeEstimateAndSaysSo) {
  const int m = static_cast<int>(kPageMaxPlottedValues) + 500;
  const std::string html = RenderPageFragment(FullSnapshot(m));
  EXPECT_THAT(html, HasSubstr(absl::StrCat("first ", kPageMaxPlottedValues,
                                           " of ", m, " drawn")));
}

// A RAPPOR question's 3 candidates, of which the decode selected two
// (the third has no interval): two bars, the larger first.
TEST(StudyPageView, DrawsTheSelectedCandidatesOfARapporQuestion) {
  PageSnapshot page = FullSnapshot();
  auto estimates =
      std::make_shared<v1::GetEstimatesResponse>(*page.studies[0].estimates);
  v1::HistogramEstimate* h =
      estimates->mutable_estimates(1)->mutable_histogram();
  h->set_frequencies(2, 0);
  h->set_interval_lower(2, -INFINITY);
  h->set_interval_upper(2, INFINITY);
  for (const double se : {0.02, 0.02, double{INFINITY}})
    h->add_standard_errors(se);
  for (const bool d : {true, false, false}) h->add_discovered(d);
  for (const double p : {1e-9, 0.2, 1.0}) h->add_p_values(p);
  h->set_false_discovery_rate(0.05);
  page.studies[0].estimates = estimates;
  const std::string html = RenderPageFragment(page);
  EXPECT_THAT(html, HasSubstr("2 of 3 candidates selected, 1 discovered"));
  const size_t at = html.find("<div class=\"estimate\" data-question=\"item\"");
  const std::string chart = html.substr(at, html.find("</svg>", at) - at);
  int bars = 0;
  for (size_t i = chart.find("class=\"bar\""); i != std::string::npos;
       i = chart.find("class=\"bar\"", i + 1)) {
    ++bars;
  }
  EXPECT_EQ(bars, 2);
}

TEST(StudyPageView, ShowsFailuresAsText) {
  PageSnapshot page = FullSnapshot();
  page.status = absl::UnavailableError("connection refused");
  page.studies[0].estimates.reset();
  page.studies[0].estimates_status =
      absl::FailedPreconditionError("no <reports>");
  const std::string html = RenderPageFragment(page);
  EXPECT_THAT(html,
              HasSubstr("The last poll of the server failed: UNAVAILABLE: "
                        "connection refused"));
  EXPECT_THAT(html,
              HasSubstr("estimates: FAILED_PRECONDITION: no &lt;reports&gt;"));
}

TEST(StudyPageView, SaysWhenNothingIsKnownYet) {
  EXPECT_THAT(RenderPageFragment(PageSnapshot{}), HasSubstr("Waiting"));
  PageSnapshot page = FullSnapshot();
  page.studies[0].round.reset();
  EXPECT_THAT(RenderPageFragment(page), HasSubstr("No round has started."));
}

TEST(StudyPageView, FewestReportsIsTheQuorumCriterion) {
  EXPECT_EQ(FewestReports(PageTestRound()), 550u);
  EXPECT_EQ(FewestReports(v1::Round()), 0u);
}

}  // namespace
}  // namespace ldp
