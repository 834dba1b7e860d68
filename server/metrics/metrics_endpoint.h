// The Prometheus /metrics endpoint: the aggregator's statistics
// (Aggregator::Stats) in the Prometheus text format, served over HTTP by
// prometheus-cpp's exposer (civetweb), not by a parser of our own.
//
// Metrics are read at scrape time (a Collectable), so the ingest path pays
// for a few relaxed atomic increments and nothing else. Names follow the
// Prometheus conventions: ldp_ prefix, _total for counters, _seconds for
// durations; outcomes are the gRPC status a report got, in lower case
// ("ok", "invalid_argument", "failed_precondition", ...).
#ifndef LDP_SERVER_METRICS_METRICS_ENDPOINT_H_
#define LDP_SERVER_METRICS_METRICS_ENDPOINT_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "server/core/aggregator.h"

namespace prometheus {
class Exposer;
struct MetricFamily;
}  // namespace prometheus

namespace ldp {

// The metric families of one Stats() snapshot (also for tests).
std::vector<prometheus::MetricFamily> MetricFamilies(
    const AggregatorStats& stats);

class MetricsEndpoint {
 public:
  // Listens on `address` ("HOST:PORT"; port 0 picks a free one) and serves
  // /metrics from `aggregator`, which must outlive the endpoint.
  // Unavailable if the address cannot be bound.
  static absl::StatusOr<std::unique_ptr<MetricsEndpoint>> Start(
      const std::string& address, const Aggregator* aggregator);
  ~MetricsEndpoint();

  int port() const { return port_; }

 private:
  class Collector;
  MetricsEndpoint() = default;

  std::shared_ptr<Collector> collector_;
  std::unique_ptr<prometheus::Exposer> exposer_;
  int port_ = 0;
};

}  // namespace ldp

#endif  // LDP_SERVER_METRICS_METRICS_ENDPOINT_H_
