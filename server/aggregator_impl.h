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
#include "server/agent_directory.h"
#include "server/aggregator.h"
#include "server/server_stats.h"
#include "server/commit_queue.h"
#include "server/credential.h"
#include "server/programs/analyst_program.h"
#include "server/round_runtime.h"

namespace ldp {

struct StudyRuntime {
  uint64_t study_id = 0;
  std::shared_ptr<const StudySpec> spec{};
  std::shared_ptr<const std::string> spec_bytes{};
  std::string request_id{};
  absl::Time created_at;
  std::atomic<StudyState> state{StudyState::kActive};
  // Interactive studies: the analyst program that plans each next round.
  std::shared_ptr<const AnalystProgram> program{};
  std::vector<ScheduledRound> schedule{};

  // A snapshot of the rounds, oldest first.
  std::vector<std::shared_ptr<RoundRuntime>> Rounds() const {
    absl::MutexLock lock(&mutex);
    return rounds;
  }
  std::shared_ptr<RoundRuntime> LatestRound() const {
    absl::MutexLock lock(&mutex);
    return rounds.empty() ? nullptr : rounds.back();
  }
  void AddRound(std::shared_ptr<RoundRuntime> round) {
    absl::MutexLock lock(&mutex);
    round->LinkEarlierAskings(rounds);
    rounds.push_back(std::move(round));
  }
  std::optional<ProgramResult> Result(bool* done) const {
    absl::MutexLock lock(&mutex);
    *done = program_done;
    return program_result;
  }
  void SetResult(ProgramResult result, bool done) {
    absl::MutexLock lock(&mutex);
    program_result = std::move(result);
    program_done = done;
  }

  mutable absl::Mutex mutex;
  // Appended by the writer thread (or at load) only.
  std::vector<std::shared_ptr<RoundRuntime>> rounds ABSL_GUARDED_BY(mutex){};
  std::optional<ProgramResult> program_result ABSL_GUARDED_BY(mutex){};
  bool program_done ABSL_GUARDED_BY(mutex) = false;
  // Written by the writer thread only.
  std::atomic<int64_t> num_agents{0};
  std::atomic<int64_t> num_reports{0};
  std::atomic<int64_t> max_spent_nanos{0};
};

// A round with its study, as ingestion needs both.
struct RoundEntry {
  std::shared_ptr<RoundRuntime> round{};
  std::shared_ptr<StudyRuntime> study{};
};

// One admitted report on its way through the writer thread.
struct PendingReport {
  int index = 0;  // in the caller's batch
  RoundEntry entry{};
  int question = 0;
  ReportRow row{};
  ReportPayload payload{};
  // Set by Apply.
  bool admitted = false;
  AppendResult result{};
};

// An enrollment token's key in Impl's batches and in
// AgentRow::enrollment_batch: its SHA-256, so the store never holds a token.
inline std::string EnrollmentBatchKey(std::string_view token) {
  const CredentialHash hash = Sha256(token);
  return std::string(hash.begin(), hash.end());
}

// A round's estimates as an analyst program sees them (AddSamplingVariance
// applied), in question order.
RoundAnswers AnswersOf(const RoundRuntime& round, double confidence);

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
  // `count` fresh ids of `kind`: from memory, or from the shared store.
  absl::StatusOr<uint64_t> NextIds(IdKind kind, int64_t count);

