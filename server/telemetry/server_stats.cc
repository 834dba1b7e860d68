// Lock-free counters and histograms for operators; see the header.
#include "server/telemetry/server_stats.h"

#include <algorithm>

namespace ldp {

void LatencyHistogram::Observe(absl::Duration latency) {
  const double seconds = absl::ToDoubleSeconds(latency);
  const size_t bucket = static_cast<size_t>(
      std::lower_bound(kBounds.begin(), kBounds.end(), seconds) -
      kBounds.begin());
  counts_[bucket].fetch_add(1, std::memory_order_relaxed);
  sum_nanos_.fetch_add(absl::ToInt64Nanoseconds(latency),
                       std::memory_order_relaxed);
}

LatencyHistogram::Snapshot LatencyHistogram::Read() const {
  Snapshot out;
  for (const auto& c : counts_) {
    out.counts.push_back(c.load(std::memory_order_relaxed));
    out.count += out.counts.back();
  }
  out.sum_seconds =
      static_cast<double>(sum_nanos_.load(std::memory_order_relaxed)) * 1e-9;
  return out;
}

void ServerStats::RecordUpload(absl::Span<const absl::Status> statuses,
                               absl::Duration latency) {
  for (const absl::Status& s : statuses) {
    const size_t code = static_cast<size_t>(s.code());
    if (code < report_outcomes_.size()) {
      report_outcomes_[code].fetch_add(1, std::memory_order_relaxed);
    }
  }
  upload_latency_.Observe(latency);
}

void ServerStats::RecordEnrollment(bool ok, int64_t count) {
  (ok ? enrollments_ : enrollments_refused_)
      .fetch_add(static_cast<uint64_t>(count), std::memory_order_relaxed);
}

void ServerStats::AddCharged(int64_t nanos) {
  if (nanos > 0)
    charged_nanos_.fetch_add(static_cast<uint64_t>(nanos),
                             std::memory_order_relaxed);
}

ServerStats::Snapshot ServerStats::Read() const {
  Snapshot out;
  for (size_t i = 0; i < report_outcomes_.size(); ++i) {
    out.report_outcomes[i] =
        report_outcomes_[i].load(std::memory_order_relaxed);
  }
  out.enrollments = enrollments_.load(std::memory_order_relaxed);
  out.enrollments_refused =
      enrollments_refused_.load(std::memory_order_relaxed);
  out.charged_nanos = charged_nanos_.load(std::memory_order_relaxed);
  out.upload_latency = upload_latency_.Read();
  out.commit_latency = commit_latency_.Read();
  return out;
}

}  // namespace ldp
