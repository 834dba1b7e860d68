// Aggregator statistics as Prometheus metric families; see the header.
#include "server/metrics/metrics_endpoint.h"

#include <initializer_list>
#include <limits>
#include <string_view>
#include <utility>

#include "server/prometheus/metric_families.h"

namespace ldp {
namespace {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;

MetricFamily Histogram(std::string name, std::string help,
                       const LatencyHistogram::Snapshot& snapshot) {
  MetricFamily family =
      MetricFamilyOf(std::move(name), std::move(help), MetricType::Histogram);
  ClientMetric metric;
  metric.histogram.sample_count = snapshot.count;
  metric.histogram.sample_sum = snapshot.sum_seconds;
  uint64_t cumulative = 0;
  for (size_t i = 0; i < LatencyHistogram::kBounds.size(); ++i) {
    cumulative += snapshot.counts[i];
    metric.histogram.bucket.push_back(
        {.cumulative_count = cumulative,
         .upper_bound = LatencyHistogram::kBounds[i]});
  }
  metric.histogram.bucket.push_back(
      {.cumulative_count = snapshot.count,
       .upper_bound = std::numeric_limits<double>::infinity()});
  family.metric.push_back(std::move(metric));
  return family;
}

// One family with a value per label value, e.g. studies by state.
MetricFamily ByLabel(
    const std::string& name, const std::string& help, MetricType type,
    const std::string& label,
    std::initializer_list<std::pair<const char*, double>> values) {
  MetricFamily family = MetricFamilyOf(name, help, type);
  for (const auto& [label_value, value] : values) {
    family.metric.push_back(
        MetricValue(value, type, {{.name = label, .value = label_value}}));
  }
  return family;
}

// What the server has done since it started: reports by outcome,
// enrollments, budget charged, latencies and group commits.
void AppendTraffic(const AggregatorStats& stats,
                   std::vector<MetricFamily>& out) {
  const ServerStats::Snapshot& c = stats.counters;
  out.push_back(OutcomeCounter(
      "ldp_reports_total",
      "Reports answered since the server started, by outcome (the gRPC status "
      "each report got; ok = durable and counted, or an identical retry).",
      c.report_outcomes));
  out.push_back(ByLabel(
      "ldp_enrollments_total", "Enrollment attempts since the server started.",
      MetricType::Counter, "outcome",
      {{"ok", static_cast<double>(c.enrollments)},
       {"refused", static_cast<double>(c.enrollments_refused)}}));
  out.push_back(SingleMetric(
      "ldp_epsilon_charged_total",
      "Privacy budget charged to agents by stored reports "
      "since the server started, in epsilon.",
      MetricType::Counter, static_cast<double>(c.charged_nanos) * 1e-9));
  out.push_back(Histogram("ldp_upload_latency_seconds",
                          "From an UploadReports call to its answer (after the "
                          "group commit that made its reports durable).",
                          c.upload_latency));
}

// The group commit: transactions, their duration, and the queue now.
void AppendCommits(const AggregatorStats& stats,
                   std::vector<MetricFamily>& out) {
  out.push_back(Histogram("ldp_store_commit_seconds",
                          "Duration of each group-commit transaction.",
                          stats.counters.commit_latency));
  out.push_back(SingleMetric(
      "ldp_store_commits_total",
      "Group-commit transactions since the server started.",
      MetricType::Counter, static_cast<double>(stats.commits.transactions)));
  out.push_back(SingleMetric(
      "ldp_store_commit_jobs_total",
      "Writes (enrollments, report batches, round changes) "
      "committed since the server started.",
      MetricType::Counter, static_cast<double>(stats.commits.jobs)));
  out.push_back(SingleMetric(
      "ldp_store_queued_writes",
      "Writes waiting for a group commit now (bounded by "
      "--max_queued_writes; beyond it the server answers "
      "RESOURCE_EXHAUSTED).",
      MetricType::Gauge, static_cast<double>(stats.queued_writes)));
}

// What the store holds now: studies and rounds by state, agents, reports.
void AppendState(const AggregatorStats& stats, std::vector<MetricFamily>& out) {
  out.push_back(
      ByLabel("ldp_studies", "Studies by state.", MetricType::Gauge, "state",
              {{"active", static_cast<double>(stats.studies_active)},
               {"closed", static_cast<double>(stats.studies_closed)}}));
  out.push_back(
      ByLabel("ldp_rounds", "Rounds by state.", MetricType::Gauge, "state",
              {{"open", static_cast<double>(stats.rounds_open)},
               {"closed", static_cast<double>(stats.rounds_closed)}}));
  out.push_back(SingleMetric("ldp_agents_enrolled", "Agents in the store.",
                             MetricType::Gauge,
                             static_cast<double>(stats.agents_enrolled)));
  out.push_back(SingleMetric(
      "ldp_reports_stored", "Reports counted in estimates, over all studies.",
      MetricType::Gauge, static_cast<double>(stats.reports_stored)));
}

}  // namespace

std::vector<MetricFamily> MetricFamilies(const AggregatorStats& stats) {
  std::vector<MetricFamily> out;
  AppendTraffic(stats, out);
  AppendCommits(stats, out);
  AppendState(stats, out);
  return out;
}

absl::StatusOr<std::unique_ptr<MetricsExposer>> StartMetricsEndpoint(
    const std::string& address, const Aggregator* aggregator) {
  return MetricsExposer::Start(
      address, [aggregator] { return MetricFamilies(aggregator->Stats()); });
}

}  // namespace ldp
