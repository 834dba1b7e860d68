// Task → validated, budgeted, memoized, durably saved report; see the
// header for the rules.
#include "client/agent.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "client/retry.h"
#include "client/task_fingerprint.h"
#include "common/record_json.h"
#include "common/status_macros.h"
#include "common/task_mechanism.h"

namespace ldp {
namespace {

double Epsilon(int64_t nanos) {
  return static_cast<double>(nanos) / kNanosPerEpsilon;
}

// Prefixes the reason with which task was refused, keeping the code.
absl::Status Refusal(const Task& task, const absl::Status& reason) {
  return absl::Status(reason.code(),
                      absl::StrCat("refusing task ", task.task_id, " of study ",
                                   task.study_id, ": ", reason.message()));
}

double SpecifiedEpsilon(const Task& task) {
  if (const auto* sq = std::get_if<StatisticalQueryTask>(&task.question)) {
    return sq->mechanism.epsilon;
  }
  if (const auto* workload = std::get_if<WorkloadTask>(&task.question)) {
    return workload->strategy.epsilon;
  }
  return std::get<HistogramTask>(task.question).oracle.epsilon;
}

// The domain encoding of a histogram or workload task.
const DomainEncoding& EncodingOf(const Task& task) {
  if (const auto* workload = std::get_if<WorkloadTask>(&task.question)) {
    return workload->encoding;
  }
  return std::get<HistogramTask>(task.question).encoding;
}

// TaskMechanism::Create already guarantees implemented ε ≤ εₜ; this also
// refuses a randomizer specified below εₜ, which would charge the agent for
// privacy loss it does not incur.
absl::Status CheckEpsilonMatches(const Task& task) {
  const double specified = SpecifiedEpsilon(task);
  const double specified_nanos = specified * kNanosPerEpsilon;
  if (!(std::abs(specified_nanos - static_cast<double>(task.epsilon_nanos)) <=
        1.0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "it charges ", Epsilon(task.epsilon_nanos),
        " epsilon but its randomizer is specified at ", specified,
        " epsilon; the two must match"));
  }
  return absl::OkStatus();
}

absl::Status CheckSchema(const AgentTask& agent_task) {
  const Task& task = agent_task.task;
  bool fits = true;
  if (const auto* sq = std::get_if<StatisticalQueryTask>(&task.question)) {
    fits = sq->query.schema() == agent_task.schema;
  } else {
    const DomainEncoding& encoding = EncodingOf(task);
    auto rebuilt = DomainEncoding::Create(encoding.spec(), agent_task.schema);
    fits = rebuilt.ok() && rebuilt->domain_size() == encoding.domain_size();
  }
  if (!fits) {
    return absl::InvalidArgumentError(
        "its question was not built for the study's record schema");
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<Agent>> Agent::Create(
    const AgentOptions& options, std::unique_ptr<AgentStateStore> store,
    absl::BitGenRef gen) {
  if (options.record_json.empty() == !options.record.has_value()) {
    return absl::InvalidArgumentError(
        "set exactly one of record_json (the record file's text) and record");
  }
  if (!options.record_json.empty()) {
    // The one check of the record file, before any task exists.
    if (absl::Status s = ValidateRecordJsonSyntax(options.record_json); !s.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("the record file is unusable: ", s.message()));
    }
  }
  if (options.max_epsilon_per_study_nanos <= 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "max_epsilon_per_study_nanos must be > 0, got ",
        options.max_epsilon_per_study_nanos));
  }
  if (options.max_total_epsilon_nanos < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "max_total_epsilon_nanos must be >= 0 (0 = no total limit), got ",
        options.max_total_epsilon_nanos));
  }
  if (store == nullptr) return absl::InvalidArgumentError("store is null");
  ASSIGN_OR_RETURN(AgentState state, store->Load());
  return std::unique_ptr<Agent>(
      new Agent(options, std::move(store), gen, std::move(state)));
}

