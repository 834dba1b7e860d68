// Enrolled agents and their credential hashes, in memory for fast
// authentication of every call.
//
// Agent ids are dense (the server hands them out in order), so the hashes
// live in an array indexed by id, allocated in chunks of 65,536 agents as
// ids grow: 33 bytes per agent (33 MB for a million), no per-entry
// allocation, and lookups take no lock.
#ifndef LDP_SERVER_CORE_AGENT_DIRECTORY_H_
#define LDP_SERVER_CORE_AGENT_DIRECTORY_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>

#include "absl/synchronization/mutex.h"
#include "server/store/store.h"

namespace ldp {

// Thread-safe.
class AgentDirectory {
 public:
  AgentDirectory();
  ~AgentDirectory();
  AgentDirectory(const AgentDirectory&) = delete;
  AgentDirectory& operator=(const AgentDirectory&) = delete;

  // agent_id in [1, kMaxAgentId] (task_id.h); others are ignored. An agent
  // is added once.
  void Add(uint64_t agent_id, const CredentialHash& hash);
  bool Contains(uint64_t agent_id) const;
  // Whether the agent exists and `hash` is its credential's (constant time
  // in the hash).
  bool Verify(uint64_t agent_id, const CredentialHash& hash) const;
  // Agents added (metrics).
  int64_t size() const { return size_.load(std::memory_order_relaxed); }

 private:
  static constexpr int kChunkBits = 16;
  static constexpr size_t kChunkSize = size_t{1} << kChunkBits;
  struct Chunk {
    std::array<CredentialHash, kChunkSize> hashes{};
    // Set (release) after the hash is written; read (acquire) first.
    std::array<std::atomic<bool>, kChunkSize> present{};
  };

  const Chunk* FindChunk(uint64_t agent_id) const;

  // One slot per 2^16 ids up to kMaxAgentId; null until an id needs it.
  std::unique_ptr<std::atomic<Chunk*>[]> chunks_;
  absl::Mutex grow_mutex_;
  std::atomic<int64_t> size_{0};
};

}  // namespace ldp

#endif  // LDP_SERVER_CORE_AGENT_DIRECTORY_H_
