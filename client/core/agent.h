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
//   - a task is refused if its charge would break the study's cap, the
//     lifetime cap or the rolling period's cap (AgentCaps; on by default),
//     or if the saved state would outgrow its size cap;
//   - a repeated question (same canonical TaskFingerprint, whatever its
//     ids) is answered with the memoized payload, free of charge; a
//     longitudinal question keeps one permanent response per value and is
//     charged until that response's ε∞ is paid, then never again;
//   - the spend, the memo and the new report are saved durably BEFORE the
//     report is returned to be sent, and a task answered before returns the
//     very same report (same report_id and payload) — what makes retries and
//     restarts safe;
//   - a shuffled study's task (AgentTask::seal set) is answered and charged
//     like any other, but its report is sealed for the agent's own shuffler
//     when it is saved and only ever leaves that way (PendingSealed), never
//     among the server's reports (PendingReports).
// Which tasks an agent gets never depends on its record, and every accepted
// task yields one well-formed report whatever the record holds (the record
// is sanitized inside Randomize).
#ifndef LDP_CLIENT_CORE_AGENT_H_
#define LDP_CLIENT_CORE_AGENT_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/random/bit_gen_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "client/core/agent_state.h"
#include "client/core/agent_state_store.h"
#include "client/core/prepared_question.h"
#include "common/base/clock.h"
#include "common/queries/record_schema.h"
#include "common/tasks/task.h"
#include "common/tasks/task_mechanism.h"

namespace ldp {

// The agent's default caps, on unless its owner explicitly lifts them.
// Why these values: a lifetime cap is what makes "no server learns more
// than ε" a statement about the device rather than about one study; 10
// allows ten full studies at the per-study default of 1. The rolling
// per-period cap (2 per 24 h) is the strictest of the per-day budgets
// deployed systems publish (Apple: 2 for health data, 4-8 elsewhere), so a
// server cannot spend a device's lifetime budget in one burst: it takes at
// least five days.
inline constexpr int64_t kDefaultStudyCapNanos = kNanosPerEpsilon;
inline constexpr int64_t kDefaultLifetimeCapNanos = 10 * kNanosPerEpsilon;
inline constexpr int64_t kDefaultPeriodCapNanos = 2 * kNanosPerEpsilon;
inline constexpr int64_t kDefaultPeriodSeconds = 24 * 3600;
// How long memoized answers (and settled reports of rounds without a
// deadline) are kept; a question re-asked after that is answered afresh
// and charged again, within the caps.
inline constexpr absl::Duration kDefaultRetention = absl::Hours(24 * 365);
// The state file's size cap: 1 MiB holds about 10^4 memo entries.
inline constexpr int64_t kDefaultMaxStateBytes = 1 << 20;

struct AgentOptions {
  // The agent's record as JSON text (its data file, see record_json.h),
  // parsed against each study's schema. Set this or `record`, not both.
  std::string record_json{};
  // The record itself (simulations).
  std::optional<Record> record{};
  // The most the agent ever spends on one study, in nano-ε (> 0). A study
  // whose server announces a lower cap gets the lower one.
  int64_t max_epsilon_per_study_nanos = kDefaultStudyCapNanos;
  // The lifetime cap and the cap per rolling period (nano-ε, > 0, or
  // kUnlimitedNanos only on the owner's explicit request). The server has
  // no say in them.
  AgentCaps caps{.lifetime_nanos = kDefaultLifetimeCapNanos,
                 .period_nanos = kDefaultPeriodCapNanos,
                 .period_seconds = kDefaultPeriodSeconds};
  absl::Duration retention = kDefaultRetention;
  // Tasks that would grow the saved state beyond this are refused.
  int64_t max_state_bytes = kDefaultMaxStateBytes;
  // Current time, to skip tasks whose round has closed and to date charges;
  // RealClock if null. Must outlive the agent.
  const Clock* clock = nullptr;
};

// Seals a shuffled task's report into the bytes the agent's shuffler takes
// (a serialized ldp.v1.ShuffleSubmission, opaque here: the core knows no
// wire format). Called once, when the report is saved: the bytes are saved
// with it, so every try, even after a restart, sends exactly them.
using ReportSealer =
    std::function<absl::StatusOr<std::string>(const TaskReport& report)>;

// A pending shuffled report as it leaves: sealed, for the shuffler.
struct SealedReport {
  uint64_t task_id = 0;
  std::string sealed{};
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
  // PreparedQuestion::Prepare(task, schema), made by whoever decoded the
  // task, when it hands the same question to many agents (RelayClient);
  // null, and the agent prepares the question itself. It is only ever the
  // agent's own code's work on the task above: the server sends no part of
  // it.
  std::shared_ptr<const PreparedQuestion> prepared = nullptr;
  // Set for a shuffled study's task, by whoever decoded it and checked its
  // ticket (agent_wire/shuffled_reports.h); null for every other task. The
  // server cannot set it: an agent without a shuffler of its own refuses
  // shuffled tasks before they reach Answer.
  ReportSealer seal = nullptr;
};

enum class AnswerSource {
  kFresh,   // randomized now, budget charged
  kMemo,    // an identical earlier question's payload (or a longitudinal
            // report whose permanent response is paid for), no charge
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
      AgentOptions options, std::unique_ptr<AgentStateStore> store,
      absl::BitGenRef gen);

