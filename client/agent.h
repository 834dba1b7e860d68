// The agent: one device's record, privacy budget and memo, and the only
// code that turns a task into a report. No gRPC here; agent_client.h moves
// what this produces over the wire.
//
// The agent enforces DESIGN invariants 1, 4 and 8 on its own, whatever the
// server asks:
//   - a report is exactly the output of TaskMechanism::Randomize on the
//     record (TaskReport holds nothing else), so the record never leaves;
//   - a task is refused unless its randomizer can be built and implements
//     at most the εₜ it charges (TaskMechanism::Create), its randomizer is
//     specified at exactly εₜ, its question fits the study's schema, its
//     round is still open and εₜ fits the remaining budget;
//   - a repeated identical question (same TaskFingerprint) is answered with
//     the memoized payload, free of charge;
//   - the spend, the memo and the new report are saved durably BEFORE the
//     report is returned to be sent, and a task answered before returns the
//     very same report (same report_id and payload) — what makes retries and
//     restarts safe.
// Which tasks an agent gets never depends on its record, and every accepted
// task yields one well-formed report whatever the record holds (the record
// is sanitized inside Randomize).
#ifndef LDP_CLIENT_AGENT_H_
#define LDP_CLIENT_AGENT_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "absl/random/bit_gen_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "client/agent_state.h"
#include "client/agent_state_store.h"
#include "common/clock.h"
#include "common/record_schema.h"
#include "common/task.h"

namespace ldp {

struct AgentOptions {
  // The agent's record as JSON text (its data file, see record_json.h),
  // parsed against each study's schema. Set this or `record`, not both.
  std::string record_json{};
  // The record itself (simulations).
  std::optional<Record> record{};
  // The most the agent ever spends on one study, in nano-ε (> 0). A study
  // whose server announces a lower cap gets the lower one.
  int64_t max_epsilon_per_study_nanos = 0;
  // The most it spends across all studies; 0 = no limit beyond the per-study
  // caps.
  int64_t max_total_epsilon_nanos = 0;
  // Current time, to skip tasks whose round has closed; RealClock if null.
  // Must outlive the agent.
  const Clock* clock = nullptr;
};

// One task as it reaches the agent.
struct AgentTask {
  Task task;
  // The study's record schema: the question is read against it.
  RecordSchema schema;
  // The per-agent cap the server announces for the study; 0 = not known.
  int64_t study_cap_nanos = 0;
  // The round closes then; later reports would only be refused.
  absl::Time deadline = absl::InfiniteFuture();
};

enum class AnswerSource {
  kFresh,   // randomized now, budget charged
  kMemo,    // an identical earlier question's payload, no charge
  kStored,  // this very task was answered before: the same report again
};

struct AgentAnswer {
  TaskReport report;
  AnswerSource source = AnswerSource::kFresh;
};

// Thread-compatible: one agent, one thread at a time.
class Agent {
 public:
  // Loads the saved state from `store`. InvalidArgument for bad options;
  // the store's error (e.g. DataLoss) if the saved state is damaged.
  // `gen` supplies every coin and report id (SecureRandom in production)
  // and must outlive the agent.
  static absl::StatusOr<std::unique_ptr<Agent>> Create(
      const AgentOptions& options, std::unique_ptr<AgentStateStore> store,
      absl::BitGenRef gen);

  // The report to send for `task`, already saved. Refusals carry the reason:
  // InvalidArgument (malformed or inconsistent task), FailedPrecondition
  // (over budget, round closed, record does not fit the schema); store
  // errors pass through and nothing is returned to send.
  absl::StatusOr<AgentAnswer> Answer(const AgentTask& task);

  // The server's verdict on the report for `task_id`. OK or a permanent
  // refusal settles it; a transient error (retry.h) leaves it pending so it
  // is resent. NotFound for a task the agent never answered.
  absl::Status RecordAck(uint64_t task_id, const absl::Status& ack);

  // Reports not yet settled, by task id: to resend, byte for byte.
  std::vector<TaskReport> PendingReports() const;

  // The agent's own ledger for a study it has answered; nullopt otherwise.
  std::optional<StudyBudget> Budget(uint64_t study_id) const;
  int64_t total_spent_nanos() const { return state_.TotalSpentNanos(); }
  const AgentState& state() const { return state_; }

 private:
  Agent(const AgentOptions& options, std::unique_ptr<AgentStateStore> store,
        absl::BitGenRef gen, AgentState state)
      : options_(options),
        store_(std::move(store)),
        gen_(gen),
        state_(std::move(state)) {}

  Record RecordFor(const AgentTask& task) const;
  absl::Status CheckBudget(const AgentTask& task, StudyBudget& budget) const;
  absl::StatusOr<AgentAnswer> Commit(AgentState next, TaskReport report,
                                     AnswerSource source);
  ReportId NewReportId();

  AgentOptions options_;
  std::unique_ptr<AgentStateStore> store_;
  absl::BitGenRef gen_;
  AgentState state_;
};

}  // namespace ldp

#endif  // LDP_CLIENT_AGENT_H_
