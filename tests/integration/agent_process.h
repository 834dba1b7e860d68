// The real ldp-agent binary as a child process, for black-box tests: its
// own record file, state directory and log, started with the test's flags
// against a server address, then waited for or stopped.
//
// The state directory lives on /dev/shm when it is writable (a tmpfs:
// the agent fsyncs its state before every report leaves, and on this
// project's build machines a disk fsync costs ~10 ms, which would make the
// tests measure the disk instead of the agent), otherwise under /tmp.
#ifndef LDP_TESTS_INTEGRATION_AGENT_PROCESS_H_
#define LDP_TESTS_INTEGRATION_AGENT_PROCESS_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "tests/integration/child_process.h"

namespace ldp::testing {

class AgentProcess {
 public:
  // A fresh directory holding record.json, agent.log and state/ (the
  // --state_dir); nothing is started yet.
  AgentProcess();
  // SIGKILLs a running agent and removes the directory.
  ~AgentProcess();
  AgentProcess(const AgentProcess&) = delete;
  AgentProcess& operator=(const AgentProcess&) = delete;

  // Writes `record_json` and starts
  //   ldp-agent --server=<server> --record=... --state_dir=...
  //             --enrollment_token=<enrollment_token> <flags...>
  // with stdout and stderr appended to agent.log.
  absl::Status Start(const std::string& server,
                     const std::string& enrollment_token,
                     const std::string& record_json,
                     const std::vector<std::string>& flags);

  // Whether the child is still running (reaps it if it exited).
  bool Running();
  // Waits up to `timeout` for the child to exit: its exit status (128 + n
  // for signal n), or nullopt if it is still running.
  std::optional<int> Wait(absl::Duration timeout);
  // SIGTERM (the agent finishes its cycle and exits), then wait up to
  // `timeout`, then SIGKILL: the exit status as for Wait.
  int Stop(absl::Duration timeout = absl::Seconds(30));

  // The exit status once the child exited (after Running/Wait/Stop).
  std::optional<int> exit_status() const;
  const std::string& state_dir() const { return state_dir_; }
  std::string state_file() const { return state_dir_ + "/agent_state"; }
  // The state file's text ("" if absent) and size in bytes (0 if absent).
  std::string ReadStateFile() const;
  int64_t StateFileBytes() const;
  // What the agent logged so far.
  std::string Log() const;

 private:
  std::string directory_;
  std::string state_dir_;
  ChildProcess process_;
};

}  // namespace ldp::testing

#endif  // LDP_TESTS_INTEGRATION_AGENT_PROCESS_H_
