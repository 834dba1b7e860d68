#include "proto/convert/estimate_convert.h"

#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "common/estimation/confidence_interval.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/proto/convert/convert_testing.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using ::ldp::testing::kInvalid;
using ::ldp::testing::ProtoEquals;
using ::ldp::testing::StatusIs;
using ::testing::HasSubstr;
constexpr double kInf = std::numeric_limits<double>::infinity();

ScalarRelease Scalar() {
  return {.estimate = {.value = 12.5,
                       .standard_error = 0.75,
                       .interval = {.lower = 11, .upper = 14},
                       .confidence = 0.95,
                       .num_reports = 4000,
                       .epsilon = 0.9999999},
          .epsilon_nanos = 1'000'000'000,
          .mechanism = "hybrid"};
}

HistogramRelease Histogram() {
  return {.estimate = {.num_reports = 100,
                       .epsilon = 0.5,
                       .frequencies = {0.25, -0.05, 0.8},
                       .variances = {0.01, 0.02, 0.0003}},
          .confidence = 0.9,
          .labels = {"a", "b", "c"},
          .epsilon_nanos = 500'000'000,
          .mechanism = "oue",
          .post_processed = PostProcessedFrequencies{
              .method = ConsistencyMethod::kClipAndNormalize,
              .frequencies = {0.25 / 1.05, 0, 0.8 / 1.05}}};
}

WorkloadRelease ExampleWorkloadRelease() {
  WorkloadRelease release;
  WorkloadAnswer& a = release.answer;
  a.num_reports = 20000;
  a.epsilon = 0.99;
  a.confidence = 0.999;
  a.answers = {0.1, 0.35, 1.02};
  a.standard_errors = {0.01, 0.02, 0.015};
  a.band_z = 3.9;
  a.consistent_answers = std::vector<double>{0.1, 0.35, 1.0};
  release.labels = {"x ≤ 0", "x ≤ 1", "x ≤ 2"};
  release.epsilon_nanos = 1'000'000'000;
  release.strategy = "hierarchical b=4, OUE";
  release.workload = "prefix N=3";
  release.predicted_v_max = 12.5;
  release.predicted_v_avg = 7.25;
  release.best_fixed_strategy = "haar, HRR";
  release.best_fixed_v_max = 14.5;
  release.gamma2_lower = 1.70;
  release.gamma2_upper = 1.71;
  return release;
}

