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
// Ingestion group-commits: every write goes to one writer thread
// (commit_queue.h), which applies all writes queued by concurrent callers in
// one SQLite transaction and one fsync, then completes each caller. The
// `...Async` methods complete through a callback on that thread instead of
// blocking, for the gRPC callback API; the plain methods wait for it.
//
// Seams the caller provides:
// - Store (store.h): durable rows; SqliteStore is the default.
// - Clock (common/clock.h): deadlines and timestamps; tests use FakeClock.
//
// Study specs reach the aggregator parsed (StudySpec); it stores them, and
// the questions analyst programs ask, through study_codec.h.
//
// Restart: constructing an Aggregator on an existing store reloads agents,
// studies, rounds and every stored report, rebuilds the accumulators from
// the reports, and resumes open rounds.
#ifndef LDP_SERVER_AGGREGATOR_H_
#define LDP_SERVER_AGGREGATOR_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/functional/any_invocable.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "common/clock.h"
#include "common/consistency.h"
#include "common/estimate.h"
#include "common/study_spec.h"
#include "common/task.h"
#include "common/task_estimate.h"
#include "common/task_mechanism.h"
#include "server/commit_queue.h"
#include "server/event_log.h"
#include "server/server_stats.h"
#include "planning/planner.h"
#include "server/store.h"

namespace ldp {

// An enrollment token for one device batch. It admits at most `max_agents`
// agents in total; the count is kept in the store (each agent row names the
// token that admitted it), so a leaked or abused token mints a bounded
// number of agents even across restarts.
struct EnrollmentQuota {
  std::string token{};
  int64_t max_agents = 1;  // ≥ 1
};

struct AggregatorOptions {
  // Required; not owned, must outlive the aggregator.
  const Clock* clock = nullptr;
  // Required, ≥ 16 characters: the analyst credential (from server config).
  std::string analyst_token{};
  // If non-empty, Enroll accepts this token, any number of times.
  std::string enrollment_token{};
  // Further accepted tokens, each with a quota (distinct, non-empty, and
  // not `enrollment_token`). Enrollment is open iff both are empty.
  std::vector<EnrollmentQuota> enrollment_quotas{};
  // GetTasks returns at most this many tasks when asked for 0.
  int default_max_tasks = 64;
  // UploadReports accepts at most this many reports per call.
  int max_reports_per_call = 1000;
  // Writes per group commit, at most (bounds one transaction's latency).
  int max_writes_per_commit = 8192;
  // Backpressure: writes (reports, enrollments) waiting for a commit, at
  // most; beyond it uploads and enrollments are answered RESOURCE_EXHAUSTED
  // (retry with backoff) instead of queueing without limit. A queued report
  // holds ~0.5 KB, so the default bounds the queue near 50 MB. 0 = no bound.
  int64_t max_queued_writes = 100'000;
  // How workload questions' strategies are planned at CreateStudy (the
  // optimizers' cache directory and time limit); wire_sized_only is
  // always on.
  StrategyPlannerOptions strategy_planner{};
  // Structured events (studies created, rounds opened and closed, failed
  // commits, refused enrollments); not owned, may be null.
  EventLog* event_log = nullptr;
  // Shared stores (several servers on one database): how often this server
  // reads what the others wrote (studies, rounds, reports). Analyst calls
  // also catch up first, so their answers never lag; this bounds how stale
  // task lists and quorum checks can be. > 0.
  absl::Duration follow_interval = absl::Milliseconds(250);
};

struct Enrollment {
  uint64_t agent_id = 0;
  // "<agent_id>.<64 hex digits>"; present it to AuthenticateAgent.
  std::string bearer_token{};
};

// One report with the authenticated agent it comes from: a relay uploads
// many agents' reports in one call (relay_service.proto).
struct AgentReport {
  uint64_t agent_id = 0;
  TaskReport report{};
};

// One task as the agent receives it. The question and randomizer are shared
// by every agent answering the same question of the same round, so an
// adapter may cache their wire form keyed by `question.get()`.
struct TaskAssignment {
  uint64_t task_id = 0;
  // study_id, round_id, epsilon_nanos and question are set; task_id is 0 —
  // this assignment's `task_id` is the agent's. MakeTask() combines them.
  std::shared_ptr<const Task> question{};
  // The study's spec (`study->schema` is the record schema).
  std::shared_ptr<const StudySpec> study{};
  absl::Time deadline = absl::InfinitePast();

