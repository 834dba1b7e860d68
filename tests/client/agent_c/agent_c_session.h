// One agent handle over AppStorage for the C library's contract tests
// (acks, blob, quiet): open, reopen, answer a poll, take the next request.
//
// Why a header: those tests each drive the C ABI the same way and differ
// only in what they feed it; one definition keeps their setup identical.
#ifndef LDP_TESTS_CLIENT_AGENT_C_AGENT_C_SESSION_H_
#define LDP_TESTS_CLIENT_AGENT_C_AGENT_C_SESSION_H_

#include <string>

#include "client/agent_c/ldp_agent.h"
#include "gtest/gtest.h"
#include "tests/client/agent_c/app_storage.h"

namespace ldp::testing {

class AgentCSession {
 public:
  AgentCSession() { EXPECT_EQ(Reopen(), LDP_OK) << status.message; }
  ~AgentCSession() { ldp_agent_close(agent); }
  AgentCSession(const AgentCSession&) = delete;
  AgentCSession& operator=(const AgentCSession&) = delete;

  // Closes the handle and opens another from what `storage` holds; the
  // code ldp_agent_open returned (agent is null unless LDP_OK).
  int Reopen() {
    ldp_agent_close(agent);
    agent = nullptr;
    ldp_agent_options options{};
    options.record_json = R"({"color": "c2"})";
    options.insecure_simulation = 1;  // a test: repeatable coins
    options.simulation_seed = 5;
    const ldp_storage callbacks = storage.callbacks();
    return ldp_agent_open(&options, &callbacks, &agent, &status);
  }

  int Answer(const std::string& poll, int* answered = nullptr,
             int* refused = nullptr) {
    return ldp_agent_answer_poll(agent, AppBytes(poll), poll.size(), answered,
                                 refused, &status);
  }

  // The next request's bytes: ldp_agent_next_upload for `agent_id`, or
  // ldp_agent_next_shuffled_upload when `shuffled`.
  std::string Next(bool shuffled, uint64_t agent_id = 99) {
    ldp_buffer out{};
    const int code =
        shuffled ? ldp_agent_next_shuffled_upload(agent, &out, &status)
                 : ldp_agent_next_upload(agent, agent_id, &out, &status);
    EXPECT_EQ(code, LDP_OK) << status.message;
    std::string bytes(reinterpret_cast<const char*>(out.data), out.size);
    ldp_buffer_free(&out);
    return bytes;
  }

  AppStorage storage;
  ldp_agent* agent = nullptr;
  ldp_status status{};
};

}  // namespace ldp::testing

#endif  // LDP_TESTS_CLIENT_AGENT_C_AGENT_C_SESSION_H_
