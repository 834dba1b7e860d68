// Runs the real ldp-shuffler binary on loopback with a private data
// directory, for black-box tests: start, wait until it listens, SIGKILL,
// restart on the same database and port.
#ifndef LDP_TESTS_INTEGRATION_SHUFFLER_PROCESS_H_
#define LDP_TESTS_INTEGRATION_SHUFFLER_PROCESS_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "grpcpp/grpcpp.h"
#include "tests/integration/child_process.h"

namespace ldp::testing {

class ShufflerProcess {
 public:
  // `flags` go to every start, after --data_dir, --listen and --port_file
  // (e.g. --server=..., --ticket_key_file=...).
  explicit ShufflerProcess(std::vector<std::string> flags);
  ~ShufflerProcess();  // SIGKILLs a running shuffler, removes the directory
  ShufflerProcess(const ShufflerProcess&) = delete;
  ShufflerProcess& operator=(const ShufflerProcess&) = delete;

  // Starts and waits (≤ 20 s) until it listens: on a free port the first
  // time, on the same one afterwards.
  absl::Status Start();
  void Stop();  // SIGTERM and wait
  void Kill();  // SIGKILL and wait

  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
  const std::string& directory() const { return directory_; }
  std::string Log() const;
  // A plaintext channel of its own to the (loopback) shuffler.
  std::shared_ptr<grpc::Channel> NewChannel() const;

 private:
  std::string directory_;
  std::vector<std::string> flags_;
  ChildProcess process_;
  int port_ = 0;
};

}  // namespace ldp::testing

#endif  // LDP_TESTS_INTEGRATION_SHUFFLER_PROCESS_H_
