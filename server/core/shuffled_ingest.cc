// Shuffled batches; see the header.
#include "server/core/shuffled_ingest.h"

#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/amplification/numerical_bound.h"
#include "common/base/status_macros.h"
#include "common/tasks/task_id.h"
#include "server/store/storage_codec.h"

namespace ldp {

class ShuffledBatchJob final : public CommitJob {
 public:
  ShuffledBatchJob(
      ShuffledIngest* ingest, RoundEntry entry, ShuffledBatchRow row,
      std::vector<ReportPayload> payloads, ShuffledBatchOutcome outcome,
      absl::AnyInvocable<void(absl::StatusOr<ShuffledBatchOutcome>) &&> done)
      : ingest_(ingest),
        entry_(std::move(entry)),
        row_(std::move(row)),
        payloads_(std::move(payloads)),
        outcome_(std::move(outcome)),
        done_(std::move(done)) {}

  int64_t NumWrites() const override {
    return static_cast<int64_t>(row_.reports.size()) + 1;
  }

  absl::Status Apply(StoreTransaction& transaction) override {
    open_ = entry_.round->AcceptsReportsAt(ingest_->context_.clock().Now());
    if (!open_) return absl::OkStatus();
    ASSIGN_OR_RETURN(result_, transaction.AppendShuffledBatch(row_));
    return absl::OkStatus();
  }

  void Finish(const absl::Status& commit_status) override {
    std::move(done_)(Complete(commit_status));
  }

 private:
  absl::StatusOr<ShuffledBatchOutcome> Complete(
      const absl::Status& commit_status) {
    if (!commit_status.ok()) {
      return absl::UnavailableError(
          absl::StrCat("the batch was not stored (", commit_status.message(),
                       "); retry it with the same batch_id"));
    }
    if (!open_) {
      return absl::FailedPreconditionError(
          absl::StrCat("round ", row_.round_id, " is closed"));
    }
    switch (result_.outcome) {
      case ShuffledAppendOutcome::kRetry:
        return ShuffledBatchOutcome{.accepted = result_.accepted,
                                    .not_opened = result_.not_opened,
                                    .invalid = result_.invalid,
                                    .duplicates = result_.duplicates};
      case ShuffledAppendOutcome::kBelowMinimum:
        return absl::FailedPreconditionError(
            absl::StrCat("the batch has ", result_.accepted,
                         " new valid reports, below the study's min_batch of ",
                         row_.min_batch, " (", result_.duplicates,
                         " repeated stored report ids); nothing was stored"));
      case ShuffledAppendOutcome::kStored:
        break;
    }
    Count();
    outcome_.accepted = result_.accepted;
    outcome_.duplicates = result_.duplicates;
    if (outcome_.first_error.empty() && result_.duplicates > 0) {
      outcome_.first_error = "a report id already stored for this question";
    }
    return outcome_;
  }

  // Writer thread: after the commit, as for per-agent reports.
  void Count() {
    RoundRuntime& round = *entry_.round;
    const int q = static_cast<int>(row_.question);
    for (size_t i = 0; i < payloads_.size(); ++i) {
      if (!result_.stored[i]) continue;
      if (round.AccumulateShuffled(q, payloads_[i]).ok()) {
        entry_.study->num_reports.fetch_add(1, std::memory_order_relaxed);
      }
    }
    round.RecordShuffledBatch(q, result_.accepted);
    ingest_->rounds_.CheckQuorum(entry_);
  }

