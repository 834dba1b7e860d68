// The aggregator: the server's protocol logic behind one thread-safe,
// domain-typed facade. The gRPC adapters (server/grpc/) translate wire
// messages into these calls and back; nothing here knows gRPC or generated
// proto types.
//
// Data flow (DESIGN "Data flow"): an analyst creates a study; the planner
// fixes, before any report arrives, which question each agent answers and
// at which εₜ (planner.h); agents fetch their tasks and upload reports; the
// aggregator authenticates, checks each report against its task, dedupes,
// charges the ledger exactly once, commits durably and only then
// acknowledges (DESIGN invariant 5), then adds the report to its
// question's accumulator. A round closes when every question has `quorum`
// reports or at its deadline; closed rounds refuse reports.
//
// Ingestion group-commits: every write goes to a writer thread
// (commit_queue.h), which applies all writes queued by concurrent callers in
// one transaction and one fsync, then completes each caller; a sharded
// store has one writer per shard and one for the catalog (commit_lanes.h). The
// `...Async` methods complete through a callback on that thread instead of
// blocking, for the gRPC callback API; the plain methods wait for it.
//
// Seams the caller provides:
// - Store (store.h): durable rows; SqliteStore is the default.
// - Clock (common/base/clock.h): deadlines and timestamps; tests use FakeClock.
//
// Study specs reach the aggregator parsed (StudySpec); it stores them, and
// the questions analyst programs ask, through study_codec.h.
//
// Restart: constructing an Aggregator on an existing store reloads agents,
// studies, rounds and every stored report, rebuilds the accumulators from
// the reports, and resumes open rounds.
#ifndef LDP_SERVER_CORE_AGGREGATOR_H_
#define LDP_SERVER_CORE_AGGREGATOR_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/functional/any_invocable.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "server/commit/commit_queue.h"
#include "server/core/aggregator_options.h"
#include "server/core/aggregator_types.h"
#include "server/store/store.h"

namespace ldp {

class Aggregator {
 public:
  // Reloads everything `store` holds. InvalidArgument for missing options;
  // the store's or codec's error if stored state cannot be reloaded.
  static absl::StatusOr<std::unique_ptr<Aggregator>> Create(
      const AggregatorOptions& options, std::unique_ptr<Store> store);

  // Commits every write already queued, then stops the writer thread.
  ~Aggregator();
  Aggregator(const Aggregator&) = delete;
  Aggregator& operator=(const Aggregator&) = delete;

  // ---- Agents --------------------------------------------------------
  // A new agent id and a fresh bearer token (32 bytes from SecureRandom);
  // only the token's SHA-256 is stored. UNAUTHENTICATED for a wrong
  // enrollment token, RESOURCE_EXHAUSTED for one whose quota is used up.
  // The agent exists once this returns.
  //
  // With a request id (`retry`, credential.h) the call is safe to
  // retry: the bearer secret is derived from the id, and the same token,
  // id and CSR again (after a lost reply, a crash, on another replica, or
  // at the same time) get the same agent and token, counted once against
  // the quota. INVALID_ARGUMENT for an id of 1 to 15 or over 64 bytes;
  // FAILED_PRECONDITION for an id first used with another CSR (or count).
  absl::StatusOr<Enrollment> Enroll(std::string_view enrollment_token,
                                    const EnrollRetry& retry = {});
  void EnrollAsync(
      std::string_view enrollment_token, const EnrollRetry& retry,
      absl::AnyInvocable<void(absl::StatusOr<Enrollment>) &&> done);
  void EnrollAsync(
      std::string_view enrollment_token,
      absl::AnyInvocable<void(absl::StatusOr<Enrollment>) &&> done) {
    EnrollAsync(enrollment_token, {}, std::move(done));
  }
  // The most reports one upload call, and agents one batch enrollment, may
  // carry (AggregatorOptions::max_reports_per_call).
  int max_reports_per_call() const;

  // `count` agents (1 to max_reports_per_call) in one commit, for relays;
  // all or none: INVALID_ARGUMENT for a bad count, and as Enroll otherwise
  // (RESOURCE_EXHAUSTED if the token's quota has fewer than `count` left).
  // The same agents, in the same order, for the same token, count and
  // request id again.
  void EnrollManyAsync(
      std::string_view enrollment_token, int count, const EnrollRetry& retry,
      absl::AnyInvocable<void(absl::StatusOr<std::vector<Enrollment>>) &&>
          done);
  void EnrollManyAsync(
      std::string_view enrollment_token, int count,
      absl::AnyInvocable<void(absl::StatusOr<std::vector<Enrollment>>) &&>
          done) {
    EnrollManyAsync(enrollment_token, count, {}, std::move(done));
  }

  // The agent the token belongs to; UNAUTHENTICATED otherwise. Constant
  // time in the secret.
  absl::StatusOr<uint64_t> AuthenticateAgent(
      std::string_view bearer_token) const;

