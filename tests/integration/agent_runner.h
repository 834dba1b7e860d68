// Runs many real agent sessions (client library over gRPC) against a
// ServerProcess, a fixed number at a time, for integration tests.
#ifndef LDP_TESTS_INTEGRATION_AGENT_RUNNER_H_
#define LDP_TESTS_INTEGRATION_AGENT_RUNNER_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "client/agent_client/agent_client.h"
#include "client/core/agent.h"
#include "client/core/agent_state_store.h"
#include "common/queries/record_schema.h"
#include "gtest/gtest.h"
#include "tests/integration/server_process.h"

namespace ldp::testing {

struct AgentOutcome {
  uint64_t agent_id = 0;
  int accepted = 0;  // reports the server acknowledged as durable
  int refused = 0;   // tasks the agent refused
  // Why the session fell short, if it did: the first failed step's status
  // (enroll, poll, upload, or a final rejection), for a test to print.
  absl::Status error;
};

// Enrolls one agent per record and runs one poll-answer-upload cycle each,
// on `threads` threads. Seeds are per agent, so runs are reproducible.
inline std::vector<AgentOutcome> RunAgents(
    const ServerProcess& server, const std::vector<Record>& records,
    int threads = 4, int64_t agent_cap_nanos = 1'000'000'000'000) {
  std::vector<AgentOutcome> outcomes(records.size());
  std::atomic<size_t> next{0};
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&] {
      auto channel = server.NewChannel();
      for (size_t i = next++; i < records.size(); i = next++) {
        std::mt19937_64 gen(1000 + i);
        // Simulated devices that live for one study: the caps are its cap.
        auto agent =
            Agent::Create({.record = records[i],
                           .max_epsilon_per_study_nanos = agent_cap_nanos,
                           .caps = {.lifetime_nanos = agent_cap_nanos,
                                    .period_nanos = agent_cap_nanos}},
                          std::make_unique<MemoryAgentStateStore>(), gen);
        auto client = AgentClient::CreateForChannel(
            SimulatedAgentOptions(server, /*max_attempts=*/6), channel, gen);
        if (!agent.ok() || !client.ok()) {
          outcomes[i].error = !agent.ok() ? agent.status() : client.status();
          continue;
        }
        auto credential = (*client)->Enroll("");
        if (!credential.ok()) {
          outcomes[i].error = credential.status();
          continue;
        }
        const CycleResult result = (*client)->RunOnce(**agent);
        outcomes[i] = {.agent_id = credential->agent_id,
                       .accepted = result.reports_accepted,
                       .refused = static_cast<int>(result.refusals.size()),
                       .error = absl::OkStatus()};
        for (const absl::Status& step :
             {result.poll_status, result.upload_status}) {
          if (outcomes[i].error.ok()) outcomes[i].error = step;
        }
        if (outcomes[i].error.ok() && !result.rejections.empty()) {
          outcomes[i].error = result.rejections.front();
        }
      }
    });
  }
  for (auto& w : workers) w.join();
  return outcomes;
}

}  // namespace ldp::testing

#endif  // LDP_TESTS_INTEGRATION_AGENT_RUNNER_H_
