// Enrolled agents and their credential hashes, in memory for fast
// authentication of every call.
//
// Sharded by agent id so concurrent authentications do not contend on one
// lock. About 50 bytes per agent: 50 MB for a million agents.
#ifndef LDP_SERVER_AGENT_DIRECTORY_H_
#define LDP_SERVER_AGENT_DIRECTORY_H_

#include <array>
#include <cstdint>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "server/store.h"

namespace ldp {

// Thread-safe.
class AgentDirectory {
 public:
  void Add(uint64_t agent_id, const CredentialHash& hash);
  bool Contains(uint64_t agent_id) const;
  // Whether the agent exists and `hash` is its credential's (constant time
  // in the hash).
  bool Verify(uint64_t agent_id, const CredentialHash& hash) const;

 private:
  static constexpr int kShards = 32;
  struct Shard {
    mutable absl::Mutex mutex;
    absl::flat_hash_map<uint64_t, CredentialHash> hashes ABSL_GUARDED_BY(mutex);
  };
  Shard& ShardOf(uint64_t agent_id) const {
    return shards_[agent_id % kShards];
  }
  mutable std::array<Shard, kShards> shards_;
};

}  // namespace ldp

#endif  // LDP_SERVER_AGENT_DIRECTORY_H_