  // aggregator_ingest.cc
  void EnrollAsync(
      std::string_view enrollment_token,
      absl::AnyInvocable<void(absl::StatusOr<Enrollment>) &&> done);
  void EnrollManyAsync(
      std::string_view enrollment_token, int count,
      absl::AnyInvocable<void(absl::StatusOr<std::vector<Enrollment>>) &&>
          done);
  absl::StatusOr<uint64_t> AuthenticateAgent(std::string_view token);
  // Gives back `count` slots Enroll reserved in `batch` for agents that were
  // not stored after all.
  void ReleaseEnrollment(const std::string& batch, int64_t count);
  // A shared store counted `stored` agents in `batch` (every server's):
  // raises this server's count to it, so its early refusals see them too.
  void NoteStoredEnrollments(const std::string& batch, int64_t stored);
  absl::StatusOr<std::vector<TaskAssignment>> GetTasks(uint64_t agent_id,
                                                       int max_tasks);
  void UploadReportsAsync(
      uint64_t agent_id, std::vector<TaskReport> reports,
      absl::AnyInvocable<void(std::vector<absl::Status>) &&> done);
  void UploadAgentReportsAsync(
      std::vector<AgentReport> reports,
      absl::AnyInvocable<void(std::vector<absl::Status>) &&> done);
  absl::StatusOr<std::vector<LedgerEntry>> GetBudget(uint64_t agent_id,
                                                     uint64_t study_id);
  // Whether the agent is enrolled: in memory, or (shared stores) enrolled
  // by another server, then remembered. UNAVAILABLE if the database fails.
  absl::StatusOr<bool> KnowsAgent(uint64_t agent_id);

  // aggregator.cc
  absl::Status AuthenticateAnalyst(std::string_view token) const;
  absl::StatusOr<StudyInfo> CreateStudy(std::string spec_bytes,
                                        std::string request_id);
  absl::StatusOr<StudyInfo> GetStudy(uint64_t study_id);
  StudyPage ListStudies(int page_size, uint64_t page_start);
  absl::StatusOr<RoundEstimates> GetEstimates(uint64_t study_id,
                                              uint64_t round_id);
  absl::StatusOr<RoundInfo> AdvanceStudy(uint64_t study_id);
  void CloseExpiredRounds();

  // Interactive studies (writer thread, or load): asks the program for the
  // step after every closed round of `study`. Returns the next round, not yet
  // stored or registered, or nullptr when the program is done (then its
  // result is final). Updates the study's result either way.
  absl::StatusOr<std::shared_ptr<RoundRuntime>> PlanNextRound(
      StudyRuntime& study, absl::Time now);
  // Makes a round planned by PlanNextRound visible (after it is stored).
  void RegisterRound(const std::shared_ptr<StudyRuntime>& study,
                     std::shared_ptr<RoundRuntime> round);
  RoundRow RowOf(const RoundRuntime& round) const;

  // Shared by the jobs (writer thread).
  const Clock& clock() const { return *options_.clock; }
  const AggregatorOptions& options() const { return options_; }
  CommitQueue& queue() { return *queue_; }
  bool shared_store() const { return store_->shared(); }
  const CommitQueue& queue() const { return *queue_; }
  AgentDirectory& agents() { return agents_; }
  ServerStats& stats() { return stats_; }
  // Writes an event if the options name an event log.
  void Log(LogLevel level, std::string_view event,
           std::initializer_list<LogField> fields) const {
    if (options_.event_log != nullptr) options_.event_log->Write(level, event, fields);
  }
  // For Aggregator::Stats (aggregator.cc).
  AggregatorStats Stats() const;
  // Queues the durable close of a round whose state the caller decided
  // (state already set for quorum; set by the job for deadlines).
  void QueueClose(const RoundEntry& entry, RoundState state);
  // After stored reports: close the round if every question has quorum.
  void CheckQuorum(const RoundEntry& entry);
  void Register(std::shared_ptr<StudyRuntime> study);

