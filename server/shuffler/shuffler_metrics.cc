// The shuffler's metric families; see the header.
#include "server/shuffler/shuffler_metrics.h"

#include <exception>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "prometheus/collectable.h"
#include "prometheus/exposer.h"
#include "prometheus/metric_family.h"

namespace ldp {
namespace {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;

ClientMetric Value(double value, MetricType type,
                   std::vector<ClientMetric::Label> labels = {}) {
  ClientMetric metric;
  metric.label = std::move(labels);
  if (type == MetricType::Counter) {
    metric.counter.value = value;
  } else {
    metric.gauge.value = value;
  }
  return metric;
}

MetricFamily Single(std::string name, std::string help, MetricType type,
                    uint64_t value) {
  MetricFamily family{.name = std::move(name),
                      .help = std::move(help),
                      .type = type,
                      .metric = {}};
  family.metric.push_back(Value(static_cast<double>(value), type));
  return family;
}

MetricFamily Submissions(const ShufflerStats& stats) {
  MetricFamily family{
      .name = "ldp_shuffler_submissions_total",
      .help =
          "Submissions answered since start, by the code of their ack "
          "(ok = durable, or an identical retry).",
      .type = MetricType::Counter,
      .metric = {}};
  for (int code = 0; code < kShufflerStatusCodes; ++code) {
    if (code != 0 && stats.submissions[code] == 0) continue;
    family.metric.push_back(
        Value(static_cast<double>(stats.submissions[code]), MetricType::Counter,
              {{.name = "outcome",
                .value = absl::AsciiStrToLower(absl::StatusCodeToString(
                    static_cast<absl::StatusCode>(code)))}}));
  }
  return family;
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
  std::vector<MetricFamily> out = {Submissions(stats)};
  for (auto part : {Holdings, Batches, Receipts}) {
    for (MetricFamily& family : part(stats)) out.push_back(std::move(family));
  }
  return out;
}

class ShufflerMetricsEndpoint::Collector final
    : public prometheus::Collectable {
 public:
  explicit Collector(const Shuffler* shuffler) : shuffler_(shuffler) {}
  std::vector<MetricFamily> Collect() const override {
    return ShufflerMetricFamilies(shuffler_->Stats());
  }

 private:
  const Shuffler* shuffler_;
};

absl::StatusOr<std::unique_ptr<ShufflerMetricsEndpoint>>
ShufflerMetricsEndpoint::Start(const std::string& address,
                               const Shuffler* shuffler) {
  std::unique_ptr<ShufflerMetricsEndpoint> endpoint(
      new ShufflerMetricsEndpoint());
  try {
    endpoint->exposer_ = std::make_unique<prometheus::Exposer>(address, 1);
  } catch (const std::exception& e) {
    return absl::UnavailableError(absl::StrCat(
        "cannot serve /metrics on ", address, " (", e.what(),
        "): is the port in use, or the host not a local address?"));
  }
  endpoint->collector_ = std::make_shared<Collector>(shuffler);
  endpoint->exposer_->RegisterCollectable(endpoint->collector_);
  const std::vector<int> ports = endpoint->exposer_->GetListeningPorts();
  if (ports.empty()) {
    return absl::UnavailableError(
        absl::StrCat("cannot serve /metrics on ", address));
  }
  endpoint->port_ = ports.front();
  return endpoint;
}

ShufflerMetricsEndpoint::~ShufflerMetricsEndpoint() = default;

}  // namespace ldp
