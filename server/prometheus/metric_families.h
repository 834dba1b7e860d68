// Builders of Prometheus metric families, for the programs' /metrics
// endpoints (server/metrics, server/shuffler): one value, one value per
// label, and a counter per gRPC status code.
//
// Why shared: ldp-server and ldp-shuffler export their own statistics but
// must spell a family, a counter and an outcome label the same way, so a
// dashboard reads both alike.
#ifndef LDP_SERVER_PROMETHEUS_METRIC_FAMILIES_H_
#define LDP_SERVER_PROMETHEUS_METRIC_FAMILIES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "prometheus/client_metric.h"
#include "prometheus/metric_family.h"
#include "prometheus/metric_type.h"

namespace ldp {

// A family with no samples yet.
prometheus::MetricFamily MetricFamilyOf(std::string name, std::string help,
                                        prometheus::MetricType type);

// One sample of a counter or a gauge.
prometheus::ClientMetric MetricValue(
    double value, prometheus::MetricType type,
    std::vector<prometheus::ClientMetric::Label> labels = {});

// A family of one unlabelled counter or gauge.
prometheus::MetricFamily SingleMetric(std::string name, std::string help,
                                      prometheus::MetricType type,
                                      double value);

// A counter family by "outcome": `by_code[c]` calls answered with absl
// status code c, labelled with the code's name in lower case ("ok",
// "invalid_argument", ...). "ok" is always there; other codes only once
// they happened, so a scrape is not 16 rows of zeros.
prometheus::MetricFamily OutcomeCounter(std::string name, std::string help,
                                        absl::Span<const uint64_t> by_code);

}  // namespace ldp

#endif  // LDP_SERVER_PROMETHEUS_METRIC_FAMILIES_H_
