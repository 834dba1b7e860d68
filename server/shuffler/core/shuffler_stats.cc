// The counters' snapshot; see the header.
#include "server/shuffler/core/shuffler_stats.h"

namespace ldp {
namespace {

uint64_t Load(const std::atomic<uint64_t>& counter) {
  return counter.load(std::memory_order_relaxed);
}

}  // namespace

ShufflerStats ShufflerCounters::Snapshot() const {
  ShufflerStats s;
  for (int i = 0; i < kShufflerStatusCodes; ++i) {
    s.submissions[i] = Load(submissions_[i]);
  }
  s.pending_reports = Load(pending_reports);
  s.outbox_batches = Load(outbox_batches);
  s.batches_released = Load(batches_released);
  s.reports_released = Load(reports_released);
  s.batches_delivered = Load(batches_delivered);
  s.reports_delivered = Load(reports_delivered);
  s.batches_dropped = Load(batches_dropped);
  s.reports_expired = Load(reports_expired);
  s.delivery_failures = Load(delivery_failures);
  s.server_accepted = Load(server_accepted);
  s.server_not_opened = Load(server_not_opened);
  s.server_invalid = Load(server_invalid);
  s.server_duplicates = Load(server_duplicates);
  return s;
}

}  // namespace ldp
