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
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "server/aggregator_impl.h"
#include "server/credential.h"
#include "server/payload_codec.h"
#include "server/task_id.h"

namespace ldp {
namespace {

class EnrollJob final : public CommitJob {
 public:
  EnrollJob(AgentDirectory* agents, AgentRow row, std::string token,
            absl::AnyInvocable<void(absl::StatusOr<Enrollment>) &&> done)
      : agents_(agents),
        row_(row),
        token_(std::move(token)),
        done_(std::move(done)) {}

  absl::Status Apply(StoreTransaction& transaction) override {
    return transaction.InsertAgent(row_);
  }

  void Finish(const absl::Status& commit_status) override {
    if (!commit_status.ok()) {
      std::move(done_)(absl::UnavailableError(absl::StrCat(
          "enrollment was not stored (", commit_status.message(), "); retry")));
      return;
    }
    agents_->Add(row_.agent_id, row_.credential_hash);
    std::move(done_)(Enrollment{.agent_id = row_.agent_id,
                                .bearer_token = std::move(token_)});
  }

 private:
  AgentDirectory* agents_;
  AgentRow row_;
  std::string token_;
  absl::AnyInvocable<void(absl::StatusOr<Enrollment>) &&> done_;
};

struct PendingReport {
  int index = 0;  // in the caller's batch
  RoundEntry entry;
  int question = 0;
  ReportRow row;
  ReportPayload payload;
  // Set by Apply.
  bool admitted = false;
  AppendResult result;
};

class UploadJob final : public CommitJob {
 public:
  UploadJob(Aggregator::Impl* impl, size_t num_reports,
            absl::AnyInvocable<void(std::vector<absl::Status>) &&> done)
      : impl_(impl), statuses_(num_reports), done_(std::move(done)) {}

  std::vector<absl::Status>& statuses() { return statuses_; }
  std::vector<PendingReport>& pending() { return pending_; }
  void CompleteNow() { std::move(done_)(std::move(statuses_)); }

  int64_t NumWrites() const override {
    return static_cast<int64_t>(pending_.size());
  }

  absl::Status Apply(StoreTransaction& transaction) override {
    const absl::Time now = impl_->clock().Now();
    for (PendingReport& p : pending_) {
      RoundRuntime& round = *p.entry.round;
      p.admitted = round.AcceptsReportsAt(now);
      if (!p.admitted) {
        if (round.state() == RoundState::kOpen && round.ClaimClose()) {
          impl_->QueueClose(p.entry, RoundState::kClosedDeadline);
        }
        continue;
      }
      ASSIGN_OR_RETURN(p.result, transaction.AppendReport(p.row));
    }
    return absl::OkStatus();
  }

  void Finish(const absl::Status& commit_status) override {
    const RoundRuntime* last_round = nullptr;
    for (PendingReport& p : pending_) {
      statuses_[p.index] = Complete(p, commit_status);
      if (p.entry.round.get() != last_round) {
        last_round = p.entry.round.get();
        impl_->CheckQuorum(p.entry);
      }
    }
    CompleteNow();
  }

 private:
  static absl::Status Complete(PendingReport& p,
                               const absl::Status& commit_status) {
    if (!commit_status.ok()) {
      return absl::UnavailableError(absl::StrCat(
          "report was not stored (", commit_status.message(),
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
        return absl::OkStatus();
      case AppendOutcome::kConflict:
        return absl::AlreadyExistsError(absl::StrCat(
            "task ", p.row.task_id, " already has a different report"));
      case AppendOutcome::kOverCap:
        break;
    }
    return absl::FailedPreconditionError(absl::StrCat(
        "charging ", p.row.epsilon_nanos, " nano-epsilon would exceed the cap of ",
        p.row.cap_nanos, " in study ", p.row.study_id, " (already spent ",
        p.result.spent_nanos, ")"));
  }

  // Writer thread only, so plain load-then-store suffices for the counters.
  static void Count(PendingReport& p) {
    // Cannot fail: admission validated the payload with the same mechanism.
    (void)p.entry.round->Accumulate(p.row.task_id, p.question, p.payload);
    StudyRuntime& study = *p.entry.study;
    study.num_reports.fetch_add(1, std::memory_order_relaxed);
    if (p.result.first_charge) {
      study.num_agents.fetch_add(1, std::memory_order_relaxed);
    }
    if (p.result.spent_nanos > study.max_spent_nanos.load()) {
      study.max_spent_nanos.store(p.result.spent_nanos);
    }
  }

  Aggregator::Impl* impl_;
  std::vector<absl::Status> statuses_;
  std::vector<PendingReport> pending_;
  absl::AnyInvocable<void(std::vector<absl::Status>) &&> done_;
};

}  // namespace