 private:
  RoundEntry FindRound(uint64_t round_id) const;
  std::shared_ptr<StudyRuntime> FindStudy(uint64_t study_id) const;
  std::vector<std::shared_ptr<StudyRuntime>> AllStudies() const;
  StudyInfo Info(const StudyRuntime& study) const;
  absl::StatusOr<std::shared_ptr<StudyRuntime>> NewStudy(
      std::string spec_bytes, std::string request_id);
  // The first round of a new study (its program's, for interactive ones).
  absl::StatusOr<RoundPlan> FirstRound(StudyRuntime& study);
  // A program round's plan from the program's request.
  absl::StatusOr<RoundPlan> PlanProgramRound(const StudyRuntime& study,
                                             const ProgramRound& round,
                                             size_t index);
  // Interactive studies at load: rebuilds the program, and plans the next
  // round if a crash came between a round's close and the next one.
  absl::Status ResumeProgram(const std::shared_ptr<StudyRuntime>& study);
  // The program's reported result, recomputed from the study's rounds.
  absl::Status RecomputeProgramResult(StudyRuntime& study);
  // An interactive study's program and schedule, from its spec (at creation
  // and at load).
  absl::Status LoadProgram(StudyRuntime& study);
  // Waits until every job submitted before it has finished.
  void Barrier();
  // Takes `count` slots in the token's quota (aggregator_ingest.cc); sets
  // `batch` and returns the token's max_agents (0: no quota, or open
  // enrollment). UNAUTHENTICATED for a wrong token, RESOURCE_EXHAUSTED
  // when the slots are not there.
  absl::StatusOr<int64_t> ReserveEnrollment(std::string_view enrollment_token,
                                            int count, std::string& batch);
  // Admission checks of one report on the request thread; OK means it was
  // added to `pending` (aggregator_ingest.cc).
  absl::StatusOr<RoundEntry> AdmitTask(uint64_t agent_id, uint64_t task_id,
                                       RoundEntry& cache) const;
  absl::Status AdmitReport(uint64_t agent_id, TaskReport report, absl::Time now,
                           RoundEntry& cache,
                           std::vector<PendingReport>& pending);
  absl::Status LoadReports();
  absl::Status LoadRounds(
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

  // Accepted enrollment tokens, keyed by their SHA-256 (as raw bytes; this
  // is AgentRow::enrollment_batch), with the number of agents each admitted
  // (stored plus in flight). Empty = open enrollment. Looking a token up by
  // its hash leaks nothing useful through timing: the attacker does not
  // control the hash.
  //
  // With a shared store, `enrolled` is only this server's lower bound of
  // the batch's agents (those stored at load, its own since, and any count
  // the database answered); the database counts and decides (see
  // ReserveEnrollment).
  struct EnrollmentBatch {
    int64_t max_agents = 0;  // 0 = no quota
    int64_t enrolled = 0;
  };
  absl::Mutex enrollment_mutex_;
  absl::flat_hash_map<std::string, EnrollmentBatch> enrollment_batches_
      ABSL_GUARDED_BY(enrollment_mutex_);
  const bool open_enrollment_;
  std::unique_ptr<Store> store_;
  AgentDirectory agents_;
  ServerStats stats_;

  absl::Mutex random_mutex_;
  std::unique_ptr<SecureRandom> random_ ABSL_GUARDED_BY(random_mutex_);

  std::atomic<uint64_t> next_agent_id_{1};
  std::atomic<uint64_t> next_study_id_{1};
  std::atomic<uint64_t> next_round_id_{1};

  mutable absl::Mutex registry_mutex_;
  std::map<uint64_t, std::shared_ptr<StudyRuntime>> studies_
      ABSL_GUARDED_BY(registry_mutex_);
  absl::flat_hash_map<uint64_t, RoundEntry> rounds_
      ABSL_GUARDED_BY(registry_mutex_);
  absl::flat_hash_map<std::string, uint64_t> request_ids_
      ABSL_GUARDED_BY(registry_mutex_);

  // Shared stores: one Follow at a time, from where the last one stopped.
  absl::Mutex follow_mutex_;
  uint64_t report_cursor_ ABSL_GUARDED_BY(follow_mutex_) = 0;
  // Agent ids reserved from a shared store and not yet used: [next, end).
  absl::Mutex id_block_mutex_;
  uint64_t agent_block_next_ ABSL_GUARDED_BY(id_block_mutex_) = 0;
  uint64_t agent_block_end_ ABSL_GUARDED_BY(id_block_mutex_) = 0;
  absl::Mutex follower_mutex_;
  bool stop_following_ ABSL_GUARDED_BY(follower_mutex_) = false;
  std::thread follower_;

  // Last: destroyed first, so jobs still queued finish while everything
  // they touch is alive.
  std::unique_ptr<CommitQueue> queue_;
};

}  // namespace ldp

#endif  // LDP_SERVER_AGGREGATOR_IMPL_H_
