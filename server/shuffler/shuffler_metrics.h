// ldp-shuffler's Prometheus /metrics endpoint: the core's counters
// (ShufflerStats) in the text format, served by prometheus-cpp's exposer
// like ldp-server's (server/metrics cannot be reused: it reads the
// aggregator's statistics).
//
// Nothing per agent or per batch key: only totals, read at scrape time.
#ifndef LDP_SERVER_SHUFFLER_SHUFFLER_METRICS_H_
#define LDP_SERVER_SHUFFLER_SHUFFLER_METRICS_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "server/shuffler/core/shuffler.h"

namespace prometheus {
class Exposer;
struct MetricFamily;
}  // namespace prometheus

namespace ldp {

// The metric families of one snapshot.
std::vector<prometheus::MetricFamily> ShufflerMetricFamilies(
    const ShufflerStats& stats);

class ShufflerMetricsEndpoint {
 public:
  // Serves /metrics on `address` ("HOST:PORT", port 0 = any free one) from
  // `shuffler`, which must outlive the endpoint. UNAVAILABLE if it cannot
  // bind.
  static absl::StatusOr<std::unique_ptr<ShufflerMetricsEndpoint>> Start(
      const std::string& address, const Shuffler* shuffler);
  ~ShufflerMetricsEndpoint();

  int port() const { return port_; }

 private:
  class Collector;
  ShufflerMetricsEndpoint() = default;

  std::shared_ptr<Collector> collector_;
  std::unique_ptr<prometheus::Exposer> exposer_;
  int port_ = 0;
};

}  // namespace ldp

#endif  // LDP_SERVER_SHUFFLER_SHUFFLER_METRICS_H_
