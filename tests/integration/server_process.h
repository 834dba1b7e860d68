// Runs the real ldp-server binary on loopback with a private database, for
// integration tests: start, wait until it listens, SIGKILL, restart on the
// same database. Optional extra server flags (TLS files, limits) and TLS
// client channels serve the transport and abuse tests.
#ifndef LDP_TESTS_INTEGRATION_SERVER_PROCESS_H_
#define LDP_TESTS_INTEGRATION_SERVER_PROCESS_H_

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "client/agent_client/agent_client.h"
#include "grpcpp/channel.h"
#include "proto/ldp/v1/analyst_service.grpc.pb.h"
#include "tests/integration/child_process.h"

namespace ldp::testing {

class ServerProcess {
 public:
  // A fresh directory for the database; the server is not started yet.
  // `extra_flags` go to every start (e.g. "--tls_cert_file=...").
  explicit ServerProcess(std::vector<std::string> extra_flags = {});
  ~ServerProcess();  // SIGKILLs a running server and removes the directory

  // Starts ldp-server and waits (≤ 20 s) until it listens: on a free port
  // the first time, on the same port (and database) after Stop or Kill.
  absl::Status Start();
  // SIGTERM and wait.
  void Stop();
  // SIGKILL and wait: the crash the durability invariant must survive.
  void Kill();
  // Whether the server process still runs (callable from any thread).
  bool Alive() const { return process_.Alive(); }
  // Sends `signal` to the running server without waiting (SIGTERM starts
  // its drain; a second one ends it).
  void SendSignal(int signal);
  // Waits up to `timeout` for the server to exit and returns its wait
  // status (WIFEXITED, WEXITSTATUS); DeadlineExceeded if it still runs.
  absl::StatusOr<int> WaitForExit(std::chrono::milliseconds timeout);

  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
  // A channel with its own connection, with the credentials set by
  // set_channel_tls (plaintext by default; AnalystClient uses it too).
  std::shared_ptr<grpc::Channel> NewChannel() const;
  // A channel with these TLS files instead (e.g. without a client
  // certificate); a file that cannot be read fails the test's assertion
  // through the returned status.
  absl::StatusOr<std::shared_ptr<grpc::Channel>> NewChannel(
      const ClientTlsFiles& tls) const;
  void set_channel_tls(ClientTlsFiles tls) { channel_tls_ = std::move(tls); }
  std::string analyst_token() const;
  const std::string& directory() const { return directory_; }

 private:
  std::string directory_;
  std::vector<std::string> extra_flags_;
  ClientTlsFiles channel_tls_;
  ChildProcess process_;
  int port_ = 0;
};

// Client options for simulated agents of `server` (which must outlive the
// clients): `max_attempts` tries, with the client's own backoff between
// them while the server lives and no pause once it has died, so a crash
// fails a test in seconds. The pause matters: a connection attempt that
// failed once leaves a shared channel refusing calls until gRPC's
// reconnect backoff (about 1 s) ends, and six tries wait at least
// 0.05 + 0.1 + 0.2 + 0.4 + 0.8 s. No send window: no one observes these
// devices' timing.
AgentClientOptions SimulatedAgentOptions(const ServerProcess& server,
                                         int max_attempts);

// Sends analyst calls with the server's analyst token.
class AnalystClient {
 public:
  explicit AnalystClient(const ServerProcess& server);

  absl::StatusOr<v1::Study> CreateStudy(const v1::StudySpec& spec);
  absl::StatusOr<v1::GetEstimatesResponse> GetEstimates(uint64_t study_id);
  absl::StatusOr<v1::Study> GetStudy(uint64_t study_id);
  absl::StatusOr<v1::GetBudgetResponse> GetAgentBudget(uint64_t agent_id);
  absl::StatusOr<v1::Round> StartRound(uint64_t study_id);

 private:
  template <typename Request, typename Response, typename Method>
  absl::StatusOr<Response> Call(Method method, const Request& request);

  std::unique_ptr<v1::AnalystService::Stub> stub_;
  std::string token_;
};

}  // namespace ldp::testing

#endif  // LDP_TESTS_INTEGRATION_SERVER_PROCESS_H_
