// The shuffler's metric families; see the header.
#include "server/shuffler/shuffler_metrics.h"

#include <utility>

#include "server/prometheus/metric_families.h"

namespace ldp {
namespace {

using prometheus::MetricFamily;
using prometheus::MetricType;

// A family of one counter or gauge, from an integer total.
MetricFamily Single(std::string name, std::string help, MetricType type,
                    uint64_t value) {
  return SingleMetric(std::move(name), std::move(help), type,
                      static_cast<double>(value));
}

constexpr MetricType kGauge = MetricType::Gauge;
constexpr MetricType kCounter = MetricType::Counter;

// What the shuffler holds now.
std::vector<MetricFamily> Holdings(const ShufflerStats& s) {
  return {Single("ldp_shuffler_pending_reports",
                 "Reports held, waiting for their batch to fill.", kGauge,
                 s.pending_reports),
          Single("ldp_shuffler_outbox_batches",
                 "Released batches waiting for delivery.", kGauge,
                 s.outbox_batches)};
}

// What became of batches since start.
std::vector<MetricFamily> Batches(const ShufflerStats& s) {
  return {
      Single("ldp_shuffler_batches_released_total", "Batches released.",
             kCounter, s.batches_released),
      Single("ldp_shuffler_reports_released_total",
             "Reports in released batches.", kCounter, s.reports_released),
      Single("ldp_shuffler_batches_delivered_total", "Batches the server took.",
             kCounter, s.batches_delivered),
      Single("ldp_shuffler_reports_delivered_total",
             "Reports in batches the server took.", kCounter,
             s.reports_delivered),
      Single("ldp_shuffler_batches_dropped_total",
             "Batches the server refused for good (not retried).", kCounter,
             s.batches_dropped),
      Single("ldp_shuffler_reports_expired_total",
             "Reports deleted at their deadline, their batch below the "
             "minimum (never released).",
             kCounter, s.reports_expired),
      Single("ldp_shuffler_delivery_failures_total",
             "Delivery attempts that failed and will be retried.", kCounter,
             s.delivery_failures),
  };
}

// The server's receipts.
std::vector<MetricFamily> Receipts(const ShufflerStats& s) {
  return {
      Single("ldp_shuffler_server_accepted_total",
             "Payloads the server stored, by its receipts.", kCounter,
             s.server_accepted),
      Single("ldp_shuffler_server_rejected_total",
             "Payloads the server dropped (not opened, invalid or "
             "duplicate), by its receipts.",
             kCounter,
             s.server_not_opened + s.server_invalid + s.server_duplicates),
  };
}

}  // namespace

std::vector<MetricFamily> ShufflerMetricFamilies(const ShufflerStats& stats) {
  std::vector<MetricFamily> out = {OutcomeCounter(
      "ldp_shuffler_submissions_total",
      "Submissions answered since start, by the code of their ack (ok = "
      "durable, or an identical retry).",
      stats.submissions)};
  for (auto part : {Holdings, Batches, Receipts}) {
    for (MetricFamily& family : part(stats)) out.push_back(std::move(family));
  }
  return out;
}

absl::StatusOr<std::unique_ptr<MetricsExposer>> StartShufflerMetrics(
    const std::string& address, const Shuffler* shuffler) {
  return MetricsExposer::Start(address, [shuffler] {
    return ShufflerMetricFamilies(shuffler->Stats());
  });
}

}  // namespace ldp