  // The report to send for `task`, already saved. Refusals carry the reason:
  // InvalidArgument (malformed or inconsistent task), FailedPrecondition
  // (over budget, round closed, record does not fit the schema); store
  // errors pass through and nothing is returned to send.
  // FailedPrecondition also when the saved state would outgrow its cap.
  absl::StatusOr<AgentAnswer> Answer(const AgentTask& task);
  // Answers a poll's tasks in order and saves once, before returning any.
  // If the save fails, every answer that needed it carries its error.
  std::vector<absl::StatusOr<AgentAnswer>> AnswerAll(
      absl::Span<const AgentTask> tasks);

  // The server's verdict on the report for `task_id`. OK or a permanent
  // refusal settles it; a transient error (retry.h) leaves it pending so it
  // is resent. NotFound for a task the agent never answered.
  absl::Status RecordAck(uint64_t task_id, const absl::Status& ack);
  // Many verdicts, saved once; the first error (the others still apply).
  absl::Status RecordAcks(
      absl::Span<const std::pair<uint64_t, absl::Status>> acks);

  // Reports for the server not yet settled, by task id: to resend, byte
  // for byte. Never a shuffled task's report.
  std::vector<TaskReport> PendingReports() const;
  // Shuffled tasks' reports not yet settled, by task id, sealed for the
  // agent's shuffler: to resend as they are. Their verdicts go to
  // RecordAcks like the server's.
  std::vector<SealedReport> PendingSealed() const;

  // The agent's own ledger for a study it has answered; nullopt otherwise.
  std::optional<StudyBudget> Budget(uint64_t study_id) const;
  int64_t total_spent_nanos() const { return state_.TotalSpentNanos(); }
  // Spend within the rolling period that ends now.
  int64_t period_spent_nanos() const;
  const AgentState& state() const { return state_; }

 private:
  class Batch;  // one AnswerAll's working copy of the state (agent.cc)
  // One answer before it is booked.
  struct Draft {
    std::string key;              // the question's canonical fingerprint
    ReportPayload payload;        // what would be sent
    int64_t charge = 0;           // nano-ε to book; 0 = free
    bool new_memo = false;        // book payload under key in the memo
    std::string value_key;        // longitudinal: (question, value) fingerprint
    PermanentResponse permanent;  // longitudinal: the response to keep
  };

  Agent(AgentOptions options, std::unique_ptr<AgentStateStore> store,
        absl::BitGenRef gen, AgentState state)
      : options_(std::move(options)),
        store_(std::move(store)),
        gen_(gen),
        state_(std::move(state)) {}

  const Clock& clock() const;
  // The owner's record, or the record file read against the task's schema
  // into `parsed`.
  const Record& RecordFor(const AgentTask& task, Record& parsed) const;
  absl::StatusOr<AgentAnswer> AnswerOne(const AgentTask& task, Batch& batch);
  void DraftAnswer(const TaskMechanism& mechanism, const Record& record,
                   const Batch& batch, Draft& draft);
  void DraftLongitudinal(const TaskMechanism& mechanism, const Record& record,
                         const Batch& batch, Draft& draft);
  absl::Status Settle(const AgentTask& task, Batch& batch, const Draft& draft);
  absl::StatusOr<StoredReport> NewReport(const AgentTask& task,
                                         const Batch& batch,
                                         const Draft& draft);
  ReportId NewReportId();

  AgentOptions options_;
  std::unique_ptr<AgentStateStore> store_;
  absl::BitGenRef gen_;
  AgentState state_;
};

}  // namespace ldp

#endif  // LDP_CLIENT_CORE_AGENT_H_