  ShuffledIngest* ingest_;
  RoundEntry entry_;
  ShuffledBatchRow row_;
  std::vector<ReportPayload> payloads_;
  ShuffledBatchOutcome outcome_;
  absl::AnyInvocable<void(absl::StatusOr<ShuffledBatchOutcome>) &&> done_;
  bool open_ = false;
  ShuffledAppendResult result_{};
};

absl::StatusOr<RoundEntry> ShuffledIngest::Find(uint64_t study_id,
                                                uint64_t round_id,
                                                uint32_t question) const {
  RoundEntry entry = studies_.FindRound(round_id);
  if (entry.round == nullptr || entry.study->study_id != study_id ||
      static_cast<int>(question) >= entry.round->num_questions()) {
    return absl::NotFoundError(absl::StrCat("study ", study_id,
                                            " has no round ", round_id,
                                            " with question ", question));
  }
  if (!entry.study->spec->shuffle.has_value()) {
    return absl::FailedPreconditionError(
        absl::StrCat("study ", study_id, " is not a shuffled study"));
  }
  if (!entry.round->AcceptsReportsAt(context_.clock().Now())) {
    return absl::FailedPreconditionError(
        absl::StrCat("round ", round_id, " is closed"));
  }
  return entry;
}

absl::StatusOr<TaskAssignment> ShuffledIngest::ShuffledQuestion(
    uint64_t study_id, uint64_t round_id, uint32_t question) const {
  ASSIGN_OR_RETURN(const RoundEntry entry, Find(study_id, round_id, question));
  return TaskAssignment{
      .task_id = PackTaskId({.round_id = round_id, .question = question}),
      .question = entry.round->task(static_cast<int>(question)),
      .study = entry.study->spec,
      .deadline = entry.round->deadline()};
}

ShuffledBatchRow ShuffledIngest::ValidRows(
    ShuffledBatch& batch, const RoundEntry& entry,
    ShuffledBatchOutcome& outcome, std::vector<ReportPayload>& payloads) const {
  const int q = static_cast<int>(batch.question);
  const uint64_t task_id =
      PackTaskId({.round_id = batch.round_id, .question = batch.question});
  ShuffledBatchRow row{.batch_id = batch.batch_id,
                       .round_id = batch.round_id,
                       .question = batch.question,
                       .min_batch = entry.study->spec->shuffle->min_batch,
                       .not_opened = batch.not_opened};
  for (TaskReport& report : batch.reports) {
    absl::Status valid =
        report.task_id == task_id
            ? entry.round->mechanism(q).Validate(report.payload)
            : absl::InvalidArgumentError("the report names another task");
    if (!valid.ok()) {
      ++outcome.invalid;
      if (outcome.first_error.empty()) {
        outcome.first_error = std::string(valid.message());
      }
      continue;
    }
    row.reports.push_back({.report_id = report.report_id,
                           .payload = EncodePayload(report.payload)});
    payloads.push_back(std::move(report.payload));
  }
  row.invalid = outcome.invalid;
  return row;
}

void ShuffledIngest::DeliverAsync(
    ShuffledBatch batch,
    absl::AnyInvocable<void(absl::StatusOr<ShuffledBatchOutcome>) &&> done) {
  absl::StatusOr<RoundEntry> entry =
      Find(batch.study_id, batch.round_id, batch.question);
  if (!entry.ok()) return std::move(done)(entry.status());
  ShuffledBatchOutcome outcome{.not_opened = batch.not_opened,
                               .invalid = batch.invalid,
                               .first_error = batch.first_error};
  std::vector<ReportPayload> payloads;
  ShuffledBatchRow row = ValidRows(batch, *entry, outcome, payloads);
  if (static_cast<int64_t>(row.reports.size()) < row.min_batch) {
    return std::move(done)(absl::FailedPreconditionError(
        absl::StrCat("the batch has ", row.reports.size(),
                     " valid reports, below the study's min_batch of ",
                     row.min_batch, " (", outcome.not_opened, " did not open, ",
                     outcome.invalid, " invalid); nothing was stored")));
  }
  std::unique_ptr<CommitJob> job = std::make_unique<ShuffledBatchJob>(
      this, *std::move(entry), std::move(row), std::move(payloads),
      std::move(outcome), std::move(done));
  if (absl::Status taken = context_.lanes.catalog().TrySubmit(job);
      !taken.ok()) {
    static_cast<ShuffledBatchJob&>(*job).Finish(taken);
  }
}

ShuffledGuaranteeInfo ShuffledGuaranteeOf(const RoundRuntime& round, int q,
                                          const ShuffleSpec& shuffle) {
  const RoundRuntime::ShuffledBatches batches = round.shuffled_batches(q);
  const double local =
      static_cast<double>(round.task(q)->epsilon_nanos) / kNanosPerEpsilon;
  ShuffledGuaranteeInfo info{.local_epsilon = local,
                             .central_epsilon = local,
                             .delta = shuffle.delta,
                             .num_batches = batches.count,
                             .smallest_batch = batches.smallest};
  if (batches.count > 0) {
    absl::StatusOr<double> central =
        ShuffledEpsilon(local, batches.smallest, shuffle.delta);
    // Shuffling never hurts: if the bound cannot be computed, ε0 holds.
    if (central.ok()) info.central_epsilon = std::min(*central, local);
  }
  return info;
}

}  // namespace ldp
