// The sufficient statistics of the reports one transaction stored, one
// accumulator per question of each round they belong to.
//
// Why: a server counts its own reports once they are durable, and on a
// shared store every other server must count them too. Reading each
// report's payload back from the database would make every server decode
// every report; instead the transaction that stores a batch also stores
// what the batch sums to, one row per round (a delta, Store::AppendDelta),
// with the ids of the tasks it counts, and the others merge that row and
// mark those tasks (StoreFollower), never reading the reports themselves. The
// writer merges its own accumulators after the commit; a delta id makes whoever
// comes first count the batch, and the other skip it
// (RoundRuntime::MergeDelta). Sums are exact, so merging deltas in any order
// answers as counting the reports one by one does, bit for bit.
#ifndef LDP_SERVER_ROUNDS_BATCH_STATISTICS_H_
#define LDP_SERVER_ROUNDS_BATCH_STATISTICS_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/task_estimation/task_accumulator.h"
#include "server/rounds/round_runtime.h"
#include "server/store/store.h"

namespace ldp {

// Thread-compatible: one transaction's, on its writer thread.
class BatchStatistics {
 public:
  // Forgets everything added (a transaction that runs its body again).
  void Clear() { parts_.clear(); }
  // Counts a report the transaction stored for question q of `round`, from
  // `agent_id`.
  absl::Status Add(const std::shared_ptr<RoundRuntime>& round, int q,
                   uint64_t agent_id, const ReportPayload& payload);
  // One delta per round with a report, each under a fresh random id
  // (below 2^63) and naming its reports' tasks; an error if the system's
  // generator fails.
  absl::StatusOr<std::vector<DeltaRow>> Deltas();
  // After the commit: each round takes its part, under the id Deltas gave
  // it (a part never given one, with a store that keeps no deltas, is
  // merged without).
  absl::Status MergeIntoRounds();

 private:
  struct Part {
    std::shared_ptr<RoundRuntime> round;
    uint64_t agent_id = 0;
    uint64_t delta_id = 0;
    std::vector<TaskAccumulator> questions;
    std::vector<uint64_t> task_ids;  // as added; sorted for the delta
  };
  Part& PartOf(const std::shared_ptr<RoundRuntime>& round, uint64_t agent_id);

  std::vector<Part> parts_;
};

}  // namespace ldp

#endif  // LDP_SERVER_ROUNDS_BATCH_STATISTICS_H_
