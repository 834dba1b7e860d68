// Per-database round statistics; see the header.
#include "server/core/round_folder.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/tasks/task_id.h"
#include "server/rounds/round_states.h"
#include "server/store/storage_codec.h"

namespace ldp {
namespace {

absl::Status Unfit(const ReportRow& row, const absl::Status& why) {
  return absl::DataLossError(
      absl::StrCat("stored report for task ", row.task_id,
                   " does not fit its round: ", why.message()));
}

}  // namespace

absl::StatusOr<bool> RoundFolder::Settle(RoundRuntime& round) const {
  const uint64_t id = round.round_id();
  ASSIGN_OR_RETURN(std::vector<std::optional<std::string>> stored,
                   store_.LoadRoundStatistics(id));
  bool saved = false;
  for (int k = 0; k < static_cast<int>(stored.size()); ++k) {
    if (stored[k].has_value()) continue;
    absl::StatusOr<std::string> folded = Fold(k, round);
    if (absl::IsFailedPrecondition(folded.status())) return false;
    if (!folded.ok()) return folded.status();
    RETURN_IF_ERROR(store_.SaveRoundStatistics(k, id, *folded));
    saved = true;
  }
  // What stands is the first server's: read it back.
  if (saved) {
    ASSIGN_OR_RETURN(stored, store_.LoadRoundStatistics(id));
  }
  ASSIGN_OR_RETURN(std::vector<TaskAccumulator> merged, Merge(round, stored));
  round.AdoptStatistics(std::move(merged));
  return true;
}

absl::StatusOr<std::string> RoundFolder::Fold(int database,
                                              const RoundRuntime& round) const {
  std::vector<TaskAccumulator> accumulators = EmptyAccumulators(round);
  RETURN_IF_ERROR(store_.ForEachClosedRoundReport(
      database, round.round_id(), [&](const ReportRow& row) -> absl::Status {
        const TaskKey key = UnpackTaskId(row.task_id);
        if (key.round_id != round.round_id() ||
            key.question >= accumulators.size()) {
          return Unfit(row, absl::NotFoundError("no such question"));
        }
        absl::StatusOr<ReportPayload> payload = DecodePayload(row.payload);
        if (!payload.ok()) return Unfit(row, payload.status());
        absl::Status added = accumulators[key.question].Add(*payload);
        return added.ok() ? added : Unfit(row, added);
      }));
  return EncodeAccumulators(accumulators);
}

absl::StatusOr<std::vector<TaskAccumulator>> RoundFolder::Merge(
    const RoundRuntime& round,
    const std::vector<std::optional<std::string>>& stored) {
  std::vector<TaskAccumulator> merged = EmptyAccumulators(round);
  for (size_t k = 0; k < stored.size(); ++k) {
    const auto damaged = [&](const absl::Status& why) {
      return absl::DataLossError(absl::StrCat("round ", round.round_id(),
                                              "'s statistics on database ",
                                              k + 1, ": ", why.message()));
    };
    if (!stored[k].has_value()) {
      return damaged(absl::NotFoundError("missing after they were stored"));
    }
    absl::Status status = MergeEncoded(*stored[k], merged).status();
    if (!status.ok()) return damaged(status);
  }
  return merged;
}

}  // namespace ldp
