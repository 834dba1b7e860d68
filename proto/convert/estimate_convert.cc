// Released estimates between ldp.v1 and the common/ estimate types; see the
// header.
#include "proto/convert/estimate_convert.h"

#include <cmath>
#include <limits>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/estimation/confidence_interval.h"

namespace ldp {
namespace {

absl::Status Invalid(std::string_view what, std::string_view problem) {
  return absl::InvalidArgumentError(
      absl::StrCat(std::string(what), " ", std::string(problem)));
}

absl::Status CheckFinite(double x, std::string_view what) {
  if (std::isfinite(x)) return absl::OkStatus();
  return Invalid(what, absl::StrCat("must be finite, got ", x));
}

// A standard error: ≥ 0, +∞ allowed (no reports yet).
absl::Status CheckStandardError(double se, std::string_view what) {
  if (se >= 0) return absl::OkStatus();
  return Invalid(what, absl::StrCat("must be >= 0 (or +inf), got ", se));
}

absl::Status CheckCommon(int64_t num_reports, uint64_t epsilon_nanos,
                         double implemented_epsilon, double confidence) {
  if (num_reports < 0) {
    return Invalid("num_reports",
                   absl::StrCat("must be >= 0, got ", num_reports));
  }
  if (epsilon_nanos >
      static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    return Invalid(
        "epsilon_nanos",
        absl::StrCat("must be at most 2^63 - 1, got ", epsilon_nanos));
  }
  if (!(implemented_epsilon >= 0) || !std::isfinite(implemented_epsilon)) {
    return Invalid(
        "implemented_epsilon",
        absl::StrCat("must be finite and >= 0, got ", implemented_epsilon));
  }
  return ValidateConfidence(confidence);
}

absl::StatusOr<ConsistencyMethod> MethodFromName(const std::string& name) {
  if (auto m = ConsistencyMethodFromName(name)) return *m;
  return Invalid("post_processed.method",
                 absl::StrCat("\"", name, "\" is not a known method"));
}

absl::StatusOr<PostProcessedFrequencies> PostProcessedFromProto(
    const v1::PostProcessedHistogram& proto, int num_items) {
  ASSIGN_OR_RETURN(ConsistencyMethod method, MethodFromName(proto.method()));
  if (proto.frequencies_size() != num_items) {
    return Invalid("post_processed.frequencies",
                   absl::StrCat("has ", proto.frequencies_size(),
                                " entries; expected ", num_items));
  }
  for (double f : proto.frequencies()) {
    RETURN_IF_ERROR(CheckFinite(f, "post_processed.frequencies"));
  }
  return PostProcessedFrequencies{
      .method = method,
      .frequencies = {proto.frequencies().begin(), proto.frequencies().end()}};
}

// A candidate test's arrays: both or neither, one entry per item, p-values
// in [0, 1], and a rate in (0, 1).
absl::Status CheckCandidateArrays(const v1::HistogramEstimate& proto) {
  const int n = proto.frequencies_size();
  if (proto.p_values_size() == 0 && proto.discovered_size() == 0) {
    return absl::OkStatus();
  }
  if (proto.p_values_size() != n || proto.discovered_size() != n) {
    return Invalid("p_values and discovered",
                   absl::StrCat("have ", proto.p_values_size(), " and ",
                                proto.discovered_size(),
                                " entries; expected both 0 or ", n));
  }
  for (const double p : proto.p_values()) {
    if (!(p >= 0 && p <= 1)) {
      return Invalid("p_values", absl::StrCat("must be in [0, 1], got ", p));
    }
  }
  const double q = proto.false_discovery_rate();
  if (!(q > 0 && q < 1)) {
    return Invalid("false_discovery_rate",
                   absl::StrCat("must be in (0, 1), got ", q));
  }
  return absl::OkStatus();
}

absl::Status CheckHistogramArrays(const v1::HistogramEstimate& proto) {
  const int n = proto.frequencies_size();
  const std::pair<int, const char*> sizes[] = {
      {proto.standard_errors_size(), "standard_errors"},
      {proto.interval_lower_size(), "interval_lower"},
      {proto.interval_upper_size(), "interval_upper"},
  };
  for (const auto& [size, name] : sizes) {
    if (size != n) {
      return Invalid(name, absl::StrCat("has ", size, " entries but there are ",
                                        n, " frequencies"));
    }
  }
  if (proto.labels_size() != 0 && proto.labels_size() != n) {
    return Invalid("labels", absl::StrCat("has ", proto.labels_size(),
                                          " entries; expected 0 or ", n));
  }
  RETURN_IF_ERROR(CheckCandidateArrays(proto));
  for (int i = 0; i < n; ++i) {
    RETURN_IF_ERROR(CheckFinite(proto.frequencies(i), "frequencies"));
    RETURN_IF_ERROR(
        CheckStandardError(proto.standard_errors(i), "standard_errors"));
  }
  return absl::OkStatus();
}

absl::Status CheckWorkloadArrays(const v1::WorkloadEstimate& proto) {
  const int m = proto.answers_size();
  const std::pair<int, const char*> sizes[] = {
      {proto.standard_errors_size(), "standard_errors"},
      {proto.band_lower_size(), "band_lower"},
      {proto.band_upper_size(), "band_upper"},
  };
  for (const auto& [size, name] : sizes) {
    if (size != m) {
      return Invalid(name, absl::StrCat("has ", size, " entries but there are ",
                                        m, " answers"));
    }
  }
  if (proto.labels_size() != 0 && proto.labels_size() != m) {
    return Invalid("labels", absl::StrCat("has ", proto.labels_size(),
                                          " entries; expected 0 or ", m));
  }
  if (proto.consistent_answers_size() != 0 &&
      proto.consistent_answers_size() != m) {
    return Invalid("consistent_answers",
                   absl::StrCat("has ", proto.consistent_answers_size(),
                                " entries; expected 0 or ", m));
  }
  for (int j = 0; j < m; ++j) {
    RETURN_IF_ERROR(CheckFinite(proto.answers(j), "answers"));
    RETURN_IF_ERROR(
        CheckStandardError(proto.standard_errors(j), "standard_errors"));
    if (!(proto.band_lower(j) <= proto.band_upper(j))) {
      return Invalid(
          "band",
          absl::StrCat("of query ", j, " must have lower <= upper, got [",
                       proto.band_lower(j), ", ", proto.band_upper(j), "]"));
    }
  }
  for (double a : proto.consistent_answers()) {
    RETURN_IF_ERROR(CheckFinite(a, "consistent_answers"));
  }
  return absl::OkStatus();
}

absl::Status CheckNonNegative(double x, std::string_view what) {
  if (x >= 0 && std::isfinite(x)) return absl::OkStatus();
  return Invalid(what, absl::StrCat("must be finite and >= 0, got ", x));
}

}  // namespace

void ToProto(const ScalarRelease& release, v1::ScalarEstimate* proto) {
  proto->Clear();
  const ScalarEstimate& e = release.estimate;
  proto->set_value(e.value);
  proto->set_standard_error(e.standard_error);
  proto->mutable_interval()->set_lower(e.interval.lower);
  proto->mutable_interval()->set_upper(e.interval.upper);
  proto->mutable_interval()->set_confidence(e.confidence);
  proto->set_num_reports(e.num_reports);
  proto->set_epsilon_nanos(static_cast<uint64_t>(release.epsilon_nanos));
  proto->set_implemented_epsilon(e.epsilon);
  proto->set_mechanism(release.mechanism);
}

void ToProto(const HistogramRelease& release, v1::HistogramEstimate* proto) {
  proto->Clear();
  const HistogramEstimate& e = release.estimate;
  for (size_t i = 0; i < e.frequencies.size(); ++i) {
    const double se = i < e.variances.size()
                          ? std::sqrt(e.variances[i])
                          : std::numeric_limits<double>::infinity();
    const Interval interval =
        NormalInterval(e.frequencies[i], se, release.confidence);
    proto->add_frequencies(e.frequencies[i]);
    proto->add_standard_errors(se);
    proto->add_interval_lower(interval.lower);
    proto->add_interval_upper(interval.upper);
  }
  proto->set_confidence(release.confidence);
  for (const std::string& label : release.labels) proto->add_labels(label);
  proto->set_num_reports(e.num_reports);
  proto->set_epsilon_nanos(static_cast<uint64_t>(release.epsilon_nanos));
  proto->set_implemented_epsilon(e.epsilon);
  proto->set_mechanism(release.mechanism);
  if (const auto& test = e.candidates; test.has_value()) {
    proto->mutable_p_values()->Add(test->p_values.begin(),
                                   test->p_values.end());
    for (const bool d : test->discovered) proto->add_discovered(d);
    proto->set_false_discovery_rate(test->false_discovery_rate);
  }
  if (release.post_processed.has_value()) {
    v1::PostProcessedHistogram* p = proto->mutable_post_processed();
    p->set_method(
        std::string(ConsistencyMethodName(release.post_processed->method)));
    p->mutable_frequencies()->Add(release.post_processed->frequencies.begin(),
                                  release.post_processed->frequencies.end());
  }
}

void ToProto(const WorkloadRelease& release, v1::WorkloadEstimate* proto) {
  proto->Clear();
  const WorkloadAnswer& a = release.answer;
  const double z = a.band_z;
  for (size_t j = 0; j < a.answers.size(); ++j) {
    const double se = j < a.standard_errors.size()
                          ? a.standard_errors[j]
                          : std::numeric_limits<double>::infinity();
    // z·∞ with z = 0 would be NaN; an unknown error is an unbounded band.
    const double half =
        std::isinf(se) ? std::numeric_limits<double>::infinity() : z * se;
    proto->add_answers(a.answers[j]);
    proto->add_standard_errors(se);
    proto->add_band_lower(a.answers[j] - half);
    proto->add_band_upper(a.answers[j] + half);
  }
  proto->set_confidence(a.confidence);
  proto->set_band_z(z);
  for (const std::string& label : release.labels) proto->add_labels(label);
  proto->set_num_reports(a.num_reports);
  proto->set_epsilon_nanos(static_cast<uint64_t>(release.epsilon_nanos));
  proto->set_implemented_epsilon(a.epsilon);
  proto->set_strategy(release.strategy);
  proto->set_workload(release.workload);
  proto->set_predicted_v_max(release.predicted_v_max);
  proto->set_predicted_v_avg(release.predicted_v_avg);
  proto->set_best_fixed_strategy(release.best_fixed_strategy);
  proto->set_best_fixed_v_max(release.best_fixed_v_max);
  proto->set_gamma2_lower(release.gamma2_lower);
  proto->set_gamma2_upper(release.gamma2_upper);
  if (a.consistent_answers.has_value()) {
    proto->mutable_consistent_answers()->Add(a.consistent_answers->begin(),
                                             a.consistent_answers->end());
  }
}

void ToProto(std::string_view question_id, const EstimateRelease& release,
             v1::QuestionEstimate* proto) {
  proto->Clear();
  proto->set_question_id(std::string(question_id));
  if (const auto* scalar = std::get_if<ScalarRelease>(&release)) {
    ToProto(*scalar, proto->mutable_scalar());
  } else if (const auto* workload = std::get_if<WorkloadRelease>(&release)) {
    ToProto(*workload, proto->mutable_workload());
  } else {
    ToProto(std::get<HistogramRelease>(release), proto->mutable_histogram());
  }
}

absl::StatusOr<ScalarRelease> ScalarEstimateFromProto(
    const v1::ScalarEstimate& proto) {
  RETURN_IF_ERROR(CheckFinite(proto.value(), "value"));
  RETURN_IF_ERROR(CheckStandardError(proto.standard_error(), "standard_error"));
  const v1::ConfidenceInterval& ci = proto.interval();
  if (!(ci.lower() <= ci.upper())) {
    return Invalid("interval", absl::StrCat("must have lower <= upper, got [",
                                            ci.lower(), ", ", ci.upper(), "]"));
  }
  RETURN_IF_ERROR(CheckCommon(proto.num_reports(), proto.epsilon_nanos(),
                              proto.implemented_epsilon(), ci.confidence()));
  return ScalarRelease{
      .estimate = {.value = proto.value(),
                   .standard_error = proto.standard_error(),
                   .interval = {.lower = ci.lower(), .upper = ci.upper()},
                   .confidence = ci.confidence(),
                   .num_reports = proto.num_reports(),
                   .epsilon = proto.implemented_epsilon()},
      .epsilon_nanos = static_cast<int64_t>(proto.epsilon_nanos()),
      .mechanism = proto.mechanism()};
}

absl::StatusOr<HistogramRelease> HistogramEstimateFromProto(
    const v1::HistogramEstimate& proto) {
  RETURN_IF_ERROR(CheckHistogramArrays(proto));
  RETURN_IF_ERROR(CheckCommon(proto.num_reports(), proto.epsilon_nanos(),
                              proto.implemented_epsilon(), proto.confidence()));
  HistogramRelease release;
  release.estimate.num_reports = proto.num_reports();
  release.estimate.epsilon = proto.implemented_epsilon();
  release.estimate.frequencies.assign(proto.frequencies().begin(),
                                      proto.frequencies().end());
  release.confidence = proto.confidence();
  release.labels.assign(proto.labels().begin(), proto.labels().end());
  release.epsilon_nanos = static_cast<int64_t>(proto.epsilon_nanos());
  release.mechanism = proto.mechanism();
  release.estimate.variances.reserve(proto.standard_errors_size());
  for (double se : proto.standard_errors()) {
    release.estimate.variances.push_back(se * se);
  }
  if (proto.has_post_processed()) {
    ASSIGN_OR_RETURN(release.post_processed,
                     PostProcessedFromProto(proto.post_processed(),
                                            proto.frequencies_size()));
  }
  if (proto.p_values_size() != 0 || proto.discovered_size() != 0) {
    release.estimate.candidates = CandidateTest{
        .labels = release.labels,
        .p_values = {proto.p_values().begin(), proto.p_values().end()},
        .discovered = {proto.discovered().begin(), proto.discovered().end()},
        .false_discovery_rate = proto.false_discovery_rate()};
  }
  return release;
}

absl::StatusOr<WorkloadRelease> WorkloadEstimateFromProto(
    const v1::WorkloadEstimate& proto) {
  RETURN_IF_ERROR(CheckWorkloadArrays(proto));
  RETURN_IF_ERROR(CheckCommon(proto.num_reports(), proto.epsilon_nanos(),
                              proto.implemented_epsilon(), proto.confidence()));
  RETURN_IF_ERROR(CheckNonNegative(proto.band_z(), "band_z"));
  RETURN_IF_ERROR(CheckNonNegative(proto.predicted_v_max(), "predicted_v_max"));
  RETURN_IF_ERROR(CheckNonNegative(proto.predicted_v_avg(), "predicted_v_avg"));
  RETURN_IF_ERROR(
      CheckNonNegative(proto.best_fixed_v_max(), "best_fixed_v_max"));
  RETURN_IF_ERROR(CheckNonNegative(proto.gamma2_lower(), "gamma2_lower"));
  RETURN_IF_ERROR(CheckNonNegative(proto.gamma2_upper(), "gamma2_upper"));
  if (proto.gamma2_lower() > proto.gamma2_upper()) {
    return absl::InvalidArgumentError(
        absl::StrCat("gamma2_lower (", proto.gamma2_lower(),
                     ") exceeds gamma2_upper (", proto.gamma2_upper(), ")"));
  }
  WorkloadRelease release;
  WorkloadAnswer& a = release.answer;
  a.num_reports = proto.num_reports();
  a.epsilon = proto.implemented_epsilon();
  a.confidence = proto.confidence();
  a.answers.assign(proto.answers().begin(), proto.answers().end());
  a.standard_errors.assign(proto.standard_errors().begin(),
                           proto.standard_errors().end());
  a.band_z = proto.band_z();
  if (proto.consistent_answers_size() > 0) {
    a.consistent_answers.emplace(proto.consistent_answers().begin(),
                                 proto.consistent_answers().end());
  }
  release.labels.assign(proto.labels().begin(), proto.labels().end());
  release.epsilon_nanos = static_cast<int64_t>(proto.epsilon_nanos());
  release.strategy = proto.strategy();
  release.workload = proto.workload();
  release.predicted_v_max = proto.predicted_v_max();
  release.predicted_v_avg = proto.predicted_v_avg();
  release.best_fixed_strategy = proto.best_fixed_strategy();
  release.best_fixed_v_max = proto.best_fixed_v_max();
  release.gamma2_lower = proto.gamma2_lower();
  release.gamma2_upper = proto.gamma2_upper();
  return release;
}

absl::StatusOr<NamedEstimate> QuestionEstimateFromProto(
    const v1::QuestionEstimate& proto) {
  switch (proto.estimate_case()) {
    case v1::QuestionEstimate::kScalar: {
      ASSIGN_OR_RETURN(ScalarRelease scalar,
                       ScalarEstimateFromProto(proto.scalar()));
      return NamedEstimate{proto.question_id(), std::move(scalar)};
    }
    case v1::QuestionEstimate::kHistogram: {
      ASSIGN_OR_RETURN(HistogramRelease histogram,
                       HistogramEstimateFromProto(proto.histogram()));
      return NamedEstimate{proto.question_id(), std::move(histogram)};
    }
    case v1::QuestionEstimate::kWorkload: {
      ASSIGN_OR_RETURN(WorkloadRelease workload,
                       WorkloadEstimateFromProto(proto.workload()));
      return NamedEstimate{proto.question_id(), std::move(workload)};
    }
    case v1::QuestionEstimate::ESTIMATE_NOT_SET:
      break;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "estimate of question \"", proto.question_id(), "\" is not set"));
}

}  // namespace ldp
