// One commit lane's BatchStatistics (server/rounds/batch_statistics.h) as
// the work its transactions share (CommitGroupWork).
//
// Why per lane, not per upload job: a group commit holds many agents'
// upload calls, often one report each; summed per transaction it writes
// one delta per round, not one per call beside each report.
#ifndef LDP_SERVER_CORE_LANE_BATCH_H_
#define LDP_SERVER_CORE_LANE_BATCH_H_

#include "absl/status/status.h"
#include "server/commit/commit_queue.h"
#include "server/core/aggregator_context.h"
#include "server/rounds/batch_statistics.h"
#include "server/store/store.h"

namespace ldp {

// Thread-compatible: the lane's writer thread calls everything.
class LaneBatch final : public CommitGroupWork {
 public:
  // `context` outlives this.
  explicit LaneBatch(const AggregatorContext& context) : context_(context) {}

  // The transaction's sum so far: for the jobs' Apply, on the writer
  // thread.
  BatchStatistics& batch() { return batch_; }

  void Begin() override { batch_.Clear(); }
  // Shared stores: the deltas, in the transaction.
  absl::Status End(StoreTransaction& transaction) override;
  // Committed: the rounds take the sum.
  void Finish(const absl::Status& commit_status) override;

 private:
  const AggregatorContext& context_;
  BatchStatistics batch_;
};

}  // namespace ldp

#endif  // LDP_SERVER_CORE_LANE_BATCH_H_
