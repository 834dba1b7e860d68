// Task → validated, budgeted, memoized, durably saved report; see the
// header for the rules.
#include "client/core/agent.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "client/core/agent_budget.h"
#include "client/core/payload_text.h"
#include "client/core/prepared_question.h"
#include "client/core/retry.h"
#include "client/core/state_lines.h"
#include "common/base/status_macros.h"
#include "common/queries/record_json.h"
#include "common/tasks/task_fingerprint.h"
#include "common/tasks/task_mechanism.h"

namespace ldp {
namespace {

// Prefixes the reason with which task was refused, keeping the code.
absl::Status Refusal(const Task& task, const absl::Status& reason) {
  return absl::Status(reason.code(),
                      absl::StrCat("refusing task ", task.task_id, " of study ",
                                   task.study_id, ": ", reason.message()));
}

absl::Status CheckCap(absl::string_view name, int64_t cap,
                      bool allow_unlimited) {
  if (cap > 0 && (cap != kUnlimitedNanos || allow_unlimited)) {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(
      absl::StrCat(name, " must be > 0 nano-epsilon, got ", cap));
}

absl::Status ValidateOptions(const AgentOptions& options) {
  if (options.record_json.empty() == !options.record.has_value()) {
    return absl::InvalidArgumentError(
        "set exactly one of record_json (the record file's text) and record");
  }
  if (!options.record_json.empty()) {
    // The one check of the record file, before any task exists.
    if (absl::Status s = ValidateRecordJsonSyntax(options.record_json);
        !s.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("the record file is unusable: ", s.message()));
    }
  }
  RETURN_IF_ERROR(CheckCap("max_epsilon_per_study_nanos",
                           options.max_epsilon_per_study_nanos, false));
  RETURN_IF_ERROR(
      CheckCap("caps.lifetime_nanos", options.caps.lifetime_nanos, true));
  RETURN_IF_ERROR(
      CheckCap("caps.period_nanos", options.caps.period_nanos, true));
  if (options.caps.period_seconds <= 0) {
    return absl::InvalidArgumentError("caps.period_seconds must be > 0");
  }
  if (options.retention <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("retention must be positive");
  }
  if (options.max_state_bytes < 4096) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_state_bytes must be at least 4096, got ",
                     options.max_state_bytes));
  }
  return absl::OkStatus();
}

// Drops what no longer protects anything: charges older than the period,
// memo entries and permanent responses past retention (a later repeat is
// charged again, within the caps), reports whose round has closed (the
// server would refuse a resend anyway), and studies untouched for the
// retention (the lifetime spend keeps their charges).
void Prune(AgentState& state, int64_t now, int64_t retention) {
  const int64_t period_start = now - state.caps.period_seconds;
  std::erase_if(state.spends,
                [&](const SpendEntry& s) { return s.at <= period_start; });
  const int64_t kept_since = now - retention;
  std::erase_if(state.memo,
                [&](const auto& e) { return e.second.created <= kept_since; });
  std::erase_if(state.permanent,
                [&](const auto& e) { return e.second.created <= kept_since; });
  std::erase_if(state.reports,
                [&](const auto& e) { return e.second.expires <= now; });
  std::erase_if(state.studies, [&](const auto& e) {
    return e.second.last_used <= kept_since;
  });
}

// A frequency report saved before lengths were kept (num_bits 0) takes the
// length of a fresh report of the same task: a memoized answer reused after
// an upgrade still has exactly its task's length on the wire.
void FillLength(const FrequencyReport& fresh, FrequencyReport& saved) {
  if (auto* bits = std::get_if<BitVectorReport>(&saved);
      bits != nullptr && bits->num_bits == 0) {
    if (const auto* f = std::get_if<BitVectorReport>(&fresh)) {
      bits->num_bits = f->num_bits;
    }
  } else if (auto* sketch = std::get_if<SketchReport>(&saved);
             sketch != nullptr && sketch->num_bits == 0) {
    if (const auto* f = std::get_if<SketchReport>(&fresh)) {
      sketch->num_bits = f->num_bits;
    }
  }
}

