// A commit lane's shared sum; see the header.
#include "server/core/lane_batch.h"

#include <string>
#include <vector>

#include "common/base/status_macros.h"

namespace ldp {

absl::Status LaneBatch::End(StoreTransaction& transaction) {
  if (!context_.shared_store()) return absl::OkStatus();
  ASSIGN_OR_RETURN(const std::vector<DeltaRow> deltas, batch_.Deltas());
  for (const DeltaRow& delta : deltas) {
    RETURN_IF_ERROR(transaction.AppendDelta(delta));
  }
  return absl::OkStatus();
}

void LaneBatch::Finish(const absl::Status& commit_status) {
  if (commit_status.ok()) {
    if (absl::Status merged = batch_.MergeIntoRounds(); !merged.ok()) {
      context_.Log(LogLevel::kError, "batch_not_counted",
                   {{"error", std::string(merged.message())}});
    }
  }
  batch_.Clear();
}

}  // namespace ldp