  // The agent's tasks in open rounds that it has not reported on yet,
  // oldest study first. `agent_id` must be authenticated by the caller;
  // NOT_FOUND if it was never enrolled. max_tasks = 0: the default.
  absl::StatusOr<std::vector<TaskAssignment>> GetTasks(uint64_t agent_id,
                                                       int max_tasks = 0);
  // GetTasks for each poll against one view of the open rounds, taken once
  // (a relay's batch); result k answers polls[k].
  struct TaskPoll {
    uint64_t agent_id = 0;  // authenticated by the caller
    int max_tasks = 0;
  };
  std::vector<absl::StatusOr<std::vector<TaskAssignment>>> GetTasksMany(
      absl::Span<const TaskPoll> polls);

  // One status per report, in order, each final once returned:
  //   OK                   durable (also for an identical retry, uncharged);
  //   INVALID_ARGUMENT     payload does not fit the task, or too many reports;
  //   NOT_FOUND            no such task;
  //   PERMISSION_DENIED    the task belongs to another agent;
  //   ALREADY_EXISTS       the task already has a different report;
  //   FAILED_PRECONDITION  round closed, or the charge would exceed the cap;
  //   UNAVAILABLE          the store failed; nothing was stored, retry.
  // `agent_id` must be authenticated by the caller.
  std::vector<absl::Status> UploadReports(uint64_t agent_id,
                                          std::vector<TaskReport> reports);
  // As above; `done` runs once, after the commit, on the writer thread (or
  // on the calling thread if nothing needs writing). It must not block.
  void UploadReportsAsync(
      uint64_t agent_id, std::vector<TaskReport> reports,
      absl::AnyInvocable<void(std::vector<absl::Status>) &&> done);
  // As UploadReportsAsync, each report from its own agent (every agent_id
  // authenticated by the caller): how a relay's batch is one group commit.
  // At most max_reports_per_call reports.
  void UploadAgentReportsAsync(
      std::vector<AgentReport> reports,
      absl::AnyInvocable<void(std::vector<absl::Status>) &&> done);

  // Shuffled studies (DESIGN invariant 9). The question a shuffled batch
  // names, as an assignment whose task_id is the shuffled task id (agent
  // bits 0): NOT_FOUND for no such study, round or question,
  // FAILED_PRECONDITION if the study is not shuffled or the round closed.
  absl::StatusOr<TaskAssignment> ShuffledQuestion(uint64_t study_id,
                                                  uint64_t round_id,
                                                  uint32_t question) const;
  // Stores an opened shuffled batch whole or not at all, then counts its
  // new reports. As ShuffledQuestion's errors, plus FAILED_PRECONDITION
  // when fewer than the study's min_batch valid, new reports remain, and
  // UNAVAILABLE when the store failed (retry with the same batch_id). A
  // stored batch_id gets the first outcome again. `done` runs as for
  // UploadReportsAsync.
  void DeliverShuffledBatchAsync(
      ShuffledBatch batch,
      absl::AnyInvocable<void(absl::StatusOr<ShuffledBatchOutcome>) &&> done);
  absl::StatusOr<ShuffledBatchOutcome> DeliverShuffledBatch(
      ShuffledBatch batch);

  // The server's ledger for the agent: one entry per study it was charged
  // in (only `study_id`'s if non-zero).
  absl::StatusOr<std::vector<LedgerEntry>> GetBudget(uint64_t agent_id,
                                                     uint64_t study_id = 0);

  // ---- Analysts --------------------------------------------------------
  // OK iff `token` is the configured analyst token (constant time).
  absl::Status AuthenticateAnalyst(std::string_view token) const;

  // Validates and plans the study (InvalidArgument with the reason
  // otherwise; FailedPrecondition if its deadline has passed), stores it and
  // opens its first round. A repeated non-empty `request_id` returns the
  // study it created first, without creating another.
  absl::StatusOr<StudyInfo> CreateStudy(StudySpec spec,
                                        std::string request_id = "");
  absl::StatusOr<StudyInfo> GetStudy(uint64_t study_id);
  // Studies with id ≤ page_start (0 = from the newest), newest first.
  StudyPage ListStudies(int page_size, uint64_t page_start = 0);
  // Interactive studies: closes the open round now (kClosedEarly) and lets
  // the study's program plan the next one, which is returned — or, when the
  // program is done, the closed last round (the study is then closed).
  // NOT_FOUND for no such study; FAILED_PRECONDITION for a noninteractive
  // or already finished study (the message says which).
  absl::StatusOr<RoundInfo> AdvanceStudy(uint64_t study_id);
  // Estimates of one round (round_id 0 = the study's latest round).
  absl::StatusOr<RoundEstimates> GetEstimates(uint64_t study_id,
                                              uint64_t round_id = 0);

  // ---- Operations --------------------------------------------------------
  // Closes (durably) every open round whose deadline has passed. Analyst
  // calls do this first; a server should also call it periodically so
  // rounds close without an analyst watching.
  void CloseExpiredRounds();

  // Group-commit counters since construction (transactions, jobs).
  CommitQueueStats commit_stats() const;
  // Everything operators watch; thread-safe, cheap (a pass over studies).
  AggregatorStats Stats() const;

 public:
  class Impl;  // internal (aggregator_impl.h)

 private:
  explicit Aggregator(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace ldp

#endif  // LDP_SERVER_CORE_AGGREGATOR_H_
