// The group-commit writer thread; see the header.
#include "server/commit/commit_queue.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "common/base/status_macros.h"

namespace ldp {
namespace {

class BarrierJob final : public CommitJob {
 public:
  explicit BarrierJob(absl::Notification* done) : done_(done) {}
  int64_t NumWrites() const override { return 0; }
  absl::Status Apply(StoreTransaction&) override { return absl::OkStatus(); }
  void Finish(const absl::Status&) override { done_->Notify(); }

 private:
  absl::Notification* done_;
};

}  // namespace

CommitQueue::CommitQueue(Store* store, int64_t max_writes_per_commit,
                         const Clock* clock,
                         std::function<void(absl::Duration)> observe_commit,
                         int64_t max_queued_writes, ShardLane lane)
    : store_(store),
      lane_(lane),
      max_writes_per_commit_(std::max<int64_t>(1, max_writes_per_commit)),
      clock_(clock),
      observe_commit_(std::move(observe_commit)),
      max_queued_writes_(std::max<int64_t>(0, max_queued_writes)),
      writer_([this] { Run(); }) {}

CommitQueue::~CommitQueue() { Stop(); }

void CommitQueue::Stop() {
  {
    absl::MutexLock lock(&mutex_);
    if (stopping_) return;
    stopping_ = true;
  }
  writer_.join();
}

void CommitQueue::Submit(std::unique_ptr<CommitJob> job) {
  // Unbounded: never refused.
  Enqueue(job, /*bounded=*/false).IgnoreError();
}

absl::Status CommitQueue::TrySubmit(std::unique_ptr<CommitJob>& job) {
  return Enqueue(job, /*bounded=*/true);
}

absl::Status CommitQueue::Refusal(int64_t writes) const {
  if (max_queued_writes_ > 0 && queued_writes_ > 0 &&
      queued_writes_ + writes > max_queued_writes_) {
    return absl::ResourceExhaustedError(
        "the server is overloaded (its commit queue is full); nothing was "
        "stored, retry with backoff");
  }
  if (clock_ != nullptr &&
      lane_.refuse_after_stall != absl::InfiniteDuration() &&
      clock_->Now() - commit_started_ > lane_.refuse_after_stall) {
    return absl::UnavailableError(
        absl::StrCat("shard ", lane_.shard + 1,
                     " of the database is not answering; "
                     "nothing was stored, retry with backoff"));
  }
  return absl::OkStatus();
}

absl::Status CommitQueue::Enqueue(std::unique_ptr<CommitJob>& job,
                                  bool bounded) {
  {
    absl::MutexLock lock(&mutex_);
    if (!stopped_) {
      const int64_t writes = job->NumWrites();
      if (bounded) RETURN_IF_ERROR(Refusal(writes));
      queued_writes_ += writes;
      queue_.push_back(std::move(job));
      return absl::OkStatus();
    }
  }
  std::unique_ptr<CommitJob> refused = std::move(job);
  refused->Finish(absl::UnavailableError("the server is shutting down"));
  return absl::OkStatus();
}

int64_t CommitQueue::queued_writes() const {
  absl::MutexLock lock(&mutex_);
  return queued_writes_;
}

void CommitQueue::WaitForSubmitted() {
  absl::Notification done;
  Submit(std::make_unique<BarrierJob>(&done));
  done.WaitForNotification();
}

absl::Status CommitQueue::Commit(
    absl::FunctionRef<absl::Status(StoreTransaction&)> body) {
  CommitGroupWork* const work = group_work_.load(std::memory_order_acquire);
  const auto whole = [&](StoreTransaction& transaction) -> absl::Status {
    if (work != nullptr) work->Begin();
    absl::Status status = body(transaction);
    if (!status.ok() || work == nullptr) return status;
    return work->End(transaction);
  };
  absl::Status status = lane_.shard < 0
                            ? store_->Transact(whole)
                            : store_->TransactShard(lane_.shard, whole);
  if (work != nullptr) work->Finish(status);
  return status;
}

CommitQueueStats CommitQueue::stats() const {
  absl::MutexLock lock(&mutex_);
  return stats_;
}

void CommitQueue::Run() {
  std::deque<std::unique_ptr<CommitJob>> group;
  for (;;) {
    {
      absl::MutexLock lock(&mutex_);
      mutex_.Await(absl::Condition(
          +[](CommitQueue* q) ABSL_EXCLUSIVE_LOCKS_REQUIRED(q->mutex_) {
            return !q->queue_.empty() || q->stopping_;
          },
          this));
      // Drain before stopping: every submitted job gets its Finish. Later
      // submissions are finished by Submit itself.
      if (queue_.empty()) {
        stopped_ = true;
        return;
      }
      if (clock_ != nullptr) commit_started_ = clock_->Now();
      int64_t writes = 0;
      while (!queue_.empty() &&
             (group.empty() || writes < max_writes_per_commit_)) {
        writes += queue_.front()->NumWrites();
        queued_writes_ -= queue_.front()->NumWrites();
        group.push_back(std::move(queue_.front()));
        queue_.pop_front();
      }
    }
    CommitGroup(group);
    group.clear();
  }
}

void CommitQueue::CommitGroup(std::deque<std::unique_ptr<CommitJob>>& group) {
  const absl::Time started =
      clock_ != nullptr ? clock_->Now() : absl::InfinitePast();
  absl::Status status = Commit([&](StoreTransaction& transaction) {
    for (auto& job : group) {
      absl::Status applied = job->Apply(transaction);
      if (!applied.ok()) return applied;
    }
    return absl::OkStatus();
  });
  if (clock_ != nullptr && observe_commit_)
    observe_commit_(clock_->Now() - started);
  const bool isolate =
      !status.ok() && group.size() > 1 && !absl::IsUnavailable(status);
  {
    // Before any Finish, so a completed caller sees its own commit counted.
    absl::MutexLock lock(&mutex_);
    commit_started_ = absl::InfiniteFuture();
    stats_.transactions +=
        1 + (isolate ? static_cast<int64_t>(group.size()) : 0);
    stats_.jobs += static_cast<int64_t>(group.size());
  }
  if (!isolate) {
    for (auto& job : group) job->Finish(status);
    return;
  }
  for (auto& job : group) {
    job->Finish(Commit([&](StoreTransaction& transaction) {
      return job->Apply(transaction);
    }));
  }
}

}  // namespace ldp
