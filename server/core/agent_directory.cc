// In-memory agent credentials; see the header.
#include "server/core/agent_directory.h"

#include "common/tasks/task_id.h"
#include "server/core/credential.h"

namespace ldp {
namespace {

constexpr size_t kNumChunks = (kMaxAgentId >> 16) + 1;

bool InRange(uint64_t agent_id) {
  return agent_id >= 1 && agent_id <= kMaxAgentId;
}

}  // namespace

AgentDirectory::AgentDirectory()
    : chunks_(std::make_unique<std::atomic<Chunk*>[]>(kNumChunks)) {
  static_assert(kChunkBits == 16, "kNumChunks assumes 2^16 ids per chunk");
}

AgentDirectory::~AgentDirectory() {
  for (size_t i = 0; i < kNumChunks; ++i) delete chunks_[i].load();
}

const AgentDirectory::Chunk* AgentDirectory::FindChunk(
    uint64_t agent_id) const {
  if (!InRange(agent_id)) return nullptr;
  return chunks_[agent_id >> kChunkBits].load(std::memory_order_acquire);
}

void AgentDirectory::Add(uint64_t agent_id, const CredentialHash& hash) {
  if (!InRange(agent_id)) return;
  std::atomic<Chunk*>& slot = chunks_[agent_id >> kChunkBits];
  Chunk* chunk = slot.load(std::memory_order_acquire);
  if (chunk == nullptr) {
    absl::MutexLock lock(&grow_mutex_);
    chunk = slot.load(std::memory_order_acquire);
    if (chunk == nullptr) {
      chunk = new Chunk();
      slot.store(chunk, std::memory_order_release);
    }
  }
  const size_t index = agent_id & (kChunkSize - 1);
  chunk->hashes[index] = hash;
  if (!chunk->present[index].exchange(true, std::memory_order_acq_rel)) {
    size_.fetch_add(1, std::memory_order_relaxed);
  }
}

bool AgentDirectory::Contains(uint64_t agent_id) const {
  const Chunk* chunk = FindChunk(agent_id);
  return chunk != nullptr && chunk->present[agent_id & (kChunkSize - 1)].load(
                                 std::memory_order_acquire);
}

bool AgentDirectory::Verify(uint64_t agent_id,
                            const CredentialHash& hash) const {
  if (!Contains(agent_id)) return false;
  const Chunk* chunk = FindChunk(agent_id);
  return SameCredentialHash(chunk->hashes[agent_id & (kChunkSize - 1)], hash);
}

}  // namespace ldp
