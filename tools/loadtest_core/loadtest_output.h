// ldp-loadtest's record of a run: reports acknowledged per second while it
// ran, and --out DIR, which writes the final report as files a notebook or
// a CI job can read and plots a person can look at:
//   summary.json     the run's configuration, counts, throughput, latency
//                    percentiles and errors by status code
//   throughput.csv   second, reports acknowledged in it
//   throughput.svg   the same over time
//   estimates.csv    question, label, truth, estimate, standard error,
//                    interval, z, covered — every released value
//   <question>.svg   estimate with its interval (or band) against the truth
#ifndef LDP_TOOLS_LOADTEST_CORE_LOADTEST_OUTPUT_H_
#define LDP_TOOLS_LOADTEST_CORE_LOADTEST_OUTPUT_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "tools/loadtest_core/estimate_comparison.h"

namespace ldp {

// Counts per whole second since `start`. Thread-safe.
class ThroughputTimeline {
 public:
  explicit ThroughputTimeline(absl::Time start) : start_(start) {}
  void Record(absl::Time at, int64_t n);
  // Per second from the start to the last second recorded.
  std::vector<int64_t> PerSecond() const;

 private:
  const absl::Time start_;
  mutable absl::Mutex mutex_;
  std::vector<int64_t> counts_ ABSL_GUARDED_BY(mutex_);
};

struct LoadtestSummary {
  std::string mode{};                                  // e.g. "sessions"
  std::map<std::string, std::string> configuration{};  // flag → value
  int64_t agents = 0;
  int64_t reports_accepted = 0;
  int64_t reports_rejected = 0;
  double seconds = 0;
  // Acknowledgement latency of upload calls.
  int64_t uploads = 0;
  absl::Duration p50, p90, p99, max;
  // "ack INVALID_ARGUMENT", "enroll UNAVAILABLE", ... → count.
  std::map<std::string, int64_t> errors{};
};

// One question's released values beside the truth.
struct EstimateSeries {
  std::string question{};
  std::string title{};
  std::string subtitle{};
  std::vector<ComparedValue> values{};
  bool simultaneous_band = false;  // intervals are a workload's band
};

// Creates `dir` if needed and writes the files above (replacing older ones).
absl::Status WriteLoadtestOutput(const std::string& dir,
                                 const LoadtestSummary& summary,
                                 const std::vector<int64_t>& per_second,
                                 const std::vector<EstimateSeries>& estimates);

}  // namespace ldp

#endif  // LDP_TOOLS_LOADTEST_CORE_LOADTEST_OUTPUT_H_
