// The commit lanes; see the header.
#include "server/commit/commit_lanes.h"

#include <utility>

namespace ldp {

CommitLanes::CommitLanes(Store* store, int64_t max_writes_per_commit,
                         const Clock* clock,
                         std::function<void(absl::Duration)> observe_commit,
                         int64_t max_queued_writes)
    : map_(store->shard_map()),
      catalog_(std::make_unique<CommitQueue>(store, max_writes_per_commit,
                                             clock, observe_commit,
                                             max_queued_writes)) {
  if (map_ == nullptr) return;
  for (int k = 0; k < map_->num_shards(); ++k) {
    shards_.push_back(std::make_unique<CommitQueue>(
        store, max_writes_per_commit, clock, observe_commit, max_queued_writes,
        ShardLane{.shard = k, .refuse_after_stall = kShardStall}));
  }
}

CommitLanes::~CommitLanes() { Stop(); }

CommitQueue& CommitLanes::ForShard(int shard) const {
  return shards_.empty() ? *catalog_ : *shards_[shard];
}

int CommitLanes::num_shards() const {
  return shards_.empty() ? 1 : static_cast<int>(shards_.size());
}

int CommitLanes::ShardOfAgent(uint64_t agent_id) const {
  return map_ == nullptr ? 0 : map_->ShardOfAgent(agent_id);
}

void CommitLanes::WaitForShards() {
  for (auto& lane : shards_) lane->WaitForSubmitted();
}

void CommitLanes::Stop() {
  for (auto& lane : shards_) lane->Stop();
  catalog_->Stop();
}

CommitQueueStats CommitLanes::stats() const {
  CommitQueueStats total = catalog_->stats();
  for (const auto& lane : shards_) {
    const CommitQueueStats one = lane->stats();
    total.transactions += one.transactions;
    total.jobs += one.jobs;
  }
  return total;
}

int64_t CommitLanes::queued_writes() const {
  int64_t total = catalog_->queued_writes();
  for (const auto& lane : shards_) total += lane->queued_writes();
  return total;
}

}  // namespace ldp
