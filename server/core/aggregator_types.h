// The values the aggregator's calls take and return: enrollments, task
// assignments, study, round and question descriptions, estimates and
// operators' statistics. Plain structs in domain types; the gRPC adapters
// translate them, and the collaborators of server/core build them without
// the facade (aggregator.h).
#ifndef LDP_SERVER_CORE_AGGREGATOR_TYPES_H_
#define LDP_SERVER_CORE_AGGREGATOR_TYPES_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/time/time.h"
#include "common/estimation/consistency.h"
#include "common/estimation/estimate.h"
#include "common/task_estimation/task_estimate.h"
#include "common/tasks/study_spec.h"
#include "common/tasks/task.h"
#include "planning/planner.h"
#include "server/commit/commit_queue.h"
#include "server/store/store.h"
#include "server/telemetry/server_stats.h"

namespace ldp {

struct Enrollment {
  uint64_t agent_id = 0;
  // "<agent_id>.<64 hex digits>"; present it to AuthenticateAgent.
  std::string bearer_token{};
};

// What makes an Enroll or EnrollBatch call safe to retry
// (agent_service.proto, EnrollRequest.request_id). Views, read only during
// the call that takes them.
struct EnrollRetry {
  // 16 to 64 bytes the client drew once per enrollment; "" = none.
  std::string_view request_id{};
  // The CSR the client sent ("" = none): a retry must send the same.
  std::string_view csr_pem{};
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

// A shuffled batch as the service edge opened it (DESIGN invariant 9): no
// agent, no arrival time. Each report's task_id is the shuffled task id.
struct ShuffledBatch {
  ReportId batch_id{};  // the shuffler's idempotency key
  uint64_t study_id = 0;
  uint64_t round_id = 0;
  uint32_t question = 0;
  std::vector<TaskReport> reports{};
  // Payloads the edge dropped: they did not open, or did not parse.
  int64_t not_opened = 0;
  int64_t invalid = 0;
  std::string first_error{};
};

// What became of a shuffled batch's payloads.
struct ShuffledBatchOutcome {
  int64_t accepted = 0;
  int64_t not_opened = 0;
  int64_t invalid = 0;
  int64_t duplicates = 0;
  std::string first_error{};
};

// A shuffled estimate's second guarantee: (central_epsilon, delta)-DP
// against the server alone, from the smallest batch released; each
// report stays local_epsilon-LDP against a server colluding with the
// shuffler. With no batch yet, central_epsilon is local_epsilon.
struct ShuffledGuaranteeInfo {
  double local_epsilon = 0;
  double central_epsilon = 0;
  double delta = 0;
  int64_t num_batches = 0;
  int64_t smallest_batch = 0;
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
  // Shuffled studies only.
  std::optional<ShuffledGuaranteeInfo> shuffled{};
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
  int64_t queued_writes = 0;  // waiting for a commit now
};

}  // namespace ldp

#endif  // LDP_SERVER_CORE_AGGREGATOR_TYPES_H_