void FillLength(const ReportPayload& fresh, ReportPayload& saved) {
  if (auto* frequency = std::get_if<FrequencyReport>(&saved)) {
    if (const auto* f = std::get_if<FrequencyReport>(&fresh))
      FillLength(*f, *frequency);
  } else if (auto* workload = std::get_if<WorkloadReport>(&saved)) {
    if (const auto* f = std::get_if<WorkloadReport>(&fresh)) {
      FillLength(f->inner, workload->inner);
    }
  }
}

}  // namespace

// One AnswerAll's working copy of the state, its serialized size kept up to
// date entry by entry (serializing it all per task would be quadratic).
class Agent::Batch {
 public:
  Batch(const AgentState& state, int64_t now, int64_t retention)
      : next(state), now(now) {
    Prune(next, now, retention);
    bytes = SerializedSize(next);
  }

  AgentState next;
  const int64_t now;
  int64_t bytes = 0;
  bool changed = false;
};

absl::StatusOr<std::unique_ptr<Agent>> Agent::Create(
    AgentOptions options, std::unique_ptr<AgentStateStore> store,
    absl::BitGenRef gen) {
  RETURN_IF_ERROR(ValidateOptions(options));
  if (store == nullptr) return absl::InvalidArgumentError("store is null");
  ASSIGN_OR_RETURN(AgentState state, store->Load());
  // The owner's caps are the ones in force; the state records them so the
  // file shows under which caps the spend was made.
  state.caps = options.caps;
  return std::unique_ptr<Agent>(
      new Agent(std::move(options), std::move(store), gen, std::move(state)));
}

const Clock& Agent::clock() const {
  return options_.clock != nullptr ? *options_.clock : *RealClock::Get();
}

absl::StatusOr<AgentAnswer> Agent::Answer(const AgentTask& task) {
  return std::move(AnswerAll(absl::MakeConstSpan(&task, 1))[0]);
}

std::vector<absl::StatusOr<AgentAnswer>> Agent::AnswerAll(
    absl::Span<const AgentTask> tasks) {
  Batch batch(state_, absl::ToUnixSeconds(clock().Now()),
              absl::ToInt64Seconds(options_.retention));
  std::vector<absl::StatusOr<AgentAnswer>> answers;
  answers.reserve(tasks.size());
  for (const AgentTask& task : tasks) answers.push_back(AnswerOne(task, batch));
  if (!batch.changed) return answers;
  // Durable first: if this fails, nothing new is returned and nothing sent.
  if (absl::Status saved = store_->Save(batch.next); !saved.ok()) {
    for (auto& answer : answers) {
      if (answer.ok() && answer->source != AnswerSource::kStored)
        answer = saved;
    }
    return answers;
  }
  state_ = std::move(batch.next);
  return answers;
}

absl::StatusOr<AgentAnswer> Agent::AnswerOne(const AgentTask& agent_task,
                                             Batch& batch) {
  const Task& task = agent_task.task;
  std::shared_ptr<const PreparedQuestion> prepared = agent_task.prepared;
  if (prepared == nullptr) {
    prepared = PreparedQuestion::Prepare(task, agent_task.schema);
  } else if (!prepared->PreparedFor(task)) {
    return Refusal(
        task, absl::InternalError("it came with another task's preparation"));
  }
  if (!prepared->status().ok()) return Refusal(task, prepared->status());
  const TaskMechanism& mechanism = prepared->mechanism();
  if (auto it = batch.next.reports.find(task.task_id);
      it != batch.next.reports.end()) {
    return AgentAnswer{it->second.report, AnswerSource::kStored};
  }
  if (clock().Now() >= agent_task.deadline) {
    return Refusal(task, absl::FailedPreconditionError(absl::StrCat(
                             "its round closed at ",
                             absl::FormatTime(agent_task.deadline))));
  }
  Draft draft;
  draft.key = prepared->fingerprint();
  if (draft.key.empty()) {
    return Refusal(task,
                   absl::InternalError("cannot fingerprint the question"));
  }
  Record parsed;
  const Record& record = RecordFor(agent_task, parsed);
  if (mechanism.longitudinal()) {
    DraftLongitudinal(mechanism, record, batch, draft);
  } else {
    DraftAnswer(mechanism, record, batch, draft);
  }
  if (absl::Status s = Settle(agent_task, batch, draft); !s.ok()) {
    return Refusal(task, s);
  }
  return AgentAnswer{
      batch.next.reports.at(task.task_id).report,
      draft.charge > 0 ? AnswerSource::kFresh : AnswerSource::kMemo};
}

