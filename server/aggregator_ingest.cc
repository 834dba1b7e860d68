// The agent-facing half of the aggregator: enrollment, authentication,
// task assignment and report ingestion (see aggregator.h for the contract).
//
// Ingestion splits the work by what needs ordering. Everything that reads
// only immutable state (task ownership, the plan, payload validation, the
// payload's stored bytes) runs on the calling thread, in parallel. What must
// be serialized (round still open, dedupe, the ledger charge) runs on the
// writer thread inside the group's transaction; accumulating runs on the
// writer thread after the commit, so an estimate never includes a report
// that is not durable.
#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "server/aggregator_impl.h"
#include "server/ledger_charge.h"
#include "server/credential.h"
#include "server/payload_codec.h"
#include "server/task_id.h"

namespace ldp {
namespace {

// The backpressure answer: nothing was stored, the caller retries later.
absl::Status Overloaded() {
  return absl::ResourceExhaustedError(
      "the server is overloaded (its commit queue is full); nothing was "
      "stored, retry with backoff");
}

// The refusal of an enrollment past its token's quota, whoever counted.
absl::Status QuotaUsedUp(int64_t max_agents, int64_t enrolled, int64_t asked) {
  return absl::ResourceExhaustedError(absl::StrCat(
      "this enrollment token admits ", max_agents, " agents and has ",
      std::max<int64_t>(max_agents - enrolled, 0), " left, fewer than the ",
      asked, " asked for; ask the operator for a new token"));
}

// Stores one or more agents in one transaction: a relay's EnrollBatch is
// one job, so a thousand enrollments cost one commit, not a thousand.
class EnrollJob final : public CommitJob {
 public:
  // `rows` (non-empty) share one enrollment batch; tokens[i] is rows[i]'s.
  // max_agents: the batch's quota (0 = none), for a store that counts it.
  EnrollJob(Aggregator::Impl* impl, std::vector<AgentRow> rows,
            std::vector<std::string> tokens, int64_t max_agents,
            absl::AnyInvocable<void(absl::StatusOr<std::vector<Enrollment>>) &&>
                done)
      : impl_(impl),
        rows_(std::move(rows)),
        tokens_(std::move(tokens)),
        max_agents_(max_agents),
        done_(std::move(done)) {}

  int64_t NumWrites() const override {
    return static_cast<int64_t>(rows_.size());
  }

  // A run again (CommitJob::Apply) overwrites the decision.
  absl::Status Apply(StoreTransaction& transaction) override {
    if (max_agents_ == 0) return transaction.InsertAgents(rows_);
    ASSIGN_OR_RETURN(decision_,
                     transaction.InsertAgentsWithinQuota(rows_, max_agents_));
    return absl::OkStatus();
  }

  // Never submitted (backpressure): answer `status` instead.
  void Refuse(absl::Status status) {
    impl_->ReleaseEnrollment(batch(), NumWrites());
    impl_->stats().RecordEnrollment(false, NumWrites());
    std::move(done_)(std::move(status));
  }

  void Finish(const absl::Status& commit_status) override {
    if (commit_status.ok() && !decision_.admitted) return RefuseOverQuota();
    impl_->stats().RecordEnrollment(commit_status.ok(), NumWrites());
    if (!commit_status.ok()) {
      impl_->Log(LogLevel::kWarning, "store_commit_failed",
                 {{"job", "enroll"},
                  {"agents", absl::StrCat(rows_.size())},
                  {"error", std::string(commit_status.message())}});
      impl_->ReleaseEnrollment(batch(), NumWrites());
      std::move(done_)(absl::UnavailableError(absl::StrCat(
          "enrollment was not stored (", commit_status.message(), "); retry")));
      return;
    }
    if (decision_.enrolled_before >= 0) {
      impl_->NoteStoredEnrollments(batch(),
                                   decision_.enrolled_before + NumWrites());
    }
    std::vector<Enrollment> enrollments;
    enrollments.reserve(rows_.size());
    for (size_t i = 0; i < rows_.size(); ++i) {
      impl_->agents().Add(rows_[i].agent_id, rows_[i].credential_hash);
      enrollments.push_back({.agent_id = rows_[i].agent_id,
                             .bearer_token = std::move(tokens_[i])});
    }
    std::move(done_)(std::move(enrollments));
  }

