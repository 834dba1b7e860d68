// The aggregator's in-memory state of one round: its plan, one accumulator
// per question, which tasks already have a stored report, and whether it
// still accepts reports.
//
// Threading: the aggregator's writer threads (one, or one per shard) add
// reports and change the state (with a shared store, so does the thread
// following the database);
// request threads read concurrently. Each
// question's accumulator has its own lock, taken once per stored report by
// the writer and briefly by estimate readers, so ingestion never contends
// on it; the set of reported tasks (task_id_set.h) takes no lock at all for
// this round's ids.
#ifndef LDP_SERVER_ROUNDS_ROUND_RUNTIME_H_
#define LDP_SERVER_ROUNDS_ROUND_RUNTIME_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/task_estimation/task_accumulator.h"
#include "common/tasks/study_spec.h"
#include "common/tasks/task_mechanism.h"
#include "planning/planner.h"
#include "server/rounds/task_id_set.h"
#include "server/store/store.h"

namespace ldp {

class RoundRuntime {
 public:
  RoundRuntime(const RoundRow& row, std::shared_ptr<const StudySpec> study,
               RoundPlan plan);
  RoundRuntime(const RoundRuntime&) = delete;
  RoundRuntime& operator=(const RoundRuntime&) = delete;

  uint64_t round_id() const { return round_id_; }
  uint64_t study_id() const { return study_id_; }
  const std::shared_ptr<const StudySpec>& study() const { return study_; }
  const RoundPlan& plan() const { return plan_; }
  absl::Time start_time() const { return start_time_; }
  absl::Time deadline() const { return deadline_; }
  int num_questions() const { return static_cast<int>(questions_.size()); }

  // The question's task with study and round ids set (task_id 0).
  const std::shared_ptr<const Task>& task(int q) const {
    return questions_[q]->task;
  }
  const TaskMechanism& mechanism(int q) const {
    return *plan_.questions()[q].mechanism;
  }

  RoundState state() const { return state_.load(std::memory_order_acquire); }
  // Writer thread only.
  void set_state(RoundState state) {
    state_.store(state, std::memory_order_release);
  }
  bool AcceptsReportsAt(absl::Time now) const {
    return state() == RoundState::kOpen && now < deadline_;
  }
  // True for the first caller only: that caller queues the close.
  bool ClaimClose() { return !close_claimed_.exchange(true); }
  // Interactive studies: true for the first caller only, which asks the
  // program for the round after this one.
  bool ClaimAdvance() { return !advance_claimed_.exchange(true); }

  // Counts a stored report for question q, once: AlreadyExists if the task
  // was counted before. Thread-safe.
  absl::Status Accumulate(uint64_t task_id, int q,
                          const ReportPayload& payload);
  bool HasReport(uint64_t task_id) const { return reported_.Contains(task_id); }
  // Adds one batch's statistics (batch_statistics.h): `batch` holds one
  // accumulator per question, every report in it durable, none of them
  // counted by Accumulate. Internal for accumulators of another plan.
  // Thread-safe.
  absl::Status MergeBatch(const std::vector<TaskAccumulator>& batch);
  // MergeBatch for a stored delta: does nothing if delta `delta_id` was
  // merged before (its writer and the servers following the store may each
  // offer it, and exactly one must count it) and returns false then.
  absl::StatusOr<bool> MergeDelta(uint64_t delta_id,
                                  const std::vector<TaskAccumulator>& batch);
  // Marks a stored report's task as reported, once (false if it was): its
  // payload is counted by a delta, or by the round's statistics.
  bool MarkReported(uint64_t task_id) { return reported_.Insert(task_id); }
  // Shuffled studies: counts a stored report of a shuffled batch, which has
  // no task of its own (the store refused duplicates by report id).
  // Thread-safe.
  absl::Status AccumulateShuffled(int q, const ReportPayload& payload);
  // A shuffled batch of `accepted` reports was stored for question q.
  void RecordShuffledBatch(int q, int64_t accepted);
  struct ShuffledBatches {
    int64_t count = 0;
    int64_t smallest = 0;  // 0 when count is 0
  };
  ShuffledBatches shuffled_batches(int q) const;
  int64_t num_reports(int q) const {
    return questions_[q]->num_reports.load(std::memory_order_relaxed);
  }
  // Every question has at least `quorum` (> 0) reports.
  bool QuorumReached(int64_t quorum) const;

  TaskEstimate Estimate(int q, double confidence) const;

  // Shared stores: a closed round answers from its databases' stored
  // statistics (round_folder.h) instead of the reports this server
  // counted one by one. An empty accumulator for question q, of the kind
  // the round's reports are counted in.
  TaskAccumulator NewAccumulator(int q) const;
  // Makes question q answer from `merged[q]` (one per question), which
  // holds every report the round will ever have: a report counted after
  // this only marks its task as reported. Thread-safe.
  void AdoptStatistics(std::vector<TaskAccumulator> merged);
  bool answers_from_statistics() const {
    return from_statistics_.load(std::memory_order_acquire);
  }

  // Repeated questions. An honest agent answers a question it answered
  // before (same canonical fingerprint, task_fingerprint.h) from memory,
  // so the server must not charge it again either (ledger_charge.h).
  struct Asking {
    std::shared_ptr<const RoundRuntime> round;  // null: this round
    int question = 0;
  };
  const std::string& fingerprint(int q) const {
    return questions_[q]->fingerprint;
  }
  // Where this study asked question q before: earlier rounds, and earlier
  // questions of this round. Set by LinkEarlierAskings before the round is
  // published, read-only after.
  const std::vector<Asking>& earlier_askings(int q) const {
    return questions_[q]->earlier;
  }
  // Links every question to the earlier askings of the same question among
  // `earlier` (the study's rounds before this one). Call once, before the
  // round is visible to any other thread.
  void LinkEarlierAskings(
      const std::vector<std::shared_ptr<RoundRuntime>>& earlier);

 private:
  struct Question {
    Question(std::shared_ptr<const Task> t,
             std::shared_ptr<const TaskMechanism> mechanism,
             WorkloadEstimation workload)
        : task(std::move(t)),
          accumulator(std::move(mechanism), std::move(workload)) {}
    std::shared_ptr<const Task> task;
    std::string fingerprint;
    std::vector<Asking> earlier;
    mutable absl::Mutex mutex;
    TaskAccumulator accumulator ABSL_GUARDED_BY(mutex);
    ShuffledBatches shuffled ABSL_GUARDED_BY(mutex);
    // The accumulator holds the round's stored statistics: nothing more
    // is added to it.
    bool from_statistics ABSL_GUARDED_BY(mutex) = false;
    std::atomic<int64_t> num_reports{0};
  };

  // Internal unless `batch` has one accumulator per question.
  absl::Status CheckBatch(const std::vector<TaskAccumulator>& batch) const;

  const uint64_t round_id_;
  const uint64_t study_id_;
  const std::shared_ptr<const StudySpec> study_;
  const RoundPlan plan_;
  const absl::Time start_time_;
  const absl::Time deadline_;
  std::vector<std::unique_ptr<Question>> questions_;
  std::atomic<RoundState> state_;
  std::atomic<bool> close_claimed_{false};
  std::atomic<bool> advance_claimed_{false};
  std::atomic<bool> from_statistics_{false};
  TaskIdSet reported_;
  // The stored deltas merged here (shared stores only).
  absl::Mutex deltas_mutex_;
  absl::flat_hash_set<uint64_t> merged_deltas_ ABSL_GUARDED_BY(deltas_mutex_);
};

}  // namespace ldp

#endif  // LDP_SERVER_ROUNDS_ROUND_RUNTIME_H_