TEST(EstimateConvert, WorkloadDerivesTheBandAndRoundTrips) {
  const WorkloadRelease release = ExampleWorkloadRelease();
  v1::WorkloadEstimate proto;
  ToProto(release, &proto);
  ASSERT_EQ(proto.answers_size(), 3);
  for (int j = 0; j < 3; ++j) {
    const double half = 3.9 * release.answer.standard_errors[j];
    EXPECT_EQ(proto.band_lower(j), release.answer.answers[j] - half);
    EXPECT_EQ(proto.band_upper(j), release.answer.answers[j] + half);
  }
  EXPECT_EQ(proto.labels(1), "x ≤ 1");
  EXPECT_EQ(proto.strategy(), "hierarchical b=4, OUE");
  EXPECT_EQ(proto.workload(), "prefix N=3");
  EXPECT_EQ(proto.consistent_answers(2), 1.0);
  absl::StatusOr<WorkloadRelease> back = WorkloadEstimateFromProto(proto);
  ASSERT_OK(back);
  EXPECT_EQ(back->answer.answers, release.answer.answers);
  EXPECT_EQ(back->answer.standard_errors, release.answer.standard_errors);
  EXPECT_EQ(back->answer.band_z, 3.9);
  EXPECT_EQ(back->answer.confidence, 0.999);
  EXPECT_EQ(back->answer.num_reports, 20000);
  EXPECT_EQ(back->answer.consistent_answers, release.answer.consistent_answers);
  EXPECT_EQ(back->labels, release.labels);
  EXPECT_EQ(back->predicted_v_max, 12.5);
  EXPECT_EQ(back->predicted_v_avg, 7.25);
  EXPECT_EQ(back->best_fixed_strategy, "haar, HRR");
  EXPECT_EQ(back->best_fixed_v_max, 14.5);
  EXPECT_EQ(back->gamma2_lower, 1.70);
  EXPECT_EQ(back->gamma2_upper, 1.71);
  EXPECT_EQ(back->epsilon_nanos, 1'000'000'000);
  v1::WorkloadEstimate again;
  ToProto(*back, &again);
  EXPECT_TRUE(ProtoEquals(again, proto));

  // Before any report: infinite errors give an unbounded band, never NaN.
  WorkloadRelease empty = ExampleWorkloadRelease();
  empty.answer.num_reports = 0;
  empty.answer.band_z = 0;
  empty.answer.standard_errors = {kInf, kInf, kInf};
  empty.answer.consistent_answers.reset();
  ToProto(empty, &proto);
  EXPECT_EQ(proto.band_lower(0), -kInf);
  EXPECT_EQ(proto.band_upper(0), kInf);
  EXPECT_EQ(proto.consistent_answers_size(), 0);
  EXPECT_OK(WorkloadEstimateFromProto(proto));
}

TEST(EstimateConvert, RejectsMalformedWorkloads) {
  struct Case {
    const char* name;
    void (*mutate)(v1::WorkloadEstimate*);
    const char* message;
  };
  using P = v1::WorkloadEstimate;
  const Case cases[] = {
      {"NaN answer", [](P* p) { p->set_answers(0, NAN); },
       "answers must be finite"},
      {"negative error", [](P* p) { p->set_standard_errors(1, -1); },
       "standard_errors must be >= 0"},
      {"short band", [](P* p) { p->mutable_band_upper()->RemoveLast(); },
       "band_upper has 2 entries"},
      {"inverted band", [](P* p) { p->set_band_lower(2, 5); },
       "lower <= upper"},
      {"label count", [](P* p) { p->add_labels("extra"); },
       "labels has 4 entries"},
      {"consistent count",
       [](P* p) { p->mutable_consistent_answers()->RemoveLast(); },
       "consistent_answers has 2 entries"},
      {"negative z", [](P* p) { p->set_band_z(-1); }, "band_z"},
      {"infinite v_max", [](P* p) { p->set_predicted_v_max(INFINITY); },
       "predicted_v_max"},
      {"confidence 0", [](P* p) { p->set_confidence(0); }, "confidence"},
      {"inverted gamma2", [](P* p) { p->set_gamma2_lower(2); },
       "gamma2_lower (2) exceeds gamma2_upper"},
      {"negative best fixed", [](P* p) { p->set_best_fixed_v_max(-1); },
       "best_fixed_v_max"},
  };
  for (const Case& c : cases) {
    v1::WorkloadEstimate proto;
    ToProto(ExampleWorkloadRelease(), &proto);
    c.mutate(&proto);
    absl::StatusOr<WorkloadRelease> release = WorkloadEstimateFromProto(proto);
    EXPECT_THAT(release, StatusIs(kInvalid)) << c.name;
    EXPECT_THAT(release.status().message(), HasSubstr(c.message)) << c.name;
  }
}

TEST(EstimateConvert, ScalarRoundTripsExactly) {
  v1::ScalarEstimate proto;
  ToProto(Scalar(), &proto);
  EXPECT_EQ(proto.interval().confidence(), 0.95);
  EXPECT_EQ(proto.implemented_epsilon(), 0.9999999);
  absl::StatusOr<ScalarRelease> back = ScalarEstimateFromProto(proto);
  ASSERT_OK(back);
  const ScalarRelease want = Scalar();
  EXPECT_EQ(back->estimate.value, want.estimate.value);
  EXPECT_EQ(back->estimate.standard_error, want.estimate.standard_error);
  EXPECT_EQ(back->estimate.interval.lower, want.estimate.interval.lower);
  EXPECT_EQ(back->estimate.interval.upper, want.estimate.interval.upper);
  EXPECT_EQ(back->estimate.confidence, want.estimate.confidence);
  EXPECT_EQ(back->estimate.num_reports, want.estimate.num_reports);
  EXPECT_EQ(back->estimate.epsilon, want.estimate.epsilon);
  EXPECT_EQ(back->epsilon_nanos, want.epsilon_nanos);
  EXPECT_EQ(back->mechanism, want.mechanism);
  v1::ScalarEstimate again;
  ToProto(*back, &again);
  EXPECT_TRUE(ProtoEquals(again, proto));
}

TEST(EstimateConvert, HistogramDerivesStandardErrorsAndIntervals) {
  const HistogramRelease release = Histogram();
  v1::HistogramEstimate proto;
  ToProto(release, &proto);
  ASSERT_EQ(proto.frequencies_size(), 3);
  for (int i = 0; i < 3; ++i) {
    const double se = std::sqrt(release.estimate.variances[i]);
    const Interval interval =
        NormalInterval(release.estimate.frequencies[i], se, 0.9);
    EXPECT_EQ(proto.frequencies(i), release.estimate.frequencies[i]);
    EXPECT_EQ(proto.standard_errors(i), se);
    EXPECT_EQ(proto.interval_lower(i), interval.lower);
    EXPECT_EQ(proto.interval_upper(i), interval.upper);
  }
  EXPECT_EQ(proto.labels(2), "c");
  EXPECT_EQ(proto.post_processed().method(), "clip_and_normalize");
  EXPECT_EQ(proto.mechanism(), "oue");
  EXPECT_EQ(proto.epsilon_nanos(), 500'000'000u);
  EXPECT_EQ(proto.implemented_epsilon(), 0.5);
}

TEST(EstimateConvert, HistogramRoundTrips) {
  v1::HistogramEstimate proto;
  ToProto(Histogram(), &proto);
  absl::StatusOr<HistogramRelease> back = HistogramEstimateFromProto(proto);
  ASSERT_OK(back);
  const HistogramRelease want = Histogram();
  EXPECT_EQ(back->estimate.frequencies, want.estimate.frequencies);
  for (int i = 0; i < 3; ++i) {
    // √v squared is v to within one rounding.
    EXPECT_NEAR(back->estimate.variances[i], want.estimate.variances[i],
                4e-16 * want.estimate.variances[i]);
  }
  EXPECT_EQ(back->labels, want.labels);
  EXPECT_EQ(back->confidence, want.confidence);
  ASSERT_TRUE(back->post_processed.has_value());
  EXPECT_EQ(back->post_processed->method, want.post_processed->method);
  EXPECT_EQ(back->post_processed->frequencies,
            want.post_processed->frequencies);
  // And the wire form is a fixed point (√(s²) = s exactly).
  v1::HistogramEstimate again;
  ToProto(*back, &again);
  EXPECT_TRUE(ProtoEquals(again, proto));
}

TEST(EstimateConvert, EmptyRoundsCarryInfiniteUncertainty) {
  HistogramRelease empty = Histogram();
  empty.estimate.num_reports = 0;
  empty.estimate.variances = {kInf, kInf, kInf};
  v1::HistogramEstimate proto;
  ToProto(empty, &proto);
  EXPECT_EQ(proto.standard_errors(0), kInf);
  EXPECT_EQ(proto.interval_lower(0), -kInf);
  EXPECT_OK(HistogramEstimateFromProto(proto));
  ScalarRelease scalar = Scalar();
  scalar.estimate.standard_error = kInf;
  v1::ScalarEstimate scalar_proto;
  ToProto(scalar, &scalar_proto);
  EXPECT_OK(ScalarEstimateFromProto(scalar_proto));
}

TEST(EstimateConvert, QuestionEstimatesRoundTrip) {
  for (const EstimateRelease& release :
       {EstimateRelease(Scalar()), EstimateRelease(Histogram()),
        EstimateRelease(ExampleWorkloadRelease())}) {
    v1::QuestionEstimate proto;
    ToProto("q1", release, &proto);
    absl::StatusOr<NamedEstimate> back = QuestionEstimateFromProto(proto);
    ASSERT_OK(back);
    EXPECT_EQ(back->question_id, "q1");
    EXPECT_EQ(back->estimate.index(), release.index());
    v1::QuestionEstimate again;
    ToProto(back->question_id, back->estimate, &again);
    EXPECT_TRUE(ProtoEquals(again, proto));
  }
  v1::QuestionEstimate unset;
  unset.set_question_id("q2");
  EXPECT_THAT(QuestionEstimateFromProto(unset), StatusIs(kInvalid));
}

TEST(EstimateConvert, RejectsMalformedScalars) {
  using P = v1::ScalarEstimate;
  struct Case {
    const char* name;
    void (*mutate)(P*);
    const char* message;
  };
  const Case cases[] = {
      {"NaN value", [](P* p) { p->set_value(NAN); }, "value must be finite"},
      {"infinite value", [](P* p) { p->set_value(kInf); },
       "value must be finite"},
      {"negative error", [](P* p) { p->set_standard_error(-1); },
       "standard_error must be >= 0"},
      {"NaN error", [](P* p) { p->set_standard_error(NAN); },
       "standard_error must be >= 0"},
      {"inverted interval", [](P* p) { p->mutable_interval()->set_lower(20); },
       "lower <= upper"},
      {"NaN interval", [](P* p) { p->mutable_interval()->set_upper(NAN); },
       "lower <= upper"},
      {"confidence 0", [](P* p) { p->mutable_interval()->set_confidence(0); },
       "confidence"},
      {"no interval", [](P* p) { p->clear_interval(); }, "confidence"},
      {"negative n", [](P* p) { p->set_num_reports(-1); },
       "num_reports must be >= 0"},
      {"epsilon beyond int64",
       [](P* p) { p->set_epsilon_nanos(uint64_t{1} << 63); }, "epsilon_nanos"},
      {"NaN implemented epsilon", [](P* p) { p->set_implemented_epsilon(NAN); },
       "implemented_epsilon"},
  };
  for (const Case& c : cases) {
    P proto;
    ToProto(Scalar(), &proto);
    c.mutate(&proto);
    absl::StatusOr<ScalarRelease> release = ScalarEstimateFromProto(proto);
    EXPECT_THAT(release, StatusIs(kInvalid)) << c.name;
    EXPECT_THAT(release.status().message(), HasSubstr(c.message)) << c.name;
  }
}

TEST(EstimateConvert, RejectsMalformedHistograms) {
  struct Case {
    const char* name;
    void (*mutate)(v1::HistogramEstimate*);
    const char* message;
  };
  const Case cases[] = {
      {"NaN frequency",
       [](v1::HistogramEstimate* p) { p->set_frequencies(1, NAN); },
       "frequencies must be finite"},
      {"negative error",
       [](v1::HistogramEstimate* p) { p->set_standard_errors(0, -0.1); },
       "standard_errors must be >= 0"},
      {"short errors",
       [](v1::HistogramEstimate* p) {
         p->mutable_standard_errors()->RemoveLast();
       },
       "standard_errors has 2 entries"},
      {"short intervals",
       [](v1::HistogramEstimate* p) {
         p->mutable_interval_upper()->RemoveLast();
       },
       "interval_upper has 2 entries"},
      {"wrong label count",
       [](v1::HistogramEstimate* p) { p->add_labels("d"); },
       "labels has 4 entries"},
      {"confidence 1", [](v1::HistogramEstimate* p) { p->set_confidence(1); },
       "confidence"},
      {"negative n", [](v1::HistogramEstimate* p) { p->set_num_reports(-5); },
       "num_reports"},
      {"negative implemented epsilon",
       [](v1::HistogramEstimate* p) { p->set_implemented_epsilon(-1); },
       "implemented_epsilon"},
      {"unknown post method",
       [](v1::HistogramEstimate* p) {
         p->mutable_post_processed()->set_method("norm_magic");
       },
       "\"norm_magic\" is not a known method"},
      {"short post vector",
       [](v1::HistogramEstimate* p) {
         p->mutable_post_processed()->mutable_frequencies()->RemoveLast();
       },
       "post_processed.frequencies has 2 entries"},
      {"NaN post value",
       [](v1::HistogramEstimate* p) {
         p->mutable_post_processed()->set_frequencies(0, NAN);
       },
       "post_processed.frequencies must be finite"},
  };
  for (const Case& c : cases) {
    v1::HistogramEstimate proto;
    ToProto(Histogram(), &proto);
    c.mutate(&proto);
    absl::StatusOr<HistogramRelease> release =
        HistogramEstimateFromProto(proto);
    EXPECT_THAT(release, StatusIs(kInvalid)) << c.name;
    EXPECT_THAT(release.status().message(), HasSubstr(c.message)) << c.name;
  }
}

// A RAPPOR question's answer: the candidates as labels, with p-values and
// discoveries.
HistogramRelease CandidateHistogram() {
  HistogramRelease release = Histogram();
  release.post_processed.reset();
  release.estimate.candidates =
      CandidateTest{.labels = release.labels,
                    .p_values = {1e-9, 0.4, 1},
                    .discovered = {true, false, false},
                    .false_discovery_rate = 0.1};
  return release;
}

TEST(EstimateConvert, CandidateTestsRoundTrip) {
  v1::HistogramEstimate proto;
  ToProto(CandidateHistogram(), &proto);
  EXPECT_EQ(proto.p_values_size(), 3);
  EXPECT_TRUE(proto.discovered(0));
  EXPECT_EQ(proto.false_discovery_rate(), 0.1);
  absl::StatusOr<HistogramRelease> back = HistogramEstimateFromProto(proto);
  ASSERT_OK(back);
  ASSERT_TRUE(back->estimate.candidates.has_value());
  const CandidateTest& test = *back->estimate.candidates;
  EXPECT_EQ(test.labels, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(test.p_values, (std::vector<double>{1e-9, 0.4, 1}));
  EXPECT_EQ(test.discovered, (std::vector<bool>{true, false, false}));
  EXPECT_EQ(test.false_discovery_rate, 0.1);
  v1::HistogramEstimate plain;
  ToProto(Histogram(), &plain);
  EXPECT_EQ(plain.p_values_size(), 0);
  EXPECT_FALSE(HistogramEstimateFromProto(plain)->estimate.candidates);
}

TEST(EstimateConvert, RejectsMalformedCandidateTests) {
  const std::pair<void (*)(v1::HistogramEstimate*), const char*> cases[] = {
      {[](v1::HistogramEstimate* p) { p->mutable_p_values()->RemoveLast(); },
       "p_values and discovered have 2 and 3 entries"},
      {[](v1::HistogramEstimate* p) { p->clear_discovered(); },
       "have 3 and 0 entries"},
      {[](v1::HistogramEstimate* p) { p->set_p_values(1, 1.5); },
       "p_values must be in [0, 1]"},
      {[](v1::HistogramEstimate* p) { p->set_p_values(1, NAN); },
       "p_values must be in [0, 1]"},
      {[](v1::HistogramEstimate* p) { p->set_false_discovery_rate(0); },
       "false_discovery_rate must be in (0, 1)"},
  };
  for (const auto& [mutate, message] : cases) {
    v1::HistogramEstimate proto;
    ToProto(CandidateHistogram(), &proto);
    mutate(&proto);
    EXPECT_THAT(HistogramEstimateFromProto(proto),
                StatusIs(kInvalid, HasSubstr(message)));
  }
}

}  // namespace
}  // namespace ldp
