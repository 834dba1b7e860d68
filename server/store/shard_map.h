// Which database of a sharded store holds an agent (sharded_store.h).
//
// Why two levels: agent ids map onto a fixed number of logical shards, and
// logical shards onto the databases in contiguous ranges. Splitting a
// database later moves part of its range to a new one; no agent is
// renumbered and no other database's rows move.
//
// Why blocks: ids come in aligned blocks of kAgentBlock, all of one
// logical shard, so that one enrollment call (at most 1,000 agents) is one
// shard's transaction, and a retried enrollment finds its first attempt on
// the shard its placement names.
#ifndef LDP_SERVER_STORE_SHARD_MAP_H_
#define LDP_SERVER_STORE_SHARD_MAP_H_

#include <cstdint>
#include <string_view>

namespace ldp {

class ShardMap {
 public:
  static constexpr int kLogicalShards = 256;
  static constexpr uint64_t kAgentBlock = 1024;

  // `shards` databases, 1 to kLogicalShards.
  explicit ShardMap(int shards) : shards_(shards) {}

  int num_shards() const { return shards_; }

  static int LogicalOfAgent(uint64_t agent_id) {
    return static_cast<int>((agent_id / kAgentBlock) % kLogicalShards);
  }
  // Database `shard` holds logical shards [FirstLogical(shard),
  // FirstLogical(shard + 1)).
  int FirstLogical(int shard) const { return shard * kLogicalShards / shards_; }
  int ShardOfLogical(int logical) const;
  int ShardOfAgent(uint64_t agent_id) const {
    return ShardOfLogical(LogicalOfAgent(agent_id));
  }
  static int LogicalOfPlacement(uint64_t placement) {
    return static_cast<int>(placement % kLogicalShards);
  }
  int ShardOfPlacement(uint64_t placement) const {
    return ShardOfLogical(LogicalOfPlacement(placement));
  }

 private:
  int shards_;
};

// Which database of a sharded store one is: `shard` (0-based) of `shards`.
struct ShardPosition {
  int shard = 0;
  int shards = 1;
};

// A placement key from a digest (an enrollment request's or token's): its
// first eight bytes, big-endian; 0 if shorter.
uint64_t PlacementOfDigest(std::string_view digest);

}  // namespace ldp

#endif  // LDP_SERVER_STORE_SHARD_MAP_H_
