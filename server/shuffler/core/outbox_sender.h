// Delivery of released batches: the oldest outbox batch goes to the
// BatchSink; it leaves the outbox once the server took it, or refused it
// for good; otherwise it stays, to be retried with the same batch_id (the
// server's idempotency key), so a batch is stored at most once however
// often the network fails.
#ifndef LDP_SERVER_SHUFFLER_CORE_OUTBOX_SENDER_H_
#define LDP_SERVER_SHUFFLER_CORE_OUTBOX_SENDER_H_

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "server/shuffler/core/batch_sink.h"
#include "server/shuffler/core/shuffle_store.h"
#include "server/shuffler/core/shuffler_config.h"
#include "server/shuffler/core/shuffler_stats.h"

namespace ldp::shuffler_internal {

// Thread-safe: deliveries are serialized among themselves; the store is
// used under `store_mutex`, never while the sink is called.
class OutboxSender {
 public:
  // All pointers must outlive the sender.
  OutboxSender(ShuffleStore* store, absl::Mutex* store_mutex, BatchSink* sink,
               const ShufflerConfig* config, ShufflerCounters* counters)
      : store_(store),
        store_mutex_(store_mutex),
        sink_(sink),
        config_(config),
        counters_(counters) {}

  // One attempt at the oldest outbox batch; an error means it failed and
  // the batch stays.
  absl::StatusOr<DeliveryOutcome> DeliverOldest();

 private:
  absl::Status Remove(const OutboxBatch& batch);
  void Count(const OutboxBatch& batch, const DeliveryReceipt& receipt);
  void Log(LogLevel level, std::string_view event, const OutboxBatch& batch,
           const absl::Status& status);

  ShuffleStore* const store_;
  absl::Mutex* const store_mutex_;
  BatchSink* const sink_;
  const ShufflerConfig* const config_;
  ShufflerCounters* const counters_;
  absl::Mutex deliver_mutex_;
};

}  // namespace ldp::shuffler_internal

#endif  // LDP_SERVER_SHUFFLER_CORE_OUTBOX_SENDER_H_
