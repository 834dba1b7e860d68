// ldp-shuffler's Prometheus /metrics endpoint: the core's counters
// (ShufflerStats) as metric families, served by the exposer ldp-server's
// endpoint uses too (server/prometheus; server/metrics itself cannot be
// reused: it reads the aggregator's statistics).
//
// Nothing per agent or per batch key: only totals, read at scrape time.
#ifndef LDP_SERVER_SHUFFLER_SHUFFLER_METRICS_H_
#define LDP_SERVER_SHUFFLER_SHUFFLER_METRICS_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "prometheus/metric_family.h"
#include "server/prometheus/metrics_exposer.h"
#include "server/shuffler/core/shuffler.h"

namespace ldp {

// The metric families of one snapshot.
std::vector<prometheus::MetricFamily> ShufflerMetricFamilies(
    const ShufflerStats& stats);

// Serves /metrics on `address` ("HOST:PORT", port 0 = any free one) from
// `shuffler`, which must outlive the endpoint. UNAVAILABLE if it cannot
// bind.
absl::StatusOr<std::unique_ptr<MetricsExposer>> StartShufflerMetrics(
    const std::string& address, const Shuffler* shuffler);

}  // namespace ldp

#endif  // LDP_SERVER_SHUFFLER_SHUFFLER_METRICS_H_
