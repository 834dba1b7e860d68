// Where an agent keeps its AgentState: a directory on a device (ldp-agent)
// or memory (ldp-loadtest's simulated agents, tests).
//
// The agent calls Save() and waits for it before a report may leave
// (DESIGN invariant 4: the budget is charged durably first), so a crash
// right after sending can only over-count spending, never under-count it.
#ifndef LDP_CLIENT_CORE_AGENT_STATE_STORE_H_
#define LDP_CLIENT_CORE_AGENT_STATE_STORE_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "client/core/agent_state.h"

namespace ldp {

class AgentStateStore {
 public:
  virtual ~AgentStateStore() = default;
  // The saved state, or an empty one if nothing was ever saved. DataLoss
  // if what is stored is damaged.
  virtual absl::StatusOr<AgentState> Load() = 0;
  // Replaces the saved state; returns only once it is durable.
  virtual absl::Status Save(const AgentState& state) = 0;
};

// Keeps the state in memory (the serialized text, so Load() exercises the
// same parser as the file store). Not durable: for tests and simulations
// that restart an agent from its saved state.
class MemoryAgentStateStore : public AgentStateStore {
 public:
  absl::StatusOr<AgentState> Load() override;
  absl::Status Save(const AgentState& state) override;

 private:
  std::string text_;
};

// Keeps the AgentState itself, never its text: for simulated agents
// (ldp-loadtest) that live for one session, where serializing the state on
// every Save was a tenth of the load test's CPU. The agent's size cap does
// not depend on the store (it measures the text itself).
class SimulatedAgentStateStore : public AgentStateStore {
 public:
  absl::StatusOr<AgentState> Load() override { return state_; }
  absl::Status Save(const AgentState& state) override {
    state_ = state;
    return absl::OkStatus();
  }

 private:
  AgentState state_;
};

struct FileAgentStateStoreOptions {
  // An existing directory the agent owns; the state lives in
  // <directory>/agent_state.
  std::string directory;
};

// A state file written atomically (atomic_file.h). Holds an exclusive lock
// on <directory>/lock for its lifetime so two agent processes can never
// spend the same budget twice.
class FileAgentStateStore : public AgentStateStore {
 public:
  // FailedPrecondition if another process holds the lock; NotFound if the
  // directory does not exist.
  static absl::StatusOr<std::unique_ptr<FileAgentStateStore>> Create(
      const FileAgentStateStoreOptions& options);
  ~FileAgentStateStore() override;

  absl::StatusOr<AgentState> Load() override;
  absl::Status Save(const AgentState& state) override;

  const std::string& path() const { return path_; }

 private:
  FileAgentStateStore(std::string path, int lock_fd)
      : path_(std::move(path)), lock_fd_(lock_fd) {}

  std::string path_;
  int lock_fd_;
};

}  // namespace ldp

#endif  // LDP_CLIENT_CORE_AGENT_STATE_STORE_H_
