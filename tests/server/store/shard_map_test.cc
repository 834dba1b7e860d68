// ShardMap: every agent id on exactly one shard, ranges contiguous and
// even, an aligned block of ids on one shard, placements spread.
#include "server/store/shard_map.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace ldp {
namespace {

TEST(ShardMapTest, LogicalShardsFormContiguousEvenRanges) {
  for (int shards : {1, 2, 3, 7, 256}) {
    const ShardMap map(shards);
    std::vector<int> sizes(shards, 0);
    int previous = 0;
    for (int l = 0; l < ShardMap::kLogicalShards; ++l) {
      const int shard = map.ShardOfLogical(l);
      ASSERT_GE(shard, previous) << shards << " shards, logical " << l;
      ASSERT_LE(shard, previous + 1) << shards << " shards, logical " << l;
      ASSERT_GE(l, map.FirstLogical(shard));
      if (shard + 1 < shards) ASSERT_LT(l, map.FirstLogical(shard + 1));
      previous = shard;
      ++sizes[shard];
    }
    EXPECT_EQ(previous, shards - 1);
    for (int size : sizes) {
      EXPECT_GE(size, ShardMap::kLogicalShards / shards);
      EXPECT_LE(size, ShardMap::kLogicalShards / shards + 1);
    }
  }
}

TEST(ShardMapTest, AnAlignedBlockOfIdsIsOnOneShard) {
  const ShardMap map(3);
  for (uint64_t block : {1u, 255u, 256u, 100'000u}) {
    const uint64_t first = block * ShardMap::kAgentBlock;
    const int shard = map.ShardOfAgent(first);
    EXPECT_EQ(map.ShardOfAgent(first + ShardMap::kAgentBlock - 1), shard);
    EXPECT_EQ(ShardMap::LogicalOfAgent(first),
              static_cast<int>(block % ShardMap::kLogicalShards));
  }
  // The next block is the next logical shard.
  EXPECT_EQ(ShardMap::LogicalOfAgent(ShardMap::kAgentBlock * 5),
            ShardMap::LogicalOfAgent(ShardMap::kAgentBlock * 4) + 1);
}

TEST(ShardMapTest, OneShardHoldsEverything) {
  const ShardMap map(1);
  for (uint64_t id : {1ull, 1025ull, 4'294'967'295ull}) {
    EXPECT_EQ(map.ShardOfAgent(id), 0);
  }
}

TEST(ShardMapTest, PlacementReadsTheDigestsFirstEightBytes) {
  const std::string digest = {'\x01', '\x02', '\x03', '\x04', '\x05',
                              '\x06', '\x07', '\x08', '\xff'};
  EXPECT_EQ(PlacementOfDigest(digest), 0x0102030405060708u);
  EXPECT_EQ(PlacementOfDigest("short"), 0u);
  const ShardMap map(2);
  EXPECT_EQ(map.ShardOfPlacement(0x80), 1);  // logical 128 of 256
  EXPECT_EQ(map.ShardOfPlacement(0x7f), 0);
  EXPECT_EQ(map.ShardOfPlacement(0x100), 0);  // logical 0 again
}

}  // namespace
}  // namespace ldp
