// Agent ids to shards; see the header.
#include "server/store/shard_map.h"

namespace ldp {

int ShardMap::ShardOfLogical(int logical) const {
  // The largest s with FirstLogical(s) = floor(s·L/P) <= l, i.e. with
  // s·L/P < l + 1: s = floor(((l + 1)·P − 1) / L).
  return static_cast<int>(((static_cast<int64_t>(logical) + 1) * shards_ - 1) /
                          kLogicalShards);
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
