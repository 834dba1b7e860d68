// Simulated devices for integration tests: each a real Agent (own record,
// own budget) behind the client library, kept across poll cycles so that an
// interactive study's later rounds, or a restarted server, meet the same
// agents with the same credentials.
#ifndef LDP_TESTS_INTEGRATION_DEVICES_H_
#define LDP_TESTS_INTEGRATION_DEVICES_H_

#include <atomic>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "client/agent_client/agent_client.h"
#include "client/core/agent.h"
#include "tests/integration/server_process.h"

namespace ldp::testing {

struct Device {
  std::unique_ptr<std::mt19937_64> gen;
  std::unique_ptr<Agent> agent;
  AgentCredential credential;  // agent_id 0 until enrolled
  // Drawn before the first Enroll and sent on every try until one answers,
  // as ldp-agent does: a try whose reply was lost (a killed server) is
  // answered again with the same agent, never a second one.
  std::string enroll_request{};
  int accepted = 0;  // reports the server acknowledged
};

// Enrolls `d` on `client` unless it is enrolled; false if this try failed.
inline bool EnsureEnrolled(Device& d, AgentClient& client) {
  if (d.credential.agent_id != 0) {
    client.set_credential(d.credential);
    return true;
  }
  if (d.enroll_request.empty()) {
    absl::StatusOr<std::string> id = NewEnrollmentRequestId();
    if (!id.ok()) return false;
    d.enroll_request = *std::move(id);
  }
  absl::StatusOr<AgentCredential> credential =
      client.Enroll("", d.enroll_request);
  if (!credential.ok()) return false;
  d.credential = *std::move(credential);
  return true;
}

// One poll-answer-upload cycle for each device in [begin, end), on a fresh
// channel; a device enrolls on its first cycle. `acked` (if set) counts
// acknowledged reports as they come.
inline void RunDevices(const ServerProcess& server,
                       std::vector<Device>& devices, size_t begin, size_t end,
                       std::atomic<int>* acked = nullptr,
                       int max_attempts = 1) {
  auto channel = server.NewChannel();
  for (size_t i = begin; i < end; ++i) {
    Device& d = devices[i];
    AgentClientOptions options = SimulatedAgentOptions(server, max_attempts);
    options.rpc_timeout = absl::Seconds(5);
    auto client = AgentClient::CreateForChannel(options, channel, *d.gen);
    if (!client.ok() || !EnsureEnrolled(d, **client)) continue;
    const int accepted = (*client)->RunOnce(*d.agent).reports_accepted;
    d.accepted += accepted;
    if (acked != nullptr) *acked += accepted;
  }
}

// One cycle for every device, split over `threads` threads.
inline void RunAllDevices(const ServerProcess& server,
                          std::vector<Device>& devices, int threads = 4,
                          int max_attempts = 6) {
  std::vector<std::thread> workers;
  const size_t n = devices.size();
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      RunDevices(server, devices, t * n / threads, (t + 1) * n / threads,
                 nullptr, max_attempts);
    });
  }
  for (auto& w : workers) w.join();
}

}  // namespace ldp::testing

#endif  // LDP_TESTS_INTEGRATION_DEVICES_H_
