// Outbox delivery; see the header.
#include "server/shuffler/core/outbox_sender.h"

#include <optional>
#include <string_view>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"

namespace ldp::shuffler_internal {

using sqlite::Transaction;

absl::StatusOr<DeliveryOutcome> OutboxSender::DeliverOldest() {
  absl::MutexLock delivering(&deliver_mutex_);
  std::optional<OutboxBatch> batch;
  {
    absl::MutexLock lock(store_mutex_);
    ASSIGN_OR_RETURN(batch, store_->OldestOutbox());
  }
  if (!batch.has_value()) return DeliveryOutcome::kIdle;
  absl::StatusOr<DeliveryReceipt> receipt =
      sink_->Deliver(batch->header, batch->payloads);
  if (receipt.ok()) {
    RETURN_IF_ERROR(Remove(*batch));
    Count(*batch, *receipt);
    Log(LogLevel::kInfo, "batch_delivered", *batch, absl::OkStatus());
    return DeliveryOutcome::kDelivered;
  }
  if (IsPermanentDeliveryError(receipt.status())) {
    RETURN_IF_ERROR(Remove(*batch));
    ShufflerCounters::Add(counters_->batches_dropped, 1);
    Log(LogLevel::kError, "batch_refused_dropped", *batch, receipt.status());
    return DeliveryOutcome::kDropped;
  }
  ShufflerCounters::Add(counters_->delivery_failures, 1);
  Log(LogLevel::kWarning, "batch_delivery_failed", *batch, receipt.status());
  return receipt.status();
}

absl::Status OutboxSender::Remove(const OutboxBatch& batch) {
  absl::MutexLock lock(store_mutex_);
  ASSIGN_OR_RETURN(std::unique_ptr<Transaction> transaction, store_->Begin());
  RETURN_IF_ERROR(store_->DeleteOutbox(batch.ordinal));
  RETURN_IF_ERROR(transaction->Commit());
  ShufflerCounters::Sub(counters_->outbox_batches, 1);
  return absl::OkStatus();
}

void OutboxSender::Count(const OutboxBatch& batch,
                         const DeliveryReceipt& receipt) {
  ShufflerCounters::Add(counters_->batches_delivered, 1);
  ShufflerCounters::Add(counters_->reports_delivered, batch.payloads.size());
  ShufflerCounters::Add(counters_->server_accepted, receipt.accepted);
  ShufflerCounters::Add(counters_->server_not_opened, receipt.not_opened);
  ShufflerCounters::Add(counters_->server_invalid, receipt.invalid);
  ShufflerCounters::Add(counters_->server_duplicates, receipt.duplicates);
}

void OutboxSender::Log(LogLevel level, std::string_view event,
                       const OutboxBatch& batch, const absl::Status& status) {
  if (config_->event_log == nullptr) return;
  const v1::ShuffledBatchHeader& header = batch.header;
  config_->event_log->Write(
      level, event,
      {{"batch", absl::BytesToHexString(header.batch_id())},
       {"study", absl::StrCat(header.study_id())},
       {"round", absl::StrCat(header.round_id())},
       {"task", absl::StrCat(header.shuffled_task_id())},
       {"reports", absl::StrCat(header.num_reports())},
       {"code", absl::StatusCodeToString(status.code())},
       {"error", std::string(status.message())}});
}

}  // namespace ldp::shuffler_internal
