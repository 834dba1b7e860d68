// The shuffler's counters, for its /metrics endpoint: relaxed atomics that
// the hot paths bump, and a plain snapshot that the endpoint reads.
//
// Why no per-agent or per-batch-key figure: what leaves the shuffler must
// not help anyone link an agent, or the time it reported, to a payload.
#ifndef LDP_SERVER_SHUFFLER_CORE_SHUFFLER_STATS_H_
#define LDP_SERVER_SHUFFLER_CORE_SHUFFLER_STATS_H_

#include <array>
#include <atomic>
#include <cstdint>

#include "absl/status/status.h"

namespace ldp {

// absl::StatusCode values are 0..16.
inline constexpr int kShufflerStatusCodes = 17;

struct ShufflerStats {
  // Submissions answered since start, by the code of their ack.
  std::array<uint64_t, kShufflerStatusCodes> submissions{};
  // Now: reports waiting for their batch, batches waiting for delivery.
  uint64_t pending_reports = 0;
  uint64_t outbox_batches = 0;
  // Since start.
  uint64_t batches_released = 0;
  uint64_t reports_released = 0;
  uint64_t batches_delivered = 0;
  uint64_t reports_delivered = 0;
  // Refused by the server for good (FAILED_PRECONDITION, ...).
  uint64_t batches_dropped = 0;
  // Deleted at the deadline, below the minimum, never released.
  uint64_t reports_expired = 0;
  // Delivery attempts that failed and will be retried.
  uint64_t delivery_failures = 0;
  // The server's receipts, summed.
  uint64_t server_accepted = 0;
  uint64_t server_not_opened = 0;
  uint64_t server_invalid = 0;
  uint64_t server_duplicates = 0;
};

// Thread-safe counters behind ShufflerStats.
class ShufflerCounters {
 public:
  void CountSubmission(absl::StatusCode code) {
    const int index = static_cast<int>(code);
    if (index >= 0 && index < kShufflerStatusCodes) Add(submissions_[index], 1);
  }
  static void Add(std::atomic<uint64_t>& counter, uint64_t n) {
    counter.fetch_add(n, std::memory_order_relaxed);
  }
  static void Sub(std::atomic<uint64_t>& counter, uint64_t n) {
    counter.fetch_sub(n, std::memory_order_relaxed);
  }
  ShufflerStats Snapshot() const;

  std::array<std::atomic<uint64_t>, kShufflerStatusCodes> submissions_{};
  std::atomic<uint64_t> pending_reports{0}, outbox_batches{0};
  std::atomic<uint64_t> batches_released{0}, reports_released{0};
  std::atomic<uint64_t> batches_delivered{0}, reports_delivered{0};
  std::atomic<uint64_t> batches_dropped{0}, reports_expired{0};
  std::atomic<uint64_t> delivery_failures{0};
  std::atomic<uint64_t> server_accepted{0}, server_not_opened{0};
  std::atomic<uint64_t> server_invalid{0}, server_duplicates{0};
};

}  // namespace ldp

#endif  // LDP_SERVER_SHUFFLER_CORE_SHUFFLER_STATS_H_