// The memo's payload, or a fresh one (to be charged in full). The fresh one
// is drawn either way: it also lends its length to a memo saved without one.
void Agent::DraftAnswer(const TaskMechanism& mechanism, const Record& record,
                        const Batch& batch, Draft& draft) {
  ReportPayload fresh = mechanism.Randomize(record, gen_);
  if (auto memo = batch.next.memo.find(draft.key);
      memo != batch.next.memo.end()) {
    draft.payload = memo->second.payload;
    FillLength(fresh, draft.payload);
    return;
  }
  draft.payload = std::move(fresh);
  draft.charge = mechanism.task().epsilon_nanos;
  draft.new_memo = true;
}

// A report drawn from the value's permanent response. A candidate response
// is drawn every time, used or not, so the work does not tell whether the
// value is new; the charge is εₜ until the response's ε∞ is paid.
void Agent::DraftLongitudinal(const TaskMechanism& mechanism,
                              const Record& record, const Batch& batch,
                              Draft& draft) {
  draft.value_key = ValueFingerprint(draft.key, mechanism.Item(record));
  draft.permanent = PermanentResponse{
      .payload = mechanism.Memoize(mechanism.Item(record), gen_),
      .created = batch.now};
  if (auto it = batch.next.permanent.find(draft.value_key);
      it != batch.next.permanent.end() &&
      mechanism.ValidateMemo(it->second.payload).ok()) {
    draft.permanent = it->second;
  }
  draft.charge = std::clamp(
      mechanism.epsilon_infinity_nanos() - draft.permanent.charged_nanos,
      int64_t{0}, mechanism.task().epsilon_nanos);
  draft.permanent.charged_nanos += draft.charge;
  draft.payload = mechanism.RandomizeFromMemo(draft.permanent.payload, gen_);
}

// Checks the caps and the state's size cap, then books the draft.
absl::Status Agent::Settle(const AgentTask& agent_task, Batch& batch,
                           const Draft& draft) {
  const Task& task = agent_task.task;
  const Charge charge{.study_id = task.study_id,
                      .nanos = draft.charge,
                      .own_study_cap = options_.max_epsilon_per_study_nanos,
                      .announced_cap = agent_task.study_cap_nanos,
                      .now = batch.now};
  if (draft.charge > 0) RETURN_IF_ERROR(CheckCharge(batch.next, charge));
  ASSIGN_OR_RETURN(StoredReport stored, NewReport(agent_task, batch, draft));
  // The report's and the memo's lines hold the same payload.
  const std::string payload_text = PayloadToText(draft.payload);
  int64_t grows = ReportLineSize(stored, payload_text);
  const MemoEntry memo{draft.payload, batch.now};
  if (draft.new_memo) grows += MemoLineSize(draft.key, memo, payload_text);
  if (!draft.value_key.empty()) {
    grows += PermanentLineSize(draft.value_key, draft.permanent,
                               PayloadToText(draft.permanent.payload));
  }
  constexpr int64_t kChargeLines = 160;  // study, spend and lifetime lines
  if (batch.bytes + grows + kChargeLines > options_.max_state_bytes) {
    return absl::FailedPreconditionError(
        absl::StrCat("the agent's saved state would exceed its cap of ",
                     options_.max_state_bytes,
                     " bytes; it frees up as rounds close and "
                     "memoized answers pass their retention"));
  }
  if (draft.charge > 0) grows += BookCharge(batch.next, charge);
  if (draft.new_memo) batch.next.memo[draft.key] = memo;
  if (!draft.value_key.empty())
    batch.next.permanent[draft.value_key] = draft.permanent;
  batch.next.reports[task.task_id] = std::move(stored);
  batch.bytes += grows;
  batch.changed = true;
  return absl::OkStatus();
}