  Task MakeTask() const;
};

struct QuestionInfo {
  std::string question_id{};
  int64_t epsilon_nanos = 0;
  double implemented_epsilon = 0;
  std::string mechanism{};  // e.g. "optimized_unary_encoding", "hybrid"
  // Fraction of agents assigned (sample splitting), or 1 (ε splitting).
  double share = 0;
  int64_t num_reports = 0;
  std::shared_ptr<const Task> question{};  // as in TaskAssignment
};

struct RoundInfo {
  uint64_t round_id = 0;
  // Rounds of an analyst program: the name in its schedule and the slice of
  // the population asked ("" and [0, 1) otherwise).
  std::string name{};
  AgentSlice slice{};
  // ... and the questions the program asked in it (empty for a
  // noninteractive round: the study spec's questions).
  bool from_program = false;
  std::vector<Question> program_questions{};
  RoundState state = RoundState::kOpen;
  absl::Time start_time = absl::InfinitePast();
  absl::Time deadline = absl::InfinitePast();
  SplitStrategy strategy = SplitStrategy::kSampleSplitting;
  std::string plan_explanation{};
  std::vector<QuestionInfo> questions{};  // in the spec's order
};

struct StudyInfo {
  uint64_t study_id = 0;
  std::shared_ptr<const StudySpec> spec{};
  StudyState state = StudyState::kActive;
  absl::Time create_time = absl::InfinitePast();
  std::vector<RoundInfo> rounds{};  // oldest first
  int64_t num_agents = 0;           // agents charged at least once
  int64_t num_reports = 0;          // over all rounds
  int64_t max_spent_nanos = 0;      // largest spend of any agent (≤ cap)
  // Interactive studies: what the analyst program has learned so far, and
  // whether it is done (then the result is final and the study closed).
  std::optional<ProgramResult> program_result{};
  bool program_done = false;
};

struct StudyPage {
  std::vector<StudyInfo> studies{};  // newest first
  // Pass as `page_start` for the next page; 0 when there is none.
  uint64_t next_page_start = 0;
};

struct QuestionEstimate {
  std::string question_id{};
  // ScalarEstimate (interval at the study's confidence),
  // HistogramEstimate (unbiased, with variances) or WorkloadAnswer (band at
  // the study's confidence).
  TaskEstimate estimate{};
  // Histograms only: per-item normal intervals at the study's confidence.
  std::vector<Interval> item_intervals{};
  // Histograms with post-processing only: the consistent copy.
  std::optional<ConsistencyMethod> post_processing{};
  std::vector<double> post_processed{};
  int64_t epsilon_nanos = 0;
  double implemented_epsilon = 0;
  std::string mechanism{};
  std::shared_ptr<const Task> question{};  // labels: encoding.Describe(v)
  // Workload questions: the strategy as planned (description, predicted
  // variances) and the estimator, whose workload labels the answers.
  std::optional<StrategyDecision> strategy{};
  std::shared_ptr<const WorkloadEstimator> workload_estimator{};
};

struct RoundEstimates {
  uint64_t study_id = 0;
  uint64_t round_id = 0;
  // Estimates of an open round are interim: more reports may still come.
  RoundState state = RoundState::kOpen;
  double confidence = 0;
  std::vector<QuestionEstimate> questions{};  // in the spec's order
};

// What operators watch (server/metrics/ exports it): counters since the
// process started, and the state of studies and rounds now.
struct AggregatorStats {
  ServerStats::Snapshot counters{};
  int64_t studies_active = 0;
  int64_t studies_closed = 0;
  int64_t rounds_open = 0;
  int64_t rounds_closed = 0;
  int64_t agents_enrolled = 0;  // in the store, including earlier runs
  int64_t reports_stored = 0;   // over all studies
  CommitQueueStats commits{};
  int64_t queued_writes = 0;    // waiting for a commit now
};

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
  absl::StatusOr<Enrollment> Enroll(std::string_view enrollment_token);
  void EnrollAsync(
      std::string_view enrollment_token,
      absl::AnyInvocable<void(absl::StatusOr<Enrollment>) &&> done);
  // The most reports one upload call, and agents one batch enrollment, may
  // carry (AggregatorOptions::max_reports_per_call).
  int max_reports_per_call() const;

  // `count` agents (1 to max_reports_per_call) in one commit, for relays;
  // all or none: INVALID_ARGUMENT for a bad count, and as Enroll otherwise
  // (RESOURCE_EXHAUSTED if the token's quota has fewer than `count` left).
  void EnrollManyAsync(
      std::string_view enrollment_token, int count,
      absl::AnyInvocable<void(absl::StatusOr<std::vector<Enrollment>>) &&>
          done);

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

#endif  // LDP_SERVER_AGGREGATOR_H_
