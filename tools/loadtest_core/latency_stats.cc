// Nearest-rank quantiles of recorded latencies; see the header.
#include "tools/loadtest_core/latency_stats.h"

#include <algorithm>
#include <cmath>

namespace ldp {

void LatencyStats::Record(absl::Duration latency) {
  std::lock_guard<std::mutex> lock(mutex_);
  samples_.push_back(latency);
}

int64_t LatencyStats::count() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return static_cast<int64_t>(samples_.size());
}

absl::Duration LatencyStats::Quantile(double q) const {
  std::vector<absl::Duration> sorted;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    sorted = samples_;
  }
  if (sorted.empty()) return absl::ZeroDuration();
  q = std::clamp(q, 0.0, 1.0);
  const size_t n = sorted.size();
  const size_t rank = std::max<size_t>(
      1, static_cast<size_t>(std::ceil(q * static_cast<double>(n) - 1e-9)));
  const size_t index = std::min(rank, n) - 1;
  std::nth_element(sorted.begin(), sorted.begin() + index, sorted.end());
  return sorted[index];
}

}  // namespace ldp
