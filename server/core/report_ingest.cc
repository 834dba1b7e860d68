// Task assignment and report admission; see the header.
//
// Ingestion splits the work by what needs ordering. Everything that reads
// only immutable state (task ownership, the plan, payload validation, the
// payload's stored bytes) runs on the calling thread, in parallel. What must
// be serialized (round still open, dedupe, the ledger charge) runs on the
// writer thread inside the group's transaction, and so does summing the
// stored reports (batch_statistics.h); merging that sum into the rounds
// runs after the commit, so an estimate never includes a report that is
// not durable.
#include "server/core/report_ingest.h"

#include <algorithm>
#include <atomic>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/tasks/task_id.h"
#include "server/rounds/batch_statistics.h"
#include "server/rounds/ledger_charge.h"
#include "server/store/storage_codec.h"

namespace ldp {

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

// One Upload call: the statuses its jobs fill in, and the callback that
// the last of them to finish calls. On a sharded store a call's reports go
// to their shards' lanes as one job each (CommitLanes).
struct UploadCall {
  UploadCall(size_t num_reports, absl::Time started,
             absl::AnyInvocable<void(std::vector<absl::Status>) &&> done)
      : started(started), statuses(num_reports), done(std::move(done)) {}

  const absl::Time started;
  std::vector<absl::Status> statuses;
  // Jobs still to finish; each writes only its own reports' statuses.
  std::atomic<int> parts_left{1};
  absl::AnyInvocable<void(std::vector<absl::Status>) &&> done;
};

class UploadJob final : public CommitJob {
 public:
  // `lane_batch`: the lane's the job is submitted to (null if it is not).
  UploadJob(ReportIngest* ingest, LaneBatch* lane_batch,
            std::shared_ptr<UploadCall> call,
            std::vector<PendingReport> pending)
      : ingest_(ingest),
        call_(std::move(call)),
        pending_(std::move(pending)),
        lane_batch_(lane_batch) {}