absl::StatusOr<AgentAnswer> Agent::Answer(const AgentTask& agent_task) {
  const Task& task = agent_task.task;
  auto mechanism = TaskMechanism::Create(task);
  if (!mechanism.ok()) return Refusal(task, mechanism.status());
  if (auto s = CheckEpsilonMatches(task); !s.ok()) return Refusal(task, s);
  if (auto s = CheckSchema(agent_task); !s.ok()) return Refusal(task, s);
  if (auto it = state_.reports.find(task.task_id); it != state_.reports.end()) {
    return AgentAnswer{it->second.report, AnswerSource::kStored};
  }
  const Clock& clock =
      options_.clock != nullptr ? *options_.clock : *RealClock::Get();
  const absl::Time now = clock.Now();
  if (now >= agent_task.deadline) {
    return Refusal(task, absl::FailedPreconditionError(absl::StrCat(
                             "its round closed at ",
                             absl::FormatTime(agent_task.deadline))));
  }
  const Record record = RecordFor(agent_task);
  AgentState next = state_;
  const std::string key = TaskFingerprint(task, agent_task.schema);
  if (auto memo = state_.memo.find(key);
      !key.empty() && memo != state_.memo.end()) {
    return Commit(std::move(next), {task.task_id, NewReportId(), memo->second},
                  AnswerSource::kMemo);
  }
  StudyBudget budget;
  if (auto s = CheckBudget(agent_task, budget); !s.ok()) {
    return Refusal(task, s);
  }
  budget.spent_nanos += task.epsilon_nanos;
  next.studies[task.study_id] = budget;
  ReportPayload payload = (*mechanism)->Randomize(record, gen_);
  if (!key.empty()) next.memo[key] = payload;
  return Commit(std::move(next),
                {task.task_id, NewReportId(), std::move(payload)},
                AnswerSource::kFresh);
}

Record Agent::RecordFor(const AgentTask& task) const {
  if (options_.record.has_value()) return *options_.record;
  // Lenient: a field another study uses, or a value of the wrong type, must
  // not make this task fail (the server would see a record-dependent
  // refusal); it is defaulted instead. The file's syntax was checked once in
  // Create.
  return ParseRecordJsonLenient(options_.record_json, task.schema).record;
}

absl::Status Agent::CheckBudget(const AgentTask& task,
                                StudyBudget& budget) const {
  const auto it = state_.studies.find(task.task.study_id);
  budget = it != state_.studies.end()
               ? it->second
               : StudyBudget{options_.max_epsilon_per_study_nanos, 0};
  // Caps only ever go down: the agent's own limit and the server's
  // announcement both bound it, and it never drops below what is spent.
  int64_t cap = std::min(budget.cap_nanos, options_.max_epsilon_per_study_nanos);
  if (task.study_cap_nanos > 0) cap = std::min(cap, task.study_cap_nanos);
  budget.cap_nanos = std::max(cap, budget.spent_nanos);
  const int64_t charge = task.task.epsilon_nanos;
  if (charge > budget.cap_nanos - budget.spent_nanos) {
    return absl::FailedPreconditionError(absl::StrCat(
        "it charges ", Epsilon(charge), " epsilon but only ",
        Epsilon(budget.cap_nanos - budget.spent_nanos), " of the study's cap ",
        Epsilon(budget.cap_nanos), " remains"));
  }
  const int64_t total_limit = options_.max_total_epsilon_nanos;
  if (total_limit > 0 && charge > total_limit - state_.TotalSpentNanos()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "it charges ", Epsilon(charge), " epsilon but only ",
        Epsilon(total_limit - state_.TotalSpentNanos()),
        " of the agent's total limit ", Epsilon(total_limit), " remains"));
  }
  return absl::OkStatus();
}

absl::StatusOr<AgentAnswer> Agent::Commit(AgentState next, TaskReport report,
                                          AnswerSource source) {
  next.reports[report.task_id] = StoredReport{report, /*settled=*/false};
  // Durable first: if this fails, nothing is returned and nothing is sent.
  RETURN_IF_ERROR(store_->Save(next));
  state_ = std::move(next);
  return AgentAnswer{std::move(report), source};
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
  auto it = state_.reports.find(task_id);
  if (it == state_.reports.end()) {
    return absl::NotFoundError(
        absl::StrCat("the agent never answered task ", task_id));
  }
  if (it->second.settled || IsTransient(ack.code())) return absl::OkStatus();
  AgentState next = state_;
  next.reports[task_id].settled = true;
  RETURN_IF_ERROR(store_->Save(next));
  state_ = std::move(next);
  return absl::OkStatus();
}

std::vector<TaskReport> Agent::PendingReports() const {
  std::vector<TaskReport> pending;
  for (const auto& [task_id, stored] : state_.reports) {
    if (!stored.settled) pending.push_back(stored.report);
  }
  return pending;
}

std::optional<StudyBudget> Agent::Budget(uint64_t study_id) const {
  const auto it = state_.studies.find(study_id);
  if (it == state_.studies.end()) return std::nullopt;
  return it->second;
}

}  // namespace ldp
