// A closed round's estimates from per-database sufficient statistics
// (shared stores): each database's reports of the round folded once into
// one accumulator state per question and stored there
// (Store::SaveRoundStatistics), then merged in database order.
//
// Why: with several databases (shards) and several servers, answering a
// round from its report rows makes every server read every report. Once a
// round is closed its reports are final on each database, so one pass over
// them, by whichever server gets there first, leaves a few rows that every
// server merges instead. Integer counts merge exactly, so a sharded run and
// a one-database run over the same reports answer alike, bit for bit.
// Open rounds answer from the deltas each server follows
// (batch_statistics.h).
#ifndef LDP_SERVER_CORE_ROUND_FOLDER_H_
#define LDP_SERVER_CORE_ROUND_FOLDER_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/task_estimation/task_accumulator.h"
#include "server/rounds/round_runtime.h"
#include "server/store/store.h"

namespace ldp {

// Thread-compatible; Settle may run beside ingestion into the same round.
class RoundFolder {
 public:
  // `store` outlives this.
  explicit RoundFolder(Store& store) : store_(store) {}

  // Makes a round that is closed in the store answer from its statistics,
  // folding and storing those of each database that has none yet. False,
  // with nothing changed, while the round is still open in some database.
  // DataLoss for stored reports or statistics that do not fit the round's
  // plan; the store's error when a database cannot be reached.
  absl::StatusOr<bool> Settle(RoundRuntime& round) const;

 private:
  // Database `database`'s reports of the round as stored statistics.
  absl::StatusOr<std::string> Fold(int database,
                                   const RoundRuntime& round) const;
  // Every database's statistics merged, one accumulator per question.
  static absl::StatusOr<std::vector<TaskAccumulator>> Merge(
      const RoundRuntime& round,
      const std::vector<std::optional<std::string>>& stored);

  Store& store_;
};

}  // namespace ldp

#endif  // LDP_SERVER_CORE_ROUND_FOLDER_H_
