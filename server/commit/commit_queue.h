// Group commit: one writer thread applies the writes of many concurrent
// callers in one store transaction, then completes each of them.
//
// Why: a durable commit costs a log sync (milliseconds on real disks), so
// committing each report alone caps ingestion at a few hundred reports a
// second. Here every job queued while a commit is in progress goes into the
// next one, so the batch size adapts to the load and a caller's latency is
// at most about two commits. Callers are completed only after their
// transaction is durable (DESIGN invariant 5).
//
// If a group's transaction fails, each of its jobs is retried in a
// transaction of its own, so one bad write cannot fail its neighbours;
// unless the store is unavailable, which no smaller transaction mends.
#ifndef LDP_SERVER_COMMIT_COMMIT_QUEUE_H_
#define LDP_SERVER_COMMIT_COMMIT_QUEUE_H_

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/base/clock.h"
#include "server/store/store.h"

namespace ldp {

class CommitJob {
 public:
  virtual ~CommitJob() = default;

  // Number of rows the job writes (sizes the groups).
  virtual int64_t NumWrites() const { return 1; }

  // Writer thread, inside the group's transaction, in submission order.
  // Returns an error only when the store fails. May run again (alone) after
  // its group failed, so it must overwrite, not accumulate, what it records.
  virtual absl::Status Apply(StoreTransaction& transaction) = 0;

  // Writer thread, exactly once: after the transaction holding the job's
  // writes committed (OK) or finally failed. Must not block on the queue.
  virtual void Finish(const absl::Status& commit_status) = 0;
};

// What the jobs of one transaction share and write once for all of them
// (an upload lane's sum of the reports its jobs stored,
// server/rounds/batch_statistics.h). On the queue's writer thread: Begin
// before a transaction's first Apply and End after its last, both inside
// the transaction (and again if the store runs the body again), then
// Finish with the transaction's outcome, before any of its jobs' Finish.
class CommitGroupWork {
 public:
  virtual ~CommitGroupWork() = default;
  virtual void Begin() = 0;
  // An error fails the transaction, as a job's Apply does.
  virtual absl::Status End(StoreTransaction& transaction) = 0;
  virtual void Finish(const absl::Status& commit_status) = 0;
};

// What a queue of a sharded store's shard commits through (commit_lanes.h).
struct ShardLane {
  int shard = -1;  // ≥ 0: Store::TransactShard(shard); < 0: Store::Transact
  // Once the commit in progress has run this long (by the queue's clock),
  // TrySubmit refuses with UNAVAILABLE: its database is not answering, and
  // new work would only wait behind it.
  absl::Duration refuse_after_stall = absl::InfiniteDuration();
};

struct CommitQueueStats {
  int64_t transactions = 0;
  int64_t jobs = 0;
};

class CommitQueue {
 public:
  // `store` must outlive the queue. max_writes_per_commit ≥ 1. With a
  // clock, every transaction's duration goes to `observe_commit` (on the
  // writer thread). max_queued_writes > 0 bounds the writes waiting for a
  // commit (TrySubmit refuses beyond it); 0 = no bound.
  CommitQueue(Store* store, int64_t max_writes_per_commit,
              const Clock* clock = nullptr,
              std::function<void(absl::Duration)> observe_commit = nullptr,
              int64_t max_queued_writes = 0, ShardLane lane = {});
  // Stop()s.
  ~CommitQueue();
  CommitQueue(const CommitQueue&) = delete;
  CommitQueue& operator=(const CommitQueue&) = delete;

  // Thread-safe, including from Finish on the writer thread. After Stop()
  // has returned, the job is finished at once with UNAVAILABLE.
  void Submit(std::unique_ptr<CommitJob> job);
  // As Submit, unless the writes already waiting plus the job's would pass
  // max_queued_writes (and some are waiting): then the job is left with the
  // caller and RESOURCE_EXHAUSTED returned. This is the server's
  // backpressure: under overload it refuses work instead of queueing
  // without limit. UNAVAILABLE (the job left with the caller too) when the
  // commit in progress has stalled past the lane's refuse_after_stall.
  absl::Status TrySubmit(std::unique_ptr<CommitJob>& job);
  // Every transaction from now on runs `work` around its jobs (null: none).
  // `work` outlives the queue's use of it (Stop first).
  void set_group_work(CommitGroupWork* work) {
    group_work_.store(work, std::memory_order_release);
  }
  // Writes waiting for a commit now.
  int64_t queued_writes() const;
  // Blocks until every job submitted before has finished. Not from the
  // writer thread.
  void WaitForSubmitted();

  // Commits every job submitted so far (and any their Finish submits), then
  // joins the writer thread. Idempotent.
  void Stop();

  CommitQueueStats stats() const;

 private:
  // Submit and TrySubmit under one lock; not OK only when bounded.
  absl::Status Enqueue(std::unique_ptr<CommitJob>& job, bool bounded);
  absl::Status Refusal(int64_t writes) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  void Run();
  void CommitGroup(std::deque<std::unique_ptr<CommitJob>>& group);
  absl::Status Commit(absl::FunctionRef<absl::Status(StoreTransaction&)> body);

  Store* const store_;
  const ShardLane lane_;
  const int64_t max_writes_per_commit_;
  const Clock* const clock_;
  const std::function<void(absl::Duration)> observe_commit_;
  std::atomic<CommitGroupWork*> group_work_{nullptr};
  mutable absl::Mutex mutex_;
  std::deque<std::unique_ptr<CommitJob>> queue_ ABSL_GUARDED_BY(mutex_);
  int64_t queued_writes_ ABSL_GUARDED_BY(mutex_) = 0;
  const int64_t max_queued_writes_;
  bool stopping_ ABSL_GUARDED_BY(mutex_) = false;
  bool stopped_ ABSL_GUARDED_BY(mutex_) = false;
  CommitQueueStats stats_ ABSL_GUARDED_BY(mutex_);
  // When the commit in progress began; InfiniteFuture when none is.
  absl::Time commit_started_ ABSL_GUARDED_BY(mutex_) = absl::InfiniteFuture();
  std::thread writer_;
};

}  // namespace ldp

#endif  // LDP_SERVER_COMMIT_COMMIT_QUEUE_H_
