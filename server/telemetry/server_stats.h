// What the aggregator counts for operators: report outcomes by status,
// enrollments, ε charged, and the latency of uploads (call to durable
// acknowledgement) and of store commits. server/metrics/ exports them as
// Prometheus metrics; the core keeps plain atomics and knows no metrics
// library, as it knows no gRPC.
#ifndef LDP_SERVER_TELEMETRY_SERVER_STATS_H_
#define LDP_SERVER_TELEMETRY_SERVER_STATS_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "absl/types/span.h"

namespace ldp {

// A latency histogram with fixed buckets. Thread-safe, lock-free.
class LatencyHistogram {
 public:
  // Upper bounds in seconds (the last bucket, +Inf, is implied): from
  // half a millisecond (one group commit on a fast disk) to ten seconds.
  static constexpr std::array<double, 14> kBounds = {
      0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
      0.1,    0.25,  0.5,    1,     2.5,  5,     10};

  struct Snapshot {
    // Observations per bucket (not cumulative), kBounds.size() + 1 values.
    std::vector<uint64_t> counts;
    uint64_t count = 0;
    double sum_seconds = 0;
  };

  void Observe(absl::Duration latency);
  Snapshot Read() const;

 private:
  std::array<std::atomic<uint64_t>, kBounds.size() + 1> counts_{};
  std::atomic<int64_t> sum_nanos_{0};
};

// Counters since the process started. Thread-safe, lock-free.
class ServerStats {
 public:
  struct Snapshot {
    // Reports by final status (indexed by absl::StatusCode, 0 = OK).
    std::array<uint64_t, 17> report_outcomes{};
    uint64_t enrollments = 0;
    uint64_t enrollments_refused = 0;
    // ε charged to agents by stored reports, in nano-ε.
    uint64_t charged_nanos = 0;
    LatencyHistogram::Snapshot upload_latency;
    LatencyHistogram::Snapshot commit_latency;
  };

  // One UploadReports call: each report's final status, and the time from
  // the call to its answer.
  void RecordUpload(absl::Span<const absl::Status> statuses,
                    absl::Duration latency);
  // `count` agents enrolled (ok) or refused.
  void RecordEnrollment(bool ok, int64_t count = 1);
  void AddCharged(int64_t nanos);
  void RecordCommit(absl::Duration latency) {
    commit_latency_.Observe(latency);
  }

  Snapshot Read() const;

 private:
  std::array<std::atomic<uint64_t>, 17> report_outcomes_{};
  std::atomic<uint64_t> enrollments_{0};
  std::atomic<uint64_t> enrollments_refused_{0};
  std::atomic<uint64_t> charged_nanos_{0};
  LatencyHistogram upload_latency_;
  LatencyHistogram commit_latency_;
};

}  // namespace ldp

#endif  // LDP_SERVER_TELEMETRY_SERVER_STATS_H_