 private:
  const std::string& batch() const { return rows_.front().enrollment_batch; }

  // The store counted every server's agents of the batch and found no
  // room: nothing was stored. This server learns the count, so that its
  // own pre-check refuses the next such call without asking the database.
  void RefuseOverQuota() {
    impl_->Log(LogLevel::kInfo, "enrollment_refused",
               {{"reason", "quota_used_up"},
                {"quota", absl::StrCat(max_agents_)},
                {"counted_by", "database"}});
    impl_->ReleaseEnrollment(batch(), NumWrites());
    impl_->NoteStoredEnrollments(batch(), decision_.enrolled_before);
    impl_->stats().RecordEnrollment(false, NumWrites());
    std::move(done_)(
        QuotaUsedUp(max_agents_, decision_.enrolled_before, NumWrites()));
  }

  Aggregator::Impl* impl_;
  std::vector<AgentRow> rows_;
  std::vector<std::string> tokens_;
  const int64_t max_agents_;
  QuotaDecision decision_;
  absl::AnyInvocable<void(absl::StatusOr<std::vector<Enrollment>>) &&> done_;
};

class UploadJob final : public CommitJob {
 public:
  UploadJob(Aggregator::Impl* impl, size_t num_reports,
            absl::AnyInvocable<void(std::vector<absl::Status>) &&> done)
      : impl_(impl),
        started_(impl->clock().Now()),
        statuses_(num_reports),
        done_(std::move(done)) {}

  std::vector<absl::Status>& statuses() { return statuses_; }
  std::vector<PendingReport>& pending() { return pending_; }
  void CompleteNow() {
    impl_->stats().RecordUpload(statuses_, impl_->clock().Now() - started_);
    std::move(done_)(std::move(statuses_));
  }

  int64_t NumWrites() const override {
    return static_cast<int64_t>(pending_.size());
  }

  // The job's reports go to the store as one batch: a shared store charges
  // them in a constant number of round trips.
  absl::Status Apply(StoreTransaction& transaction) override {
    const absl::Time now = impl_->clock().Now();
    std::vector<const ReportRow*> rows;
    std::vector<PendingReport*> admitted;
    rows.reserve(pending_.size());
    admitted.reserve(pending_.size());
    for (PendingReport& p : pending_) {
      RoundRuntime& round = *p.entry.round;
      p.admitted = round.AcceptsReportsAt(now);
      if (!p.admitted) {
        if (round.state() == RoundState::kOpen && round.ClaimClose()) {
          impl_->QueueClose(p.entry, RoundState::kClosedDeadline);
        }
        continue;
      }
      rows.push_back(&p.row);
      admitted.push_back(&p);
    }
    std::vector<AppendResult> results(rows.size());
    RETURN_IF_ERROR(transaction.AppendReports(rows, absl::MakeSpan(results)));
    for (size_t i = 0; i < admitted.size(); ++i) admitted[i]->result = results[i];
    return absl::OkStatus();
  }

  void Finish(const absl::Status& commit_status) override {
    if (!commit_status.ok()) {
      impl_->Log(LogLevel::kWarning, "store_commit_failed",
                 {{"job", "upload"},
                  {"reports", absl::StrCat(pending_.size())},
                  {"error", std::string(commit_status.message())}});
    }
    for (PendingReport& p : pending_) {
      statuses_[p.index] = Complete(p, commit_status);
      if (statuses_[p.index].ok() && p.result.outcome == AppendOutcome::kStored) {
        impl_->stats().AddCharged(p.row.epsilon_nanos);
      }
    }
    const RoundRuntime* last_round = nullptr;
    for (const PendingReport& p : pending_) {
      if (p.entry.round.get() == last_round) continue;
      last_round = p.entry.round.get();
      impl_->CheckQuorum(p.entry);
    }
    CompleteNow();
  }

 private:
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
        Count(p);
        return absl::OkStatus();
      case AppendOutcome::kIdenticalRetry:
        // Usually counted already (Accumulate then does nothing); with a
        // shared store it may be this server's own earlier write, whose
        // commit reply was lost, which no poll here brings back.
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

