// Agent ids to shards; see the header.
#include "server/store/shard_map.h"

namespace ldp {

int ShardMap::ShardOfLogical(int logical) const {
  // The largest shard whose range starts at or before `logical`: ranges
  // are contiguous and FirstLogical is nondecreasing.
  int shard = static_cast<int>((static_cast<int64_t>(logical) * shards_) /
                               kLogicalShards);
  while (shard + 1 < shards_ && FirstLogical(shard + 1) <= logical) ++shard;
  while (shard > 0 && FirstLogical(shard) > logical) --shard;
  return shard;
}

uint64_t PlacementOfDigest(std::string_view digest) {
  if (digest.size() < sizeof(uint64_t)) return 0;
  uint64_t key = 0;
  for (size_t i = 0; i < sizeof(key); ++i) {
    key = (key << 8) | static_cast<uint8_t>(digest[i]);
  }
  return key;
}

}  // namespace ldp
