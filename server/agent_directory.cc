// In-memory agent credentials; see the header.
#include "server/agent_directory.h"

#include "server/credential.h"

namespace ldp {

void AgentDirectory::Add(uint64_t agent_id, const CredentialHash& hash) {
  Shard& shard = ShardOf(agent_id);
  absl::MutexLock lock(&shard.mutex);
  shard.hashes[agent_id] = hash;
}

bool AgentDirectory::Contains(uint64_t agent_id) const {
  Shard& shard = ShardOf(agent_id);
  absl::MutexLock lock(&shard.mutex);
  return shard.hashes.contains(agent_id);
}

bool AgentDirectory::Verify(uint64_t agent_id,
                            const CredentialHash& hash) const {
  CredentialHash stored;
  {
    Shard& shard = ShardOf(agent_id);
    absl::MutexLock lock(&shard.mutex);
    auto it = shard.hashes.find(agent_id);
    if (it == shard.hashes.end()) return false;
    stored = it->second;
  }
  return SameCredentialHash(stored, hash);
}

}  // namespace ldp
