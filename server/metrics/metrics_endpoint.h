// ldp-server's Prometheus /metrics endpoint: the aggregator's statistics
// (Aggregator::Stats) as metric families, served by the shared exposer
// (server/prometheus), not by a parser of our own.
//
// Metrics are read at scrape time, so the ingest path pays for a few
// relaxed atomic increments and nothing else. Names follow the Prometheus
// conventions: ldp_ prefix, _total for counters, _seconds for durations;
// outcomes are the gRPC status a report got, in lower case ("ok",
// "invalid_argument", "failed_precondition", ...).
#ifndef LDP_SERVER_METRICS_METRICS_ENDPOINT_H_
#define LDP_SERVER_METRICS_METRICS_ENDPOINT_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "prometheus/metric_family.h"
#include "server/core/aggregator.h"
#include "server/prometheus/metrics_exposer.h"

namespace ldp {

// The metric families of one Stats() snapshot (also for tests).
std::vector<prometheus::MetricFamily> MetricFamilies(
    const AggregatorStats& stats);

// Listens on `address` ("HOST:PORT"; port 0 picks a free one) and serves
// /metrics from `aggregator`, which must outlive the endpoint.
// Unavailable if the address cannot be bound.
absl::StatusOr<std::unique_ptr<MetricsExposer>> StartMetricsEndpoint(
    const std::string& address, const Aggregator* aggregator);

}  // namespace ldp

#endif  // LDP_SERVER_METRICS_METRICS_ENDPOINT_H_