// The report to save for the draft; a shuffled task's is sealed now, so
// that every try sends the same bytes.
absl::StatusOr<StoredReport> Agent::NewReport(const AgentTask& agent_task,
                                              const Batch& batch,
                                              const Draft& draft) {
  StoredReport stored{
      .report = {agent_task.task.task_id, NewReportId(), draft.payload},
      .expires = agent_task.deadline == absl::InfiniteFuture()
                     ? batch.now + absl::ToInt64Seconds(options_.retention)
                     : absl::ToUnixSeconds(agent_task.deadline)};
  if (agent_task.seal == nullptr) return stored;
  absl::StatusOr<std::string> sealed = agent_task.seal(stored.report);
  // No bytes would make it a report for the server.
  if (sealed.ok() && sealed->empty()) sealed = absl::InternalError("no bytes");
  if (!sealed.ok()) return sealed.status();
  stored.sealed = *std::move(sealed);
  return stored;
}

const Record& Agent::RecordFor(const AgentTask& task, Record& parsed) const {
  if (options_.record.has_value()) return *options_.record;
  // Lenient: a field another study uses, or a value of the wrong type, must
  // not make this task fail (the server would see a record-dependent
  // refusal); it is defaulted instead. The file's syntax was checked once in
  // Create.
  parsed = ParseRecordJsonLenient(options_.record_json, task.schema).record;
  return parsed;
}

ReportId Agent::NewReportId() {
  ReportId id{};
  for (size_t word = 0; word < id.size() / 8; ++word) {
    const uint64_t bits = gen_();
    for (int i = 0; i < 8; ++i) {
      id[8 * word + i] = static_cast<uint8_t>(bits >> (8 * i));
    }
  }
  return id;
}

absl::Status Agent::RecordAck(uint64_t task_id, const absl::Status& ack) {
  const std::pair<uint64_t, absl::Status> one{task_id, ack};
  return RecordAcks(absl::MakeConstSpan(&one, 1));
}

absl::Status Agent::RecordAcks(
    absl::Span<const std::pair<uint64_t, absl::Status>> acks) {
  absl::Status result;
  AgentState next = state_;
  bool changed = false;
  for (const auto& [task_id, ack] : acks) {
    auto it = next.reports.find(task_id);
    if (it == next.reports.end()) {
      result.Update(absl::NotFoundError(
          absl::StrCat("the agent never answered task ", task_id)));
      continue;
    }
    if (it->second.settled || IsTransient(ack.code())) continue;
    it->second.settled = true;
    it->second.sealed.clear();  // never sent again
    changed = true;
  }
  if (!changed) return result;
  RETURN_IF_ERROR(store_->Save(next));
  state_ = std::move(next);
  return result;
}

int64_t Agent::period_spent_nanos() const {
  return state_.SpentSince(absl::ToUnixSeconds(clock().Now()) -
                           state_.caps.period_seconds);
}

std::vector<TaskReport> Agent::PendingReports() const {
  std::vector<TaskReport> pending;
  for (const auto& [task_id, stored] : state_.reports) {
    if (!stored.settled && stored.sealed.empty()) {
      pending.push_back(stored.report);
    }
  }
  return pending;
}

std::vector<SealedReport> Agent::PendingSealed() const {
  std::vector<SealedReport> pending;
  for (const auto& [task_id, stored] : state_.reports) {
    if (!stored.settled && !stored.sealed.empty()) {
      pending.push_back({task_id, stored.sealed});
    }
  }
  return pending;
}

std::optional<StudyBudget> Agent::Budget(uint64_t study_id) const {
  const auto it = state_.studies.find(study_id);
  if (it == state_.studies.end()) return std::nullopt;
  return it->second;
}

}  // namespace ldp
