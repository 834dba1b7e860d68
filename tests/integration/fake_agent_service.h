// A scripted ldp.v1.AgentService for black-box tests of the real ldp-agent
// binary (DESIGN invariant 4: the agent must protect itself whatever a
// server says). The test decides, poll by poll and agent by agent, which
// tasks GetTasks hands out; GetBudget may lie about a study's cap; every
// uploaded report is recorded and acknowledged as durable, so what left the
// agent is checked on the wire. Serves any number of agents at once (each
// enrolls under its own enrollment token and gets its own id and bearer
// token, checked on every later call).
#ifndef LDP_TESTS_INTEGRATION_FAKE_AGENT_SERVICE_H_
#define LDP_TESTS_INTEGRATION_FAKE_AGENT_SERVICE_H_

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "grpcpp/grpcpp.h"
#include "proto/ldp/v1/agent_service.grpc.pb.h"

namespace ldp::testing {

class FakeAgentService final : public v1::AgentService::Service {
 public:
  // The tasks of one GetTasks call: `agent_id` is the caller, `poll` the
  // number of its earlier GetTasks calls (0 for the first). Called with no
  // lock held, on a gRPC thread; at most 1000 tasks per call.
  using TaskScript =
      std::function<std::vector<v1::Task>(uint64_t agent_id, int poll)>;

  void SetTaskScript(TaskScript script);
  // What GetBudget claims as every study's per-agent cap (and that nothing
  // was spent); 0 = no ledger entry at all.
  void SetClaimedCap(uint64_t cap_nanos);

  // The id given to the agent that enrolled with `enrollment_token`;
  // nullopt before it enrolled.
  std::optional<uint64_t> AgentIdFor(const std::string& enrollment_token) const;
  // The enrollment token `agent_id` enrolled with; "" for an unknown id.
  std::string EnrollmentTokenOf(uint64_t agent_id) const;
  // GetTasks calls answered for `agent_id` so far.
  int Polls(uint64_t agent_id) const;
  // Every report received, in arrival order (resends included).
  std::vector<v1::Report> Received() const;
  int64_t NumReceived() const;
  // Waits until `done()` holds or `timeout` passes, evaluating it after
  // every call the service answers (and at least every 100 ms); returns
  // whether it held. `done` may call the accessors above.
  bool WaitUntil(const std::function<bool()>& done, absl::Duration timeout);

  grpc::Status Enroll(grpc::ServerContext* context,
                      const v1::EnrollRequest* request,
                      v1::EnrollResponse* response) override;
  grpc::Status GetTasks(grpc::ServerContext* context,
                        const v1::GetTasksRequest* request,
                        v1::GetTasksResponse* response) override;
  grpc::Status UploadReports(
      grpc::ServerContext* context,
      grpc::ServerReader<v1::UploadReportsRequest>* reader,
      v1::UploadReportsResponse* response) override;
  grpc::Status GetBudget(grpc::ServerContext* context,
                         const v1::GetBudgetRequest* request,
                         v1::GetBudgetResponse* response) override;

 private:
  // The agent the call's bearer token names; UNAUTHENTICATED otherwise.
  grpc::Status Authenticate(const grpc::ServerContext& context,
                            uint64_t* agent_id) const;
  void Notify();

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  TaskScript script_;
  uint64_t claimed_cap_ = 0;
  uint64_t generation_ = 0;  // calls answered, for WaitUntil
  uint64_t next_agent_id_ = 1001;
  std::map<std::string, uint64_t> enrolled_;       // enrollment token → id
  std::map<std::string, uint64_t> bearer_tokens_;  // bearer token → id
  std::map<uint64_t, int> polls_;
  std::vector<v1::Report> received_;
};

// The fake on 127.0.0.1 (plaintext), on a free port.
class FakeServer {
 public:
  FakeServer();
  ~FakeServer();
  bool ok() const { return server_ != nullptr && port_ > 0; }
  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
  FakeAgentService& service() { return service_; }

 private:
  FakeAgentService service_;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
};

// A report's payload alone (what the randomizer produced) as bytes: task,
// agent and report ids cleared, so equal payloads compare equal.
std::string PayloadBytes(v1::Report report);

// What the agent's state file (<state_dir>/agent_state) says about spend:
// the `lifetime <nanos>` line and the `spend <unix_seconds> <nanos>` lines.
struct StateFileSpend {
  std::optional<int64_t> lifetime_nanos;
  int64_t window_sum_nanos = 0;  // sum over the spend lines
  int spend_lines = 0;
};
StateFileSpend ParseStateFileSpend(const std::string& text);

}  // namespace ldp::testing

#endif  // LDP_TESTS_INTEGRATION_FAKE_AGENT_SERVICE_H_
