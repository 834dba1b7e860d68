// Estimator and variance shared by the pure frequency protocols.
#include "common/estimation/pure_protocol.h"

#include <algorithm>
#include <limits>

namespace ldp {

double PureProtocol::Variance(double frequency, int64_t num_reports) const {
  if (num_reports <= 0) return std::numeric_limits<double>::infinity();
  const double n = static_cast<double>(num_reports);
  const double gap = p - q;
  return q * (1 - q) / (n * gap * gap) + frequency * (1 - p - q) / (n * gap);
}

HistogramEstimate PureProtocol::Estimate(
    absl::Span<const int64_t> support_counts, int64_t num_reports,
    double epsilon) const {
  HistogramEstimate estimate;
  estimate.num_reports = num_reports;
  estimate.epsilon = epsilon;
  estimate.frequencies.resize(support_counts.size());
  estimate.variances.resize(support_counts.size());
  const double n = static_cast<double>(num_reports);
  for (size_t v = 0; v < support_counts.size(); ++v) {
    const double f =
        num_reports > 0
            ? (static_cast<double>(support_counts[v]) / n - q) / (p - q)
            : 0.0;
    estimate.frequencies[v] = f;
    estimate.variances[v] = Variance(std::clamp(f, 0.0, 1.0), num_reports);
  }
  return estimate;
}

}  // namespace ldp
