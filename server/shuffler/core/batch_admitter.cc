// Admission, release and deadlines; see the header.
#include "server/shuffler/core/batch_admitter.h"

#include <algorithm>
#include <optional>
#include <string_view>
#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/crypto/random_bytes.h"
#include "server/shuffler/core/permutation.h"

namespace ldp::shuffler_internal {

using sqlite::Transaction;

namespace {

constexpr size_t kBatchIdBytes = 16;

// No agent id and no arrival time: only what the server is told anyway.
void LogBatch(EventLog* log, std::string_view event,
              const v1::ShuffledBatchHeader& header) {
  if (log == nullptr) return;
  log->Write(LogLevel::kInfo, event,
             {{"batch", absl::BytesToHexString(header.batch_id())},
              {"study", absl::StrCat(header.study_id())},
              {"round", absl::StrCat(header.round_id())},
              {"task", absl::StrCat(header.shuffled_task_id())},
              {"reports", absl::StrCat(header.num_reports())}});
}

absl::StatusOr<v1::ShuffledBatchHeader> HeaderOf(const KeyRow& row) {
  v1::ShuffledBatchHeader header;
  if (!header.ParseFromString(row.header)) {
    return absl::DataLossError("a batch key's stored header does not parse");
  }
  return header;
}

}  // namespace

absl::StatusOr<int> BatchAdmitter::AdmitAll(
    absl::Span<Admission* const> admissions) {
  ASSIGN_OR_RETURN(std::unique_ptr<Transaction> transaction, store_->Begin());
  TouchedKeys touched;
  Delta delta;
  for (Admission* admission : admissions) {
    RETURN_IF_ERROR(AdmitOne(*admission, touched, delta));
  }
  for (const auto& [key, row] : touched) {
    ASSIGN_OR_RETURN(const uint64_t pending, store_->PendingCount(key));
    if (pending >= row.threshold) RETURN_IF_ERROR(Release(key, row, delta));
  }
  RETURN_IF_ERROR(transaction->Commit());
  Apply(delta);
  if (delta.batches_released > 0) ForgetDeletedRows();
  return static_cast<int>(delta.batches_released);
}

absl::Status BatchAdmitter::AdmitOne(Admission& admission, TouchedKeys& touched,
                                     Delta& delta) {
  const std::string& key = admission.key.bytes;
  // Checked again here, inside the transaction: a submission checked just
  // before its deadline must not land after the sweep forgot the key's
  // agents.
  if (config_->clock->Now() >= admission.key.deadline) {
    admission.status =
        absl::FailedPreconditionError("the ticket's deadline has passed");
    return absl::OkStatus();
  }
  auto it = touched.find(key);
  if (it == touched.end()) {
    ASSIGN_OR_RETURN(KeyRow row, KeyRowFor(admission.key));
    it = touched.emplace(key, std::move(row)).first;
  }
  ASSIGN_OR_RETURN(const bool seen, store_->Seen(key, admission.agent_id));
  if (seen) {
    // The digest is gone with the batch (it would link the agent to the
    // delivered payload), so even an identical retry gets this answer.
    admission.status = absl::AlreadyExistsError(
        "this agent's report for this task already left in a shuffled batch");
    return absl::OkStatus();
  }
  ASSIGN_OR_RETURN(std::optional<std::string> digest,
                   store_->PendingDigest(key, admission.agent_id));
  if (digest.has_value()) {
    admission.status = *digest == admission.digest
                           ? absl::OkStatus()
                           : absl::AlreadyExistsError(
                                 "another report from this agent for this "
                                 "task is already held");
    return absl::OkStatus();
  }
  RETURN_IF_ERROR(store_->InsertPending(key, admission.agent_id,
                                        *admission.payload, admission.digest));
  ++delta.pending_added;
  admission.status = absl::OkStatus();
  return absl::OkStatus();
}

absl::StatusOr<std::optional<KeyRow>> BatchAdmitter::FindKey(
    const std::string& key) {
  ASSIGN_OR_RETURN(std::optional<KeyRow> row, store_->FindKey(key));
  // A floor raised since the key was first seen applies to it too: no
  // batch ever leaves below the floor in force.
  if (row.has_value()) {
    row->min_release = std::max(row->min_release, config_->min_batch_floor);
    row->threshold = std::max(row->threshold, row->min_release);
  }
  return row;
}

absl::StatusOr<KeyRow> BatchAdmitter::KeyRowFor(const BatchKey& key) {
  ASSIGN_OR_RETURN(std::optional<KeyRow> found, FindKey(key.bytes));
  if (found.has_value()) return *std::move(found);
  // Drawn once and stored before the first report is: a restart resumes
  // the same threshold instead of drawing again (redrawing until a small
  // one came up would defeat the randomization).
  KeyRow row{.header = key.header.SerializeAsString(),
             .deadline = key.deadline,
             .min_release = ReleaseMinimum(key.ticket_min_batch,
                                           config_->min_batch_floor)};
  row.threshold =
      DrawThreshold(row.min_release, config_->extra_max_fraction, gen_);
  RETURN_IF_ERROR(store_->InsertKey(key.bytes, row));
  return row;
}

absl::Status BatchAdmitter::Release(const std::string& key, const KeyRow& row,
                                    Delta& delta) {
  ASSIGN_OR_RETURN(std::vector<v1::SealedPayload> payloads,
                   store_->TakePending(key));
  ShuffleInPlace(payloads, gen_);
  ASSIGN_OR_RETURN(v1::ShuffledBatchHeader header, HeaderOf(row));
  std::string batch_id(kBatchIdBytes, '\0');
  RETURN_IF_ERROR(FillRandomBytes(batch_id.data(), batch_id.size()));
  header.set_batch_id(std::move(batch_id));
  header.set_num_reports(payloads.size());
  RETURN_IF_ERROR(store_->AppendOutbox(header, payloads));
  ++delta.batches_released;
  delta.reports_released += payloads.size();
  delta.released.push_back(std::move(header));
  return absl::OkStatus();
}

absl::StatusOr<int> BatchAdmitter::SweepDeadlines() {
  ASSIGN_OR_RETURN(std::vector<std::string> due,
                   store_->KeysDueBy(config_->clock->Now()));
  if (due.empty()) return 0;
  ASSIGN_OR_RETURN(std::unique_ptr<Transaction> transaction, store_->Begin());
  Delta delta;
  for (const std::string& key : due) {
    RETURN_IF_ERROR(SettleAtDeadline(key, delta));
  }
  RETURN_IF_ERROR(transaction->Commit());
  Apply(delta);
  ForgetDeletedRows();
  return static_cast<int>(delta.batches_released);
}

// The transaction is committed either way: a failure here only leaves old
// log frames until the next release, so it is logged, not returned.
void BatchAdmitter::ForgetDeletedRows() {
  const absl::Status truncated = store_->TruncateWal();
  if (!truncated.ok() && config_->event_log != nullptr) {
    config_->event_log->Write(LogLevel::kWarning, "wal_truncate_failed",
                              {{"error", truncated.ToString()}});
  }
}

absl::Status BatchAdmitter::SettleAtDeadline(const std::string& key,
                                             Delta& delta) {
  ASSIGN_OR_RETURN(std::optional<KeyRow> row, FindKey(key));
  if (!row.has_value()) return absl::OkStatus();
  ASSIGN_OR_RETURN(const uint64_t pending, store_->PendingCount(key));
  if (pending > 0 && pending >= row->min_release) {
    RETURN_IF_ERROR(Release(key, *row, delta));
  } else if (pending > 0) {
    delta.reports_expired += pending;
    ASSIGN_OR_RETURN(v1::ShuffledBatchHeader header, HeaderOf(*row));
    header.set_num_reports(pending);
    delta.expired.push_back(std::move(header));
  }
  return store_->DeleteKey(key);
}

void BatchAdmitter::Apply(const Delta& delta) {
  const uint64_t left = delta.reports_released + delta.reports_expired;
  ShufflerCounters::Add(counters_->pending_reports, delta.pending_added);
  ShufflerCounters::Sub(counters_->pending_reports, left);
  ShufflerCounters::Add(counters_->outbox_batches, delta.batches_released);
  ShufflerCounters::Add(counters_->batches_released, delta.batches_released);
  ShufflerCounters::Add(counters_->reports_released, delta.reports_released);
  ShufflerCounters::Add(counters_->reports_expired, delta.reports_expired);
  for (const v1::ShuffledBatchHeader& header : delta.released) {
    LogBatch(config_->event_log, "batch_released", header);
  }
  for (const v1::ShuffledBatchHeader& header : delta.expired) {
    LogBatch(config_->event_log, "batch_expired_below_minimum", header);
  }
}

}  // namespace ldp::shuffler_internal
