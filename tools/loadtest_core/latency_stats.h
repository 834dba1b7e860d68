// Latency percentiles for ldp-loadtest (p50/p99 of report acknowledgement).
//
// Exact order statistics over every recorded sample (a load test records
// at most one sample per upload call, so memory is not a concern), safe to
// record from many worker threads.
#ifndef LDP_TOOLS_LOADTEST_CORE_LATENCY_STATS_H_
#define LDP_TOOLS_LOADTEST_CORE_LATENCY_STATS_H_

#include <cstdint>
#include <mutex>
#include <vector>

#include "absl/time/time.h"

namespace ldp {

class LatencyStats {
 public:
  void Record(absl::Duration latency);
  int64_t count() const;
  // The smallest recorded latency ≥ a fraction q of all samples (nearest
  // rank: ⌈q·n⌉-th smallest), q in [0, 1]; zero when nothing was recorded.
  absl::Duration Quantile(double q) const;

 private:
  mutable std::mutex mutex_;
  std::vector<absl::Duration> samples_;
};

}  // namespace ldp

#endif  // LDP_TOOLS_LOADTEST_CORE_LATENCY_STATS_H_