  // Writer thread only, so plain load-then-store suffices for the counters.
  static void Count(PendingReport& p) {
    StudyRuntime& study = *p.entry.study;
    // Fails only when a server following a shared store already counted
    // the report: admission validated the payload with the same mechanism.
    if (p.entry.round->Accumulate(p.row.task_id, p.question, p.payload).ok()) {
      study.num_reports.fetch_add(1, std::memory_order_relaxed);
    }
    if (p.result.first_charge) {
      study.num_agents.fetch_add(1, std::memory_order_relaxed);
    }
    if (p.result.spent_nanos > study.max_spent_nanos.load()) {
      study.max_spent_nanos.store(p.result.spent_nanos);
    }
  }

  Aggregator::Impl* impl_;
  const absl::Time started_;
  std::vector<absl::Status> statuses_;
  std::vector<PendingReport> pending_;
  absl::AnyInvocable<void(std::vector<absl::Status>) &&> done_;
};

}  // namespace

// Reserves the slots in the token's quota before anything is written, so
// concurrent enrollments here cannot overshoot it; given back on failure.
//
// With a shared store this is only a pre-check: other servers enroll with
// the same token, so the database counts and decides, in the transaction
// that inserts the agents (EnrollJob). The pre-check never refuses what
// the database would admit, because `enrolled` never exceeds the agents
// stored plus this server's own in flight: it starts from the stored count
// at load and grows only by this server's reservations (given back if not
// stored) and by counts the database answered. So it refuses only when
// this server's own enrollments in flight, once committed, leave no room
// (as with one server), and spares the database calls that must fail.
absl::StatusOr<int64_t> Aggregator::Impl::ReserveEnrollment(
    std::string_view enrollment_token, int count, std::string& batch) {
  if (open_enrollment_) return 0;
  batch = EnrollmentBatchKey(enrollment_token);
  absl::MutexLock lock(&enrollment_mutex_);
  auto it = enrollment_batches_.find(batch);
  if (it == enrollment_batches_.end()) {
    Log(LogLevel::kInfo, "enrollment_refused", {{"reason", "wrong_token"}});
    return absl::UnauthenticatedError("wrong enrollment token");
  }
  EnrollmentBatch& quota = it->second;
  if (quota.max_agents > 0 && quota.enrolled + count > quota.max_agents) {
    Log(LogLevel::kInfo, "enrollment_refused",
        {{"reason", "quota_used_up"}, {"quota", absl::StrCat(quota.max_agents)}});
    return QuotaUsedUp(quota.max_agents, quota.enrolled, count);
  }
  quota.enrolled += count;
  return quota.max_agents;
}

void Aggregator::Impl::EnrollManyAsync(
    std::string_view enrollment_token, int count,
    absl::AnyInvocable<void(absl::StatusOr<std::vector<Enrollment>>) &&> done) {
  if (count < 1 || count > options_.max_reports_per_call) {
    std::move(done)(absl::InvalidArgumentError(absl::StrCat(
        "enroll 1 to ", options_.max_reports_per_call,
        " agents per call, not ", count)));
    return;
  }
  const auto refuse = [&](absl::Status status) {
    stats_.RecordEnrollment(false, count);
    std::move(done)(std::move(status));
  };
  std::string batch;
  const absl::StatusOr<int64_t> max_agents =
      ReserveEnrollment(enrollment_token, count, batch);
  if (!max_agents.ok()) return refuse(max_agents.status());
  absl::StatusOr<uint64_t> first = NextIds(IdKind::kAgent, count);
  if (!first.ok() || *first + count - 1 > kMaxAgentId) {
    ReleaseEnrollment(batch, count);
    return refuse(
        first.ok()
            ? absl::ResourceExhaustedError("the server has enrolled the "
                                           "largest number of agents it "
                                           "supports")
            : absl::UnavailableError(absl::StrCat(
                  "cannot reserve agent ids (", first.status().message(),
                  "); retry")));
  }
  const uint64_t first_id = *first;
  std::vector<AgentRow> rows;
  std::vector<std::string> tokens;
  rows.reserve(count);
  tokens.reserve(count);
  const absl::Time now = clock().Now();
  {
    absl::MutexLock lock(&random_mutex_);
    for (int i = 0; i < count; ++i) {
      IssuedCredential credential = IssueCredential(first_id + i, *random_);
      rows.push_back({.agent_id = first_id + i,
                      .credential_hash = credential.hash,
                      .enrolled_at = now,
                      .enrollment_batch = batch});
      tokens.push_back(std::move(credential.bearer_token));
    }
  }
  std::unique_ptr<CommitJob> job = std::make_unique<EnrollJob>(
      this, std::move(rows), std::move(tokens), *max_agents, std::move(done));
  if (!queue_->TrySubmit(job)) {
    // Overloaded: refuse now (the ids are simply never used).
    static_cast<EnrollJob&>(*job).Refuse(Overloaded());
  }
}

void Aggregator::Impl::EnrollAsync(
    std::string_view enrollment_token,
    absl::AnyInvocable<void(absl::StatusOr<Enrollment>) &&> done) {
  EnrollManyAsync(
      enrollment_token, 1,
      [done = std::move(done)](
          absl::StatusOr<std::vector<Enrollment>> enrolled) mutable {
        if (!enrolled.ok()) return std::move(done)(enrolled.status());
        std::move(done)(std::move(enrolled->front()));
      });
}

void Aggregator::Impl::ReleaseEnrollment(const std::string& batch, int64_t count) {
  if (batch.empty()) return;
  absl::MutexLock lock(&enrollment_mutex_);
  auto it = enrollment_batches_.find(batch);
  if (it != enrollment_batches_.end()) it->second.enrolled -= count;
}

void Aggregator::Impl::NoteStoredEnrollments(const std::string& batch,
                                             int64_t stored) {
  absl::MutexLock lock(&enrollment_mutex_);
  auto it = enrollment_batches_.find(batch);
  if (it != enrollment_batches_.end()) {
    it->second.enrolled = std::max(it->second.enrolled, stored);
  }
}

// Why an agent credential cannot be forged: the bearer secret is 32 bytes
// (256 bits) from SecureRandom, so guessing one succeeds with probability
// 2^-256 per try; the server stores only SHA-256 of it, so even a copy of
// the database yields no usable credential; and the comparison runs in
// constant time, so timing reveals nothing about how close a guess was.
//
// With a shared store, an agent another server enrolled is looked up in the
// database the first time it shows up here (say after failing over).
absl::StatusOr<uint64_t> Aggregator::Impl::AuthenticateAgent(
    std::string_view token) {
  ASSIGN_OR_RETURN(const ParsedToken parsed, ParseBearerToken(token));
  if (agents_.Verify(parsed.agent_id, parsed.hash)) return parsed.agent_id;
  // Known here already: the credential was simply wrong.
  if (!agents_.Contains(parsed.agent_id)) {
    ASSIGN_OR_RETURN(const bool known, KnowsAgent(parsed.agent_id));
    if (known && agents_.Verify(parsed.agent_id, parsed.hash)) {
      return parsed.agent_id;
    }
  }
  return absl::UnauthenticatedError("unknown agent or wrong credential");
}

absl::StatusOr<std::vector<TaskAssignment>> Aggregator::Impl::GetTasks(
    uint64_t agent_id, int max_tasks) {
  if (!agents_.Contains(agent_id)) {
    return absl::NotFoundError(absl::StrCat("no agent ", agent_id));
  }
  const size_t limit = max_tasks > 0 ? max_tasks : options_.default_max_tasks;
  const absl::Time now = clock().Now();
  std::vector<TaskAssignment> tasks;
  for (const auto& study : AllStudies()) {
    if (study->state.load() != StudyState::kActive) continue;
    for (const auto& round : study->Rounds()) {
      if (!round->AcceptsReportsAt(now)) continue;
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
  }
  return tasks;
}

absl::StatusOr<RoundEntry> Aggregator::Impl::AdmitTask(
    uint64_t agent_id, uint64_t task_id, RoundEntry& cache) const {
  const TaskKey key = UnpackTaskId(task_id);
  // Another agent's task gets exactly the answer an unknown task gets, and
  // before any lookup: a caller must not learn which agent ids are enrolled.
  const auto not_found = [task_id] {
    return absl::NotFoundError(
        absl::StrCat("no task ", task_id, " for this agent"));
  };
  if (key.agent_id != agent_id) return not_found();
  if (cache.round == nullptr || cache.round->round_id() != key.round_id) {
    cache = FindRound(key.round_id);
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

void Aggregator::Impl::UploadReportsAsync(
    uint64_t agent_id, std::vector<TaskReport> reports,
    absl::AnyInvocable<void(std::vector<absl::Status>) &&> done) {
  std::vector<AgentReport> from_agent;
  from_agent.reserve(reports.size());
  for (TaskReport& report : reports) {
    from_agent.push_back({.agent_id = agent_id, .report = std::move(report)});
  }
  UploadAgentReportsAsync(std::move(from_agent), std::move(done));
}

void Aggregator::Impl::UploadAgentReportsAsync(
    std::vector<AgentReport> reports,
    absl::AnyInvocable<void(std::vector<absl::Status>) &&> done) {
  auto job = std::make_unique<UploadJob>(this, reports.size(), std::move(done));
  if (reports.size() > static_cast<size_t>(options_.max_reports_per_call)) {
    for (absl::Status& status : job->statuses()) {
      status = absl::InvalidArgumentError(absl::StrCat(
          "at most ", options_.max_reports_per_call, " reports per call"));
    }
    job->CompleteNow();
    return;
  }
  const absl::Time now = clock().Now();
  RoundEntry cache;
  for (size_t i = 0; i < reports.size(); ++i) {
    absl::Status status = AdmitReport(reports[i].agent_id,
                                      std::move(reports[i].report), now, cache,
                                      job->pending());
    if (!status.ok()) {
      job->statuses()[i] = std::move(status);
    } else {
      job->pending().back().index = static_cast<int>(i);
    }
  }
  if (job->pending().empty()) {
    job->CompleteNow();
    return;
  }
  std::unique_ptr<CommitJob> submitted = std::move(job);
  if (!queue_->TrySubmit(submitted)) {
    auto& refused = static_cast<UploadJob&>(*submitted);
    for (const PendingReport& p : refused.pending()) {
      refused.statuses()[p.index] = Overloaded();
    }
    refused.CompleteNow();
  }
}

absl::Status Aggregator::Impl::AdmitReport(
    uint64_t agent_id, TaskReport report, absl::Time now, RoundEntry& cache,
    std::vector<PendingReport>& pending) {
  ASSIGN_OR_RETURN(RoundEntry entry,
                   AdmitTask(agent_id, report.task_id, cache));
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
           .epsilon_nanos = LedgerCharge(
               round, q, agent_id,
               [&pending](uint64_t id) {
                 return std::any_of(pending.begin(), pending.end(),
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

absl::StatusOr<std::vector<LedgerEntry>> Aggregator::Impl::GetBudget(
    uint64_t agent_id, uint64_t study_id) {
  ASSIGN_OR_RETURN(const bool known, KnowsAgent(agent_id));
  if (!known) return absl::NotFoundError(absl::StrCat("no agent ", agent_id));
  return store_->GetLedger(agent_id, study_id);
}

absl::StatusOr<bool> Aggregator::Impl::KnowsAgent(uint64_t agent_id) {
  if (agents_.Contains(agent_id)) return true;
  if (!store_->shared()) return false;
  absl::StatusOr<std::optional<AgentRow>> row = store_->FindAgent(agent_id);
  if (!row.ok()) {
    return absl::UnavailableError(absl::StrCat(
        "cannot look the agent up in the database (", row.status().message(),
        "); retry"));
  }
  if (!row->has_value()) return false;
  agents_.Add((*row)->agent_id, (*row)->credential_hash);
  return true;
}

void Aggregator::Impl::CheckQuorum(const RoundEntry& entry) {
  const int64_t quorum = entry.study->spec->quorum;
  RoundRuntime& round = *entry.round;
  if (quorum <= 0 || round.state() != RoundState::kOpen ||
      !round.QuorumReached(quorum)) {
    return;
  }
  // Refuse further reports from now on; the job makes it durable.
  round.set_state(RoundState::kClosedQuorum);
  if (round.ClaimClose()) QueueClose(entry, RoundState::kClosedQuorum);
}

}  // namespace ldp
