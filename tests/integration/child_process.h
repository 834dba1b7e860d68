// A real program (ldp-server, ldp-shuffler, ldp-agent) run as a child
// process for the black-box tests: spawned with its output appended to a
// log file, waited for until it listens, signalled, and reaped.
//
// Why shared: every harness starts its binary the same way, and the subtle
// parts (spawning from a threaded test, reaping a child exactly once,
// telling a listener that started from one that died first) are written
// once.
#ifndef LDP_TESTS_INTEGRATION_CHILD_PROCESS_H_
#define LDP_TESTS_INTEGRATION_CHILD_PROCESS_H_

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace ldp::testing {

// The file's bytes; "" if it cannot be read (not written yet, say).
std::string ReadFileOrEmpty(const std::string& path);

class ChildProcess {
 public:
  ChildProcess() = default;
  ~ChildProcess() { Kill(); }
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // Starts args[0] with `args`, stdin from /dev/null, stdout and stderr
  // appended to `log`. FailedPrecondition while an earlier child runs.
  absl::Status Spawn(std::vector<std::string> args, const std::string& log);

  // Waits (≤ 20 s) until the child has written a port number into
  // `port_file`, and returns it. Internal, with the log, if the child
  // exits first.
  absl::StatusOr<int> WaitForPort(const std::string& port_file);

  // Whether a child was spawned and not yet reaped (it may have exited).
  bool HasChild() const { return pid_ > 0; }
  // Whether the child still runs; reaps it if it exited.
  bool Running();
  // Whether the child still runs, leaving an exited one to be reaped (for
  // callers that may only look, from any thread).
  bool Alive() const;
  // Waits up to `timeout` for the child to exit: its wait status (as
  // waitpid reports it), or nullopt if it still runs or never started.
  std::optional<int> Wait(absl::Duration timeout);
  // The reaped child's wait status.
  std::optional<int> wait_status() const { return wait_status_; }

  // Sends `signal` without waiting.
  void Signal(int signal);
  void Stop();  // SIGTERM, then reap however long it takes
  void Kill();  // SIGKILL and reap

 private:
  void Reap(int options);
  // Prints the log of a child found failed (a signal or a nonzero exit
  // code) when the harness came to kill it.
  void ReportUnexpectedExit() const;

  std::string name_;  // the program's file name, for errors
  std::string log_;
  pid_t pid_ = -1;
  std::optional<int> wait_status_;
};

}  // namespace ldp::testing

#endif  // LDP_TESTS_INTEGRATION_CHILD_PROCESS_H_
