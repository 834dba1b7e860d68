// A /metrics endpoint: prometheus-cpp's exposer (civetweb) serving the
// families a function returns, read at scrape time, so the programs' hot
// paths pay for a few relaxed atomic increments and nothing else.
//
// Why shared: ldp-server and ldp-shuffler serve /metrics the same way and
// differ only in what they read; each passes its own reader.
#ifndef LDP_SERVER_PROMETHEUS_METRICS_EXPOSER_H_
#define LDP_SERVER_PROMETHEUS_METRICS_EXPOSER_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "prometheus/metric_family.h"

namespace prometheus {
class Exposer;
}  // namespace prometheus

namespace ldp {

class MetricsExposer {
 public:
  // Reads the program's statistics as metric families.
  using Reader = std::function<std::vector<prometheus::MetricFamily>()>;

  // Listens on `address` ("HOST:PORT"; port 0 picks a free one) and serves
  // /metrics from `read`, called on the serving thread at each scrape.
  // Unavailable if the address cannot be bound.
  static absl::StatusOr<std::unique_ptr<MetricsExposer>> Start(
      const std::string& address, Reader read);
  ~MetricsExposer();
  MetricsExposer(const MetricsExposer&) = delete;
  MetricsExposer& operator=(const MetricsExposer&) = delete;

  int port() const { return port_; }

 private:
  class Collector;
  MetricsExposer() = default;

  std::shared_ptr<Collector> collector_;
  std::unique_ptr<prometheus::Exposer> exposer_;
  int port_ = 0;
};

}  // namespace ldp

#endif  // LDP_SERVER_PROMETHEUS_METRICS_EXPOSER_H_
