// The server's group-commit queues (commit_queue.h): one, or on a sharded
// store one per shard plus one for the catalog.
//
// Why lanes: a queue commits one group at a time, and a group's
// transaction retries for as long as its database is unreachable. With
// one queue for every shard, a single shard's outage would hold every
// agent's report behind it. So each shard's enrollments and reports go
// through that shard's lane (Store::TransactShard), and studies and rounds
// through the catalog's (Store::Transact), each with its own writer
// thread. A lane whose database stops answering refuses new work at
// once (UNAVAILABLE) while what it holds waits for the database, so that
// agents of a down shard retry and nothing they were told is stored is
// lost.
#ifndef LDP_SERVER_COMMIT_COMMIT_LANES_H_
#define LDP_SERVER_COMMIT_COMMIT_LANES_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "absl/time/time.h"
#include "common/base/clock.h"
#include "server/commit/commit_queue.h"
#include "server/store/store.h"

namespace ldp {

class CommitLanes {
 public:
  // A shard's lane whose commit has run this long refuses new work with
  // UNAVAILABLE (ShardLane): its database is down or failing over, and
  // its agents retry rather than wait. Long past any healthy commit, even
  // of a full group under a sanitizer; short beside a client's deadline.
  static constexpr absl::Duration kShardStall = absl::Seconds(5);

  // As CommitQueue's, for each lane; max_queued_writes bounds each lane.
  CommitLanes(Store* store, int64_t max_writes_per_commit, const Clock* clock,
              std::function<void(absl::Duration)> observe_commit,
              int64_t max_queued_writes);
  // Stop()s.
  ~CommitLanes();
  CommitLanes(const CommitLanes&) = delete;
  CommitLanes& operator=(const CommitLanes&) = delete;

  // Studies, rounds, shuffled batches; every write when the store is not
  // sharded.
  CommitQueue& catalog() const { return *catalog_; }
  // The lane of shard `shard` (the catalog's when not sharded).
  CommitQueue& ForShard(int shard) const;
  // Shard lanes (1 when not sharded: the catalog's).
  int num_shards() const;
  int ShardOfAgent(uint64_t agent_id) const;
  // Blocks until every job submitted to the shards' lanes so far has
  // finished; nothing when the store is not sharded. From any thread but
  // a shard lane's writer.
  void WaitForShards();

  // Stops the shards' lanes, then the catalog's (the shards' jobs may
  // queue closes there as they finish). Idempotent.
  void Stop();

  // Summed over the lanes.
  CommitQueueStats stats() const;
  int64_t queued_writes() const;

 private:
  const ShardMap* const map_;
  std::unique_ptr<CommitQueue> catalog_;
  std::vector<std::unique_ptr<CommitQueue>> shards_;
};

}  // namespace ldp

#endif  // LDP_SERVER_COMMIT_COMMIT_LANES_H_
