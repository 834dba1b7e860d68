// Metric family builders; see the header.
#include "server/prometheus/metric_families.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"

namespace ldp {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;

MetricFamily MetricFamilyOf(std::string name, std::string help,
                            MetricType type) {
  return {.name = std::move(name),
          .help = std::move(help),
          .type = type,
          .metric = {}};
}

ClientMetric MetricValue(double value, MetricType type,
                         std::vector<ClientMetric::Label> labels) {
  ClientMetric metric;
  metric.label = std::move(labels);
  if (type == MetricType::Counter) {
    metric.counter.value = value;
  } else {
    metric.gauge.value = value;
  }
  return metric;
}

MetricFamily SingleMetric(std::string name, std::string help, MetricType type,
                          double value) {
  MetricFamily family = MetricFamilyOf(std::move(name), std::move(help), type);
  family.metric.push_back(MetricValue(value, type));
  return family;
}

MetricFamily OutcomeCounter(std::string name, std::string help,
                            absl::Span<const uint64_t> by_code) {
  MetricFamily family =
      MetricFamilyOf(std::move(name), std::move(help), MetricType::Counter);
  for (size_t code = 0; code < by_code.size(); ++code) {
    if (code != 0 && by_code[code] == 0) continue;
    family.metric.push_back(
        MetricValue(static_cast<double>(by_code[code]), MetricType::Counter,
                    {{.name = "outcome",
                      .value = absl::AsciiStrToLower(absl::StatusCodeToString(
                          static_cast<absl::StatusCode>(code)))}}));
  }
  return family;
}

}  // namespace ldp
