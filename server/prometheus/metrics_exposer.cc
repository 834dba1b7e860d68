// The /metrics endpoint; see the header.
#include "server/prometheus/metrics_exposer.h"

#include <exception>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "prometheus/collectable.h"
#include "prometheus/exposer.h"

namespace ldp {

class MetricsExposer::Collector final : public prometheus::Collectable {
 public:
  explicit Collector(Reader read) : read_(std::move(read)) {}
  std::vector<prometheus::MetricFamily> Collect() const override {
    return read_();
  }

 private:
  const Reader read_;
};

absl::StatusOr<std::unique_ptr<MetricsExposer>> MetricsExposer::Start(
    const std::string& address, Reader read) {
  std::unique_ptr<MetricsExposer> endpoint(new MetricsExposer());
  try {
    // One serving thread: scrapes come every few seconds at most.
    endpoint->exposer_ = std::make_unique<prometheus::Exposer>(address, 1);
  } catch (const std::exception& e) {
    return absl::UnavailableError(absl::StrCat(
        "cannot serve /metrics on ", address, " (", e.what(),
        "): is the port in use, or the host not a local address?"));
  }
  endpoint->collector_ = std::make_shared<Collector>(std::move(read));
  endpoint->exposer_->RegisterCollectable(endpoint->collector_);
  const std::vector<int> ports = endpoint->exposer_->GetListeningPorts();
  if (ports.empty()) {
    return absl::UnavailableError(
        absl::StrCat("cannot serve /metrics on ", address));
  }
  endpoint->port_ = ports.front();
  return endpoint;
}

MetricsExposer::~MetricsExposer() = default;

}  // namespace ldp
