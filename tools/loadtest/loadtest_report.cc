#include "tools/loadtest/loadtest_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>
#include <variant>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "client/core/atomic_file.h"
#include "common/base/status_macros.h"
#include "common/workload/strategies/workload.h"
#include "proto/convert/estimate_convert.h"
#include "proto/ldp/v1/analyst_service.pb.h"
#include "tools/loadtest/loadtest_shuffle.h"
#include "tools/loadtest_core/estimate_comparison.h"

namespace ldp {
namespace {

// W·h over the agents whose workload report was acknowledged.
absl::StatusOr<std::vector<double>> WorkloadTruth(const Shared& shared) {
  ASSIGN_OR_RETURN(const Workload workload,
                   Workload::Create(*shared.config.workload));
  const std::vector<double> h = shared.totals.workload_truth.Frequencies();
  const Eigen::VectorXd answers =
      workload.Answer(Eigen::Map<const Eigen::VectorXd>(h.data(), h.size()));
  return std::vector<double>(answers.data(), answers.data() + answers.size());
}

absl::Status WriteTruth(const std::string& path,
                        const std::vector<double>& truth) {
  std::string json = absl::StrCat("{\"", kLoadtestWorkloadId, "\": [");
  for (size_t j = 0; j < truth.size(); ++j) {
    absl::StrAppendFormat(&json, "%s%.17g", j == 0 ? "" : ", ", truth[j]);
  }
  absl::StrAppend(&json, "]}\n");
  return WriteFileAtomically(path, json);
}

absl::Status PrintWorkloadEstimate(const std::string& id,
                                   const WorkloadRelease& w,
                                   const Shared& shared,
                                   const EstimateReportOptions& options,
                                   std::vector<EstimateSeries>& series) {
  ASSIGN_OR_RETURN(const std::vector<double> truth, WorkloadTruth(shared));
  const WorkloadAnswer& a = w.answer;
  if (a.answers.size() != truth.size()) {
    return absl::InternalError(
        absl::StrCat("the server answered ", a.answers.size(),
                     " queries, the workload has ", truth.size()));
  }
  int covered = 0;
  double max_abs_z = 0, max_error = 0;
  EstimateSeries& out = series.emplace_back(EstimateSeries{
      .question = id,
      .title = absl::StrCat(id, ": ", w.workload),
      .subtitle = absl::StrFormat(
          "%s, n = %d, epsilon %.4g, %g%% simultaneous band", w.strategy,
          a.num_reports, a.epsilon, a.confidence * 100),
      .simultaneous_band = true});
  for (size_t j = 0; j < truth.size(); ++j) {
    const double error = a.answers[j] - truth[j];
    const double half = a.band_z * a.standard_errors[j];
    out.values.push_back(
        {.label = j < w.labels.size() ? w.labels[j] : absl::StrCat("q", j),
         .truth = truth[j],
         .estimate = a.answers[j],
         .standard_error = a.standard_errors[j],
         .interval = {.lower = a.answers[j] - half,
                      .upper = a.answers[j] + half},
         .z = a.standard_errors[j] > 0 ? error / a.standard_errors[j] : 0,
         .covered = std::abs(error) <= half});
    covered += std::abs(error) <= half;
    max_error = std::max(max_error, std::abs(error));
    if (a.standard_errors[j] > 0) {
      max_abs_z = std::max(max_abs_z, std::abs(error) / a.standard_errors[j]);
    }
  }
  std::printf("\n%s: %s, strategy %s, n = %lld, epsilon %.4g\n", id.c_str(),
              w.workload.c_str(), w.strategy.c_str(),
              static_cast<long long>(a.num_reports), a.epsilon);
  std::printf("  predicted per-user variance: v_max %.4g, v_avg %.4g\n",
              w.predicted_v_max, w.predicted_v_avg);
  if (!w.best_fixed_strategy.empty()) {
    std::printf("  best fixed strategy: %s, v_max %.4g\n",
                w.best_fixed_strategy.c_str(), w.best_fixed_v_max);
  }
  if (w.gamma2_upper > 0) {
    std::printf("  gamma2(W) certified in [%.6g, %.6g]\n", w.gamma2_lower,
                w.gamma2_upper);
  }
  std::printf(
      "  %d of %zu answers inside the simultaneous %g%% band "
      "(+- %.3g se); max |error| %.4g, max |z| %.3g\n",
      covered, truth.size(), a.confidence * 100, a.band_z, max_error,
      max_abs_z);
  const size_t rows = std::min<size_t>(truth.size(), options.top);
  std::printf("  %-26s %10s %10s %10s\n", "query", "truth", "estimate", "se");
  for (size_t j = 0; j < rows; ++j) {
    std::printf("  %-26s %10.5f %10.5f %10.4g\n",
                j < w.labels.size() ? w.labels[j].c_str()
                                    : absl::StrCat("q", j).c_str(),
                truth[j], a.answers[j], a.standard_errors[j]);
  }
  if (rows < truth.size()) std::printf("  ... %zu more\n", truth.size() - rows);
  if (const std::string& path = options.truth_out; !path.empty()) {
    RETURN_IF_ERROR(WriteTruth(path, truth));
    std::printf(
        "  true answers written to %s (ldp results %llu --plot=FILE.svg "
        "--truth=%s)\n",
        path.c_str(), static_cast<unsigned long long>(shared.study_id),
        path.c_str());
  }
  return absl::OkStatus();
}

absl::Status PrintEstimate(const NamedEstimate& named, const Shared& shared,
                           const EstimateReportOptions& options,
                           std::vector<EstimateSeries>& series) {
  const Totals& t = shared.totals;
  if (const auto* w = std::get_if<WorkloadRelease>(&named.estimate)) {
    return PrintWorkloadEstimate(named.question_id, *w, shared, options,
                                 series);
  }
  if (const auto* h = std::get_if<HistogramRelease>(&named.estimate);
      h != nullptr && h->estimate.candidates.has_value()) {
    std::printf("\n%s: RAPPOR over %zu candidates, n = %lld, epsilon %.4g\n",
                named.question_id.c_str(), h->estimate.frequencies.size(),
                static_cast<long long>(h->estimate.num_reports),
                h->estimate.epsilon);
    std::printf("%s", FormatRapporOutcome(
                          CompareRappor(*h, t.histogram_truth.Frequencies()),
                          h->estimate.candidates->false_discovery_rate)
                          .c_str());
    return absl::OkStatus();
  }
  if (const auto* h = std::get_if<HistogramRelease>(&named.estimate)) {
    ASSIGN_OR_RETURN(
        HistogramComparison comparison,
        CompareHistogram(h->estimate, t.histogram_truth.Frequencies(),
                         h->labels, h->confidence));
    std::printf("\n%s: histogram of item, %s, n = %lld, epsilon %.4g\n",
                named.question_id.c_str(), h->mechanism.c_str(),
                static_cast<long long>(h->estimate.num_reports),
                h->estimate.epsilon);
    std::printf("%s",
                FormatHistogramComparison(comparison, options.top).c_str());
    series.push_back(
        {.question = named.question_id,
         .title = absl::StrCat(named.question_id, ": histogram of item"),
         .subtitle = absl::StrFormat(
             "%s, n = %d, epsilon %.4g, %g%% interval per item", h->mechanism,
             h->estimate.num_reports, h->estimate.epsilon, h->confidence * 100),
         .values = comparison.items});
    return absl::OkStatus();
  }
  const auto& s = std::get<ScalarRelease>(named.estimate);
  std::printf(
      "\n%s: mean of value, %s, n = %lld, epsilon %.4g (population mean "
      "%.6f)\n",
      named.question_id.c_str(), s.mechanism.c_str(),
      static_cast<long long>(s.estimate.num_reports), s.estimate.epsilon,
      shared.population.Truth().MeanValue());
  const ComparedValue mean =
      CompareScalar(s.estimate, t.mean_truth.MeanValue(), "mean value");
  std::printf("%s", FormatScalarComparison(mean).c_str());
  series.push_back(
      {.question = named.question_id,
       .title = absl::StrCat(named.question_id, ": mean of value"),
       .subtitle = absl::StrFormat("%s, n = %d, epsilon %.4g", s.mechanism,
                                   s.estimate.num_reports, s.estimate.epsilon),
       .values = {mean}});
  return absl::OkStatus();
}

}  // namespace

void PrintStudyCreated(const Shared& shared, const PopulationOptions& options,
                       const std::string& distribution, double epsilon) {
  const LoadtestConfig& config = shared.config;
  const PopulationSource& population = shared.population;
  std::printf(
      "Created study %llu%s: %lld agents, %s items over [0, %u), epsilon %g\n",
      static_cast<unsigned long long>(shared.study_id),
      config.workload.has_value()
          ? absl::StrCat(" (", config.workload_name, " workload)").c_str()
          : "",
      static_cast<long long>(population.num_agents()), distribution.c_str(),
      population.domain_size(), epsilon);
  if (config.shuffle.has_value()) {
    PrintShuffledStudy(shared.run.shuffler, config);
  }
  if (options.kind == PopulationKind::kMaskedParity) {
    std::printf(
        "Masked parity: label = parity(x & 0x%x) flipped with probability %g\n",
        population.parity_mask(), options.parity_noise);
  }
}

void PrintThroughput(const Shared& shared, absl::Duration elapsed) {
  const Totals& t = shared.totals;
  const double seconds = absl::ToDoubleSeconds(elapsed);
  if (shared.run.bulk) {
    std::printf(
        "Bulk: %lld agents in %.2f s (%d relay streams, %d per batch)\n",
        static_cast<long long>(t.sessions), seconds, shared.run.streams,
        shared.run.batch);
  } else if (shared.run.in_flight > 0) {
    std::printf(
        "Sessions: %lld agents in %.2f s (%d in flight on gRPC callbacks, %d "
        "channels)\n",
        static_cast<long long>(t.sessions), seconds, shared.run.in_flight,
        shared.run.channels);
  } else {
    std::printf("Sessions: %lld agents in %.2f s (%d threads, %d channels)\n",
                static_cast<long long>(t.sessions), seconds, shared.run.threads,
                shared.run.channels);
  }
  std::printf(
      "  tasks %lld, refused %lld, reports accepted %lld, rejected %lld\n",
      static_cast<long long>(t.tasks), static_cast<long long>(t.refusals),
      static_cast<long long>(t.accepted), static_cast<long long>(t.rejected));
  std::printf("  failures: enroll %lld, poll %lld, upload %lld\n",
              static_cast<long long>(t.enroll_failures),
              static_cast<long long>(t.poll_failures),
              static_cast<long long>(t.upload_failures));
  for (const auto& [what, count] : t.errors) {
    std::printf("  errors %-34s %lld\n", what.c_str(),
                static_cast<long long>(count));
  }
  if (!t.first_error.empty())
    std::printf("  first error: %s\n", t.first_error.c_str());
  std::printf("  %s: %.0f reports/s (incl. enroll and poll)\n",
              shared.run.shuffler.empty() ? "throughput"
                                          : "submit throughput to the shuffler",
              seconds > 0 ? t.accepted / seconds : 0.0);
  std::printf(
      "  ack latency per upload message: p50 %s, p90 %s, p99 %s, max %s over "
      "%lld uploads\n",
      absl::FormatDuration(shared.ack_latency.Quantile(0.5)).c_str(),
      absl::FormatDuration(shared.ack_latency.Quantile(0.9)).c_str(),
      absl::FormatDuration(shared.ack_latency.Quantile(0.99)).c_str(),
      absl::FormatDuration(shared.ack_latency.Quantile(1.0)).c_str(),
      static_cast<long long>(shared.ack_latency.count()));
}

LoadtestSummary Summary(const Shared& shared, absl::Duration elapsed,
                        std::map<std::string, std::string> configuration) {
  const Totals& t = shared.totals;
  return LoadtestSummary{.mode = shared.run.bulk ? "bulk" : "sessions",
                         .configuration = std::move(configuration),
                         .agents = t.sessions,
                         .reports_accepted = t.accepted,
                         .reports_rejected = t.rejected,
                         .seconds = absl::ToDoubleSeconds(elapsed),
                         .uploads = shared.ack_latency.count(),
                         .p50 = shared.ack_latency.Quantile(0.5),
                         .p90 = shared.ack_latency.Quantile(0.9),
                         .p99 = shared.ack_latency.Quantile(0.99),
                         .max = shared.ack_latency.Quantile(1.0),
                         .errors = t.errors};
}

absl::Status PrintEstimates(const AnalystClient& analyst, const Shared& shared,
                            const EstimateReportOptions& options,
                            std::vector<EstimateSeries>& series) {
  v1::GetEstimatesRequest request;
  request.set_study_id(shared.study_id);
  ASSIGN_OR_RETURN(const v1::GetEstimatesResponse response,
                   analyst.GetEstimates(request));
  if (shared.config.workload.has_value()) {
    std::printf(
        "\nThe study's answers (truth = the agents whose report was "
        "acknowledged):\n");
  }
  if (!shared.config.workload.has_value()) {
    std::printf(
        "\nEstimates of study %llu (truth = the agents whose report was "
        "acknowledged%s):\n",
        static_cast<unsigned long long>(shared.study_id),
        shared.run.shuffler.empty() ? "" : " by the shuffler");
  }
  for (const v1::QuestionEstimate& proto : response.estimates()) {
    ASSIGN_OR_RETURN(NamedEstimate named, QuestionEstimateFromProto(proto));
    RETURN_IF_ERROR(PrintEstimate(named, shared, options, series));
    if (proto.has_shuffled()) PrintShuffledGuarantee(proto.shuffled());
  }
  return absl::OkStatus();
}

absl::Status ReportRun(
    const std::vector<std::unique_ptr<AnalystClient>>& replicas,
    const Shared& shared, absl::Duration elapsed,
    const ThroughputTimeline& timeline, const RunReportOptions& options) {
  if (shared.totals.accepted == 0) {
    // Nothing to estimate; say why instead of printing empty estimates.
    return absl::FailedPreconditionError(absl::StrCat(
        "no report was accepted",
        shared.totals.first_error.empty()
            ? std::string()
            : absl::StrCat(" (first error: ", shared.totals.first_error, ")")));
  }
  bool estimates = true;
  if (shared.config.shuffle.has_value()) {
    ASSIGN_OR_RETURN(estimates, WaitForShuffler(*replicas.front(), shared,
                                                options.shuffle_wait_seconds));
  }
  std::vector<EstimateSeries> series;
  if (estimates) {
    RETURN_IF_ERROR(
        PrintEstimates(*replicas.front(), shared, options.estimates, series));
    RETURN_IF_ERROR(CheckReplicasAgree(replicas, shared.study_id));
  }
  if (const std::string& dir = options.out_dir; !dir.empty()) {
    RETURN_IF_ERROR(
        WriteLoadtestOutput(dir, Summary(shared, elapsed, options.flag_values),
                            timeline.PerSecond(), series));
    std::printf(
        "\nReport written to %s/ (summary.json, throughput.csv/.svg, "
        "estimates.csv, one SVG per question)\n",
        dir.c_str());
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::unique_ptr<AnalystClient>>> ConnectReplicas(
    const std::vector<std::string>& servers, const LoadtestConfig& config,
    const std::shared_ptr<grpc::ChannelCredentials>& credentials) {
  if (servers.empty()) return absl::InvalidArgumentError("--server is empty");
  std::vector<std::unique_ptr<AnalystClient>> replicas;
  for (const std::string& server : servers) {
    replicas.push_back(
        AnalystClient::Connect({.server = server,
                                .bearer_token = config.analyst_token,
                                .credentials = credentials,
                                .timeout = absl::Seconds(60),
                                // Planning an optimized workload strategy at
                                // CreateStudy can take minutes the first time.
                                .create_study_timeout = absl::Minutes(15)}));
  }
  return replicas;
}

absl::Status WaitForStudyOnReplicas(
    const std::vector<std::unique_ptr<AnalystClient>>& replicas,
    uint64_t study_id) {
  for (size_t r = 1; r < replicas.size(); ++r) {
    v1::GetStudyRequest request;
    request.set_study_id(study_id);
    const absl::Status status = replicas[r]->GetStudy(request).status();
    if (!status.ok()) {
      return absl::Status(status.code(),
                          absl::StrCat("replica ", replicas[r]->server(),
                                       " does not have study ", study_id, ": ",
                                       status.message()));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckReplicasAgree(
    const std::vector<std::unique_ptr<AnalystClient>>& replicas,
    uint64_t study_id) {
  std::string first;
  for (size_t r = 0; r < replicas.size(); ++r) {
    v1::GetEstimatesRequest request;
    request.set_study_id(study_id);
    ASSIGN_OR_RETURN(const v1::GetEstimatesResponse response,
                     replicas[r]->GetEstimates(request));
    std::string bytes;
    response.SerializeToString(&bytes);
    if (r == 0) {
      first = std::move(bytes);
    } else if (bytes != first) {
      return absl::InternalError(absl::StrCat("replica ", replicas[r]->server(),
                                              " gives other estimates than ",
                                              replicas[0]->server()));
    }
  }
  if (replicas.size() > 1) {
    std::printf("\nAll %zu replicas give the same estimates.\n",
                replicas.size());
  }
  return absl::OkStatus();
}

}  // namespace ldp
