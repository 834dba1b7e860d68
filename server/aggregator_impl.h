// Internal: the aggregator's state and operations behind aggregator.h,
// shared by aggregator.cc (studies, estimates), aggregator_ingest.cc
// (enrollment, tasks, reports) and aggregator_load.cc (restart).
#ifndef LDP_SERVER_AGGREGATOR_IMPL_H_
#define LDP_SERVER_AGGREGATOR_IMPL_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "common/secure_random.h"
#include "server/agent_registry.h"
#include "server/aggregator_context.h"
#include "server/aggregator.h"
#include "server/server_stats.h"
#include "server/commit_queue.h"
#include "server/credential.h"
#include "server/programs/analyst_program.h"
#include "server/round_runtime.h"
#include "server/program_driver.h"
#include "server/report_ingest.h"
#include "server/round_lifecycle.h"
#include "server/study_registry.h"

namespace ldp {

class Aggregator::Impl {
 public:
  Impl(const AggregatorOptions& options, std::unique_ptr<Store> store,
       std::unique_ptr<SecureRandom> random);
  ~Impl();

  // aggregator_load.cc
  absl::Status Load();

  // aggregator_follow.cc: with a shared store, what other servers wrote.
  // Brings in their studies, rounds (new ones and closes) and reports, each
  // report counted once; with_ledger also refreshes the studies' ledger
  // summaries (a scan of the ledger: for analyst calls, not every poll).
  absl::Status Follow(bool with_ledger);
  // Starts the thread that calls Follow every options().follow_interval
  // (shared stores only); stopped by the destructor.
  void StartFollowing();
  // Follow, for analyst calls: their answers include every server's
  // reports. UNAVAILABLE if the database cannot be read.
  absl::Status CatchUp(bool with_ledger);
  // aggregator.cc
  absl::Status AuthenticateAnalyst(std::string_view token) const;
  absl::StatusOr<StudyInfo> CreateStudy(std::string spec_bytes,
                                        std::string request_id);
  absl::StatusOr<StudyInfo> GetStudy(uint64_t study_id);
  StudyPage ListStudies(int page_size, uint64_t page_start);
  absl::StatusOr<RoundEstimates> GetEstimates(uint64_t study_id,
                                              uint64_t round_id);
  absl::StatusOr<RoundInfo> AdvanceStudy(uint64_t study_id);

  // Shared by the jobs (writer thread).
  const Clock& clock() const { return *options_.clock; }
  const AggregatorOptions& options() const { return options_; }
  CommitQueue& queue() { return *queue_; }
  bool shared_store() const { return store_->shared(); }
  const CommitQueue& queue() const { return *queue_; }
  AgentRegistry& agents() { return agents_; }
  ServerStats& stats() { return stats_; }
  // Writes an event if the options name an event log.
  void Log(LogLevel level, std::string_view event,
           std::initializer_list<LogField> fields) const {
    if (options_.event_log != nullptr) options_.event_log->Write(level, event, fields);
  }
  // For Aggregator::Stats (aggregator.cc).
  AggregatorStats Stats() const;
  StudyRegistry& studies() { return studies_; }
  RoundLifecycle& rounds() { return lifecycle_; }
  ReportIngest& ingest() { return ingest_; }

 private:
  StudyInfo Info(const StudyRuntime& study) const;
  absl::StatusOr<std::shared_ptr<StudyRuntime>> NewStudy(
      std::string spec_bytes, std::string request_id);
  // The first round of a new study (its program's, for interactive ones).
  absl::StatusOr<RoundPlan> FirstRound(StudyRuntime& study);
  absl::Status LoadReports();
  // The largest stored round id.
  absl::StatusOr<uint64_t> LoadRounds(
      const absl::flat_hash_map<uint64_t, std::shared_ptr<StudyRuntime>>&
          studies);
  // A stored study or round as it runs (at load, and when following).
  absl::StatusOr<std::shared_ptr<StudyRuntime>> StudyFromRow(StudyRow row);
  absl::StatusOr<std::shared_ptr<RoundRuntime>> RoundFromRow(
      const StudyRuntime& study, const RoundRow& row);
  // Follow's parts (under follow_mutex_).
  absl::Status FollowStudiesAndRounds();
  absl::Status FollowReports();
  // Counts a report read from the store unless counted already; false when
  // its round is not known here (yet).
  absl::StatusOr<bool> CountStoredReport(const ReportRow& row,
                                         RoundEntry& cache);

  const AggregatorOptions options_;
  CredentialHash analyst_hash_;

  std::unique_ptr<Store> store_;
  ServerStats stats_;
  // Stopped by ~Impl before any member is destroyed, so jobs still queued
  // finish while everything they touch is alive.
  std::unique_ptr<CommitQueue> queue_;
  AggregatorContext context_;
  AgentRegistry agents_;
  StudyRegistry studies_;
  ProgramDriver programs_;
  RoundLifecycle lifecycle_;
  ReportIngest ingest_;

  // Shared stores: one Follow at a time, from where the last one stopped.
  absl::Mutex follow_mutex_;
  uint64_t report_cursor_ ABSL_GUARDED_BY(follow_mutex_) = 0;
  absl::Mutex follower_mutex_;
  bool stop_following_ ABSL_GUARDED_BY(follower_mutex_) = false;
  std::thread follower_;
};

}  // namespace ldp

#endif  // LDP_SERVER_AGGREGATOR_IMPL_H_