  std::vector<absl::Status>& statuses() { return call_->statuses; }
  std::vector<PendingReport>& pending() { return pending_; }
  // This job's part of the call is answered; the last part answers it.
  void CompleteNow() {
    if (call_->parts_left.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
    UploadCall& call = *call_;
    context().stats.RecordUpload(call.statuses,
                                 context().clock().Now() - call.started);
    std::move(call.done)(std::move(call.statuses));
  }

  int64_t NumWrites() const override {
    return static_cast<int64_t>(pending_.size());
  }

  // The job's reports go to the store as one batch: a shared store charges
  // them in a constant number of round trips.
  absl::Status Apply(StoreTransaction& transaction) override {
    const absl::Time now = context().clock().Now();
    std::vector<const ReportRow*> rows;
    std::vector<PendingReport*> admitted;
    rows.reserve(pending_.size());
    admitted.reserve(pending_.size());
    for (PendingReport& p : pending_) {
      RoundRuntime& round = *p.entry.round;
      p.admitted = round.AcceptsReportsAt(now);
      if (!p.admitted) {
        if (round.state() == RoundState::kOpen && round.ClaimClose()) {
          ingest_->rounds_.QueueClose(p.entry, RoundState::kClosedDeadline);
        }
        continue;
      }
      rows.push_back(&p.row);
      admitted.push_back(&p);
    }
    std::vector<AppendResult> results(rows.size());
    RETURN_IF_ERROR(transaction.AppendReports(rows, absl::MakeSpan(results)));
    // Summed for the whole transaction (LaneBatch), which the lane begins
    // anew whenever the store runs the body again.
    BatchStatistics& batch = lane_batch_->batch();
    for (size_t i = 0; i < admitted.size(); ++i) {
      PendingReport& p = *admitted[i];
      p.result = results[i];
      if (p.result.outcome != AppendOutcome::kStored) continue;
      RETURN_IF_ERROR(
          batch.Add(p.entry.round, p.question, p.row.agent_id, p.payload));
    }
    return absl::OkStatus();
  }

  void Finish(const absl::Status& commit_status) override {
    if (!commit_status.ok()) {
      context().Log(LogLevel::kWarning, "store_commit_failed",
                    {{"job", "upload"},
                     {"reports", absl::StrCat(pending_.size())},
                     {"error", std::string(commit_status.message())}});
    }
    for (PendingReport& p : pending_) {
      absl::Status& status = call_->statuses[p.index];
      status = Complete(p, commit_status);
      if (status.ok() && p.result.outcome == AppendOutcome::kStored) {
        context().stats.AddCharged(p.row.epsilon_nanos);
      }
    }
    const RoundRuntime* last_round = nullptr;
    for (const PendingReport& p : pending_) {
      if (p.entry.round.get() == last_round) continue;
      last_round = p.entry.round.get();
      ingest_->rounds_.CheckQuorum(p.entry);
    }
    CompleteNow();
  }

 private:
  const AggregatorContext& context() const { return ingest_->context_; }

  static absl::Status Complete(PendingReport& p,
                               const absl::Status& commit_status) {
    if (!commit_status.ok()) {
      return absl::UnavailableError(
          absl::StrCat("report was not stored (", commit_status.message(),
                       "); retry with the same report"));
    }
    if (!p.admitted) {
      return absl::FailedPreconditionError(
          absl::StrCat("round ", p.row.round_id, " is closed"));
    }
    switch (p.result.outcome) {
      case AppendOutcome::kStored:
      case AppendOutcome::kIdenticalRetry:
        // The payload of a retry is counted where it was first stored: by
        // that transaction's own batch, or by its delta.
        Count(p);
        return absl::OkStatus();
      case AppendOutcome::kConflict:
        return absl::AlreadyExistsError(absl::StrCat(
            "task ", p.row.task_id, " already has a different report"));
      case AppendOutcome::kRoundClosed:
        return absl::FailedPreconditionError(
            absl::StrCat("round ", p.row.round_id, " is closed"));
      case AppendOutcome::kOverCap:
        break;
    }
    return absl::FailedPreconditionError(absl::StrCat(
        "charging ", p.row.epsilon_nanos,
        " nano-epsilon would exceed the cap of ", p.row.cap_nanos, " in study ",
        p.row.study_id, " (already spent ", p.result.spent_nanos, ")"));
  }

  // On a writer thread; a sharded store has one per shard, so the
  // counters take concurrent updates.
  static void Count(PendingReport& p) {
    StudyRuntime& study = *p.entry.study;
    // False when a server following a shared store marked it first.
    if (p.entry.round->MarkReported(p.row.task_id)) {
      study.num_reports.fetch_add(1, std::memory_order_relaxed);
    }
    if (p.result.first_charge) {
      study.num_agents.fetch_add(1, std::memory_order_relaxed);
    }
    int64_t seen = study.max_spent_nanos.load();
    while (p.result.spent_nanos > seen &&
           !study.max_spent_nanos.compare_exchange_weak(seen,
                                                        p.result.spent_nanos)) {
    }
  }

  ReportIngest* ingest_;
  std::shared_ptr<UploadCall> call_;
  std::vector<PendingReport> pending_;
  // Its lane's sum of what the transaction stored, counted (before this
  // job's Finish) once it commits.
  LaneBatch* lane_batch_;
};

ReportIngest::ReportIngest(const AggregatorContext& context,
                           const StudyRegistry& studies,
                           const AgentRegistry& agents, RoundLifecycle& rounds)
    : context_(context), studies_(studies), agents_(agents), rounds_(rounds) {
  for (int shard = 0; shard < context_.lanes.num_shards(); ++shard) {
    lane_batches_.push_back(std::make_unique<LaneBatch>(context_));
    context_.lanes.ForShard(shard).set_group_work(lane_batches_.back().get());
  }
}

std::vector<ReportIngest::OpenRound> ReportIngest::OpenRoundsAt(
    absl::Time now) const {
  std::vector<OpenRound> open;
  for (auto& study : studies_.AllStudies()) {
    if (study->state.load() != StudyState::kActive) continue;
    for (auto& round : study->Rounds()) {
      if (round->AcceptsReportsAt(now)) open.push_back({study, round});
    }
  }
  return open;
}

absl::StatusOr<std::vector<TaskAssignment>> ReportIngest::GetTasks(
    uint64_t agent_id, int max_tasks) const {
  return GetTasks(agent_id, max_tasks, OpenRoundsAt(context_.clock().Now()));
}

absl::StatusOr<std::vector<TaskAssignment>> ReportIngest::GetTasks(
    uint64_t agent_id, int max_tasks, absl::Span<const OpenRound> open) const {
  if (!agents_.Contains(agent_id)) {
    return absl::NotFoundError(absl::StrCat("no agent ", agent_id));
  }
  const size_t limit =
      max_tasks > 0 ? max_tasks : context_.options.default_max_tasks;
  std::vector<TaskAssignment> tasks;
  for (const auto& [study, round] : open) {
    const RoundPlan& plan = round->plan();
    for (int q = 0; q < round->num_questions(); ++q) {
      if (!plan.Assigns(agent_id, q)) continue;
      const uint64_t task_id =
          PackTaskId({.round_id = round->round_id(),
                      .agent_id = agent_id,
                      .question = static_cast<uint32_t>(q)});
      if (round->HasReport(task_id)) continue;
      tasks.push_back({.task_id = task_id,
                       .question = round->task(q),
                       .study = study->spec,
                       .deadline = round->deadline()});
      if (tasks.size() >= limit) return tasks;
    }
  }
  return tasks;
}

absl::StatusOr<RoundEntry> ReportIngest::AdmitTask(uint64_t agent_id,
                                                   uint64_t task_id,
                                                   RoundEntry& cache) const {
  const TaskKey key = UnpackTaskId(task_id);
  // Another agent's task gets exactly the answer an unknown task gets, and
  // before any lookup: a caller must not learn which agent ids are enrolled.
  const auto not_found = [task_id] {
    return absl::NotFoundError(
        absl::StrCat("no task ", task_id, " for this agent"));
  };
  if (key.agent_id != agent_id) return not_found();
  if (cache.round == nullptr || cache.round->round_id() != key.round_id) {
    cache = studies_.FindRound(key.round_id);
  }
  const RoundRuntime* round = cache.round.get();
  if (round == nullptr ||
      !round->plan().Assigns(key.agent_id, static_cast<int>(key.question))) {
    return not_found();
  }
  if (round->state() != RoundState::kOpen) {
    return absl::FailedPreconditionError(
        absl::StrCat("round ", key.round_id, " is closed"));
  }
  return cache;
}

void ReportIngest::UploadAsync(
    uint64_t agent_id, std::vector<TaskReport> reports,
    absl::AnyInvocable<void(std::vector<absl::Status>) &&> done) {
  std::vector<AgentReport> from_agent;
  from_agent.reserve(reports.size());
  for (TaskReport& report : reports) {
    from_agent.push_back({.agent_id = agent_id, .report = std::move(report)});
  }
  UploadAsync(std::move(from_agent), std::move(done));
}

void ReportIngest::UploadAsync(
    std::vector<AgentReport> reports,
    absl::AnyInvocable<void(std::vector<absl::Status>) &&> done) {
  auto call = std::make_shared<UploadCall>(
      reports.size(), context_.clock().Now(), std::move(done));
  const int max_reports = context_.options.max_reports_per_call;
  if (reports.size() > static_cast<size_t>(max_reports)) {
    for (absl::Status& status : call->statuses) {
      status = absl::InvalidArgumentError(
          absl::StrCat("at most ", max_reports, " reports per call"));
    }
    UploadJob(this, nullptr, std::move(call), {}).CompleteNow();
    return;
  }
  const absl::Time now = context_.clock().Now();
  RoundEntry cache;
  std::vector<PendingReport> pending;
  // Most reports are admitted: one allocation, not a dozen regrowths (each
  // moving the pending rows and their payloads).
  pending.reserve(reports.size());
  for (size_t i = 0; i < reports.size(); ++i) {
    absl::Status status = AdmitReport(
        reports[i].agent_id, std::move(reports[i].report), now, cache, pending);
    if (!status.ok()) {
      call->statuses[i] = std::move(status);
    } else {
      pending.back().index = static_cast<int>(i);
    }
  }
  std::vector<std::vector<PendingReport>> lanes =
      SplitByShard(std::move(pending));
  call->parts_left.store(static_cast<int>(lanes.size()));
  for (std::vector<PendingReport>& part : lanes) {
    const int shard =
        part.empty() ? 0
                     : context_.lanes.ShardOfAgent(part.front().row.agent_id);
    auto job = std::make_unique<UploadJob>(this, lane_batches_[shard].get(),
                                           call, std::move(part));
    if (job->pending().empty()) {
      job->CompleteNow();
      continue;
    }
    std::unique_ptr<CommitJob> submitted = std::move(job);
    if (absl::Status taken =
            context_.lanes.ForShard(shard).TrySubmit(submitted);
        !taken.ok()) {
      auto& refused = static_cast<UploadJob&>(*submitted);
      for (const PendingReport& p : refused.pending()) {
        refused.statuses()[p.index] = taken;
      }
      refused.CompleteNow();
    }
  }
}

std::vector<std::vector<PendingReport>> ReportIngest::SplitByShard(
    std::vector<PendingReport> pending) const {
  std::vector<std::vector<PendingReport>> lanes;
  if (context_.lanes.num_shards() == 1) {
    lanes.push_back(std::move(pending));
    return lanes;
  }
  std::vector<std::vector<PendingReport>> by_shard(context_.lanes.num_shards());
  for (PendingReport& p : pending) {
    by_shard[context_.lanes.ShardOfAgent(p.row.agent_id)].push_back(
        std::move(p));
  }
  for (auto& part : by_shard) {
    if (!part.empty()) lanes.push_back(std::move(part));
  }
  // A call whose reports were all refused at admission still answers once.
  if (lanes.empty()) lanes.emplace_back();
  return lanes;
}

absl::Status ReportIngest::AdmitReport(
    uint64_t agent_id, TaskReport report, absl::Time now, RoundEntry& cache,
    std::vector<PendingReport>& pending) const {
  ASSIGN_OR_RETURN(RoundEntry entry,
                   AdmitTask(agent_id, report.task_id, cache));
  if (entry.study->spec->shuffle.has_value()) {
    // Counting it would tie a report to its agent in a study that promised
    // otherwise.
    return absl::FailedPreconditionError(absl::StrCat(
        "study ", entry.study->study_id,
        " is shuffled: its reports go sealed through a shuffler, never "
        "straight to the server"));
  }
  const int q = static_cast<int>(UnpackTaskId(report.task_id).question);
  const RoundRuntime& round = *entry.round;
  if (absl::Status valid = round.mechanism(q).Validate(report.payload);
      !valid.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "report for task ", report.task_id, ": ", valid.message()));
  }
  PendingReport& p = pending.emplace_back();
  p.question = q;
  p.row = {.task_id = report.task_id,
           .round_id = round.round_id(),
           .study_id = round.study_id(),
           .agent_id = agent_id,
           .report_id = report.report_id,
           .payload = EncodePayload(report.payload),
           .epsilon_nanos = LedgerCharge(round, q, agent_id,
                                         [&pending](uint64_t id) {
                                           return std::any_of(
                                               pending.begin(), pending.end(),
                                               [id](const PendingReport& p) {
                                                 return p.row.task_id == id;
                                               });
                                         }),
           .cap_nanos = entry.study->spec->epsilon_cap_nanos,
           .received_at = now};
  p.payload = std::move(report.payload);
  p.entry = std::move(entry);
  return absl::OkStatus();
}

}  // namespace ldp
