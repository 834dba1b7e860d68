// Several servers on one shared store (PostgreSQL): how each one learns
// what the others wrote, on a thread of its own and before analyst calls.
//
// Why a class of its own: the database is the only source of truth for
// what counts (it refuses a second report for a task, a charge past the
// cap and a report into a round closed there); a server's memory is a
// cache that follows it. Studies and rounds are re-read whole (they are
// few); deltas incrementally, from a cursor that cannot skip a commit
// (Store::PollDeltas). Each delta names the tasks it counts, which this
// server marks as reported, and estimates grow by merging it
// (batch_statistics.h), counted once whichever path offers it first: this
// server's own commit or the poll. Report rows are read only where no
// delta names them (Store::PollReports: those of older schemas). Cursors,
// mutex and thread belong together.
#ifndef LDP_SERVER_CORE_STORE_FOLLOWER_H_
#define LDP_SERVER_CORE_STORE_FOLLOWER_H_

#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "server/core/aggregator_context.h"
#include "server/core/program_driver.h"
#include "server/core/restore.h"
#include "server/core/round_folder.h"
#include "server/core/round_lifecycle.h"
#include "server/core/study_registry.h"

namespace ldp {

// Thread-safe. With a store that is not shared, every call does nothing.
class StoreFollower {
 public:
  // Everything passed outlives this.
  StoreFollower(const AggregatorContext& context, StudyRegistry& studies,
                const ProgramDriver& programs, RoundLifecycle& rounds,
                const Restorer& restorer)
      : context_(context),
        studies_(studies),
        programs_(programs),
        rounds_(rounds),
        restorer_(restorer),
        folder_(context.store) {}
  // Stop()s.
  ~StoreFollower();
  StoreFollower(const StoreFollower&) = delete;
  StoreFollower& operator=(const StoreFollower&) = delete;

  // Starts the thread that calls Follow every options.follow_interval
  // (shared stores only).
  void Start();
  // Stops and joins that thread; a Follow in progress finishes first.
  void Stop();

  // Brings in what other servers wrote: their studies, rounds (new ones
  // and closes) and reports, each report counted once; with_ledger also
  // refreshes the studies' ledger summaries (a scan of the ledger: for
  // analyst calls, not every poll).
  absl::Status Follow(bool with_ledger);
  // Follow, for analyst calls: their answers include every server's
  // reports, and closed rounds answer from their stored statistics
  // (SettleClosedRounds). UNAVAILABLE if the database cannot be read.
  absl::Status CatchUp(bool with_ledger);
  // Makes the rounds closed in the store answer from their databases'
  // statistics (round_folder.h), folding those not stored yet. A round
  // that cannot be settled now (a database down) keeps answering from the
  // reports followed so far and is tried again on the next call; the error
  // is logged, not returned, so that analyst calls go on meanwhile; it is
  // not tried again for kSettleBackoff, so that a database that does not
  // answer slows no call for long.
  void SettleClosedRounds();
  // At load: every stored report and delta, so later polls pick up exactly
  // where this one ended.
  absl::Status ReadAllReports();

 private:
  using StudyMap = absl::flat_hash_map<uint64_t, std::shared_ptr<StudyRuntime>>;

  absl::Status FollowStudiesAndRounds()
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(follow_mutex_);
  // Studies new here (not registered yet); marks the others' closes.
  absl::StatusOr<StudyMap> FollowStudies()
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(follow_mutex_);
  // Adds new rounds: to `fresh` studies directly, to registered ones
  // through the registry (returned). Marks rounds closed elsewhere.
  absl::StatusOr<std::vector<RoundEntry>> FollowRounds(const StudyMap& fresh)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(follow_mutex_);
  static void FollowClose(RoundRuntime& round, RoundState stored);
  absl::Status FollowReports() ABSL_EXCLUSIVE_LOCKS_REQUIRED(follow_mutex_);
  absl::Status FollowDeltas() ABSL_EXCLUSIVE_LOCKS_REQUIRED(follow_mutex_);
  // Merges a stored delta into its round; false if the round is not known
  // here yet; DataLoss for a delta that does not fit its round.
  absl::StatusOr<bool> CountDelta(const DeltaRow& row, RoundEntry& entry)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(follow_mutex_);
  // Marks the tasks a delta names as reported; DataLoss for a task of
  // another round or question, or for a question with more or fewer tasks
  // than `batch` (the delta's statistics) counts.
  absl::Status MarkDeltaTasks(const DeltaRow& row, const RoundEntry& entry,
                              const std::vector<TaskAccumulator>& batch,
                              const std::vector<uint64_t>& task_ids)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(follow_mutex_);
  absl::Status FollowLedger() ABSL_EXCLUSIVE_LOCKS_REQUIRED(follow_mutex_);

  const AggregatorContext& context_;
  StudyRegistry& studies_;
  const ProgramDriver& programs_;
  RoundLifecycle& rounds_;
  const Restorer& restorer_;
  const RoundFolder folder_;

  static constexpr absl::Duration kSettleBackoff = absl::Seconds(5);

  // One Follow at a time, from where the last one stopped.
  absl::Mutex follow_mutex_;
  ReportCursor report_cursor_ ABSL_GUARDED_BY(follow_mutex_);
  ReportCursor delta_cursor_ ABSL_GUARDED_BY(follow_mutex_);
  // Rounds whose settling failed, and when to try again.
  absl::flat_hash_map<uint64_t, absl::Time> settle_after_
      ABSL_GUARDED_BY(follow_mutex_);

  absl::Mutex thread_mutex_;
  bool stop_ ABSL_GUARDED_BY(thread_mutex_) = false;
  std::thread thread_;
};

}  // namespace ldp

#endif  // LDP_SERVER_CORE_STORE_FOLLOWER_H_
