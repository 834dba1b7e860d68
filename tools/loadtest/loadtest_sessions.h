// ldp-loadtest's agents at work: each simulated agent is a real Agent (its
// record from the population, its state in memory) that enrolls, polls,
// answers and uploads, either on its own AgentService calls (sessions:
// --threads blocking workers, each agent a real AgentClient, or with
// --in_flight that many sessions at a time on gRPC's callback API) or
// --batch at a time over relay streams (bulk, --streams workers). The workers
// count what happened and, per question, the truth over exactly the agents
// whose report was acknowledged.
#ifndef LDP_TOOLS_LOADTEST_LOADTEST_SESSIONS_H_
#define LDP_TOOLS_LOADTEST_LOADTEST_SESSIONS_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "client/agent_client/agent_client.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/security/credentials.h"
#include "proto/ldp/v1/agent_service.grpc.pb.h"
#include "proto/ldp/v1/relay_service.grpc.pb.h"
#include "proto/ldp/v1/shuffle_service.grpc.pb.h"
#include "tools/loadtest/loadtest_study.h"
#include "tools/loadtest_core/latency_stats.h"
#include "tools/loadtest_core/loadtest_output.h"
#include "tools/loadtest_core/population_source.h"
#include "tools/loadtest_core/progress_meter.h"

namespace ldp {

// How the agents are driven (ldp-loadtest's --mode, --threads, ...).
struct LoadtestRunOptions {
  bool bulk = false;  // --mode=bulk: relay streams instead of sessions
  int threads = 8;    // sessions: worker threads
  int channels = 2;   // sessions: gRPC channels shared by the workers
  int agent_attempts = AgentClientOptions{}.max_attempts;  // sessions
  // sessions: > 0 drives this many sessions at a time with gRPC's callback
  // API (loadtest_callback_sessions.h) instead of --threads workers.
  int in_flight = 0;
  int streams = 4;   // bulk: relay streams, one worker each
  int batch = 1000;  // bulk: agents per call and reports per message
  double rate = 0;   // agents started per second at most; 0 = no limit
  // The replicas' addresses; channels take them in turn.
  std::vector<std::string> servers{};
  // --shuffler: a shuffled study's sealed reports go there (sessions: each
  // AgentClient's shuffler; bulk: Submit calls of up to --batch reports).
  // Empty for a local study.
  std::string shuffler{};
};

// What the workers add up; merged under a mutex at the end of each worker.
struct Totals {
  explicit Totals(uint32_t domain)
      : histogram_truth(domain), mean_truth(domain), workload_truth(domain) {}
  int64_t sessions = 0, enroll_failures = 0, poll_failures = 0, tasks = 0;
  int64_t refusals = 0, accepted = 0, rejected = 0, upload_failures = 0;
  PopulationTruth histogram_truth, mean_truth, workload_truth;
  std::string first_error;
  // "enroll UNAVAILABLE", "ack INVALID_ARGUMENT", ... → count.
  std::map<std::string, int64_t> errors;

  // A failed call or a rejected report: `where` is enroll, poll, answer,
  // upload or ack.
  void Error(absl::string_view where, const absl::Status& status) {
    if (first_error.empty())
      first_error = absl::StrCat(where, ": ", status.ToString());
    ++errors[absl::StrCat(where, " ", absl::StatusCodeToString(status.code()))];
  }
  void Merge(const Totals& o) {
    sessions += o.sessions;
    enroll_failures += o.enroll_failures;
    poll_failures += o.poll_failures;
    tasks += o.tasks;
    refusals += o.refusals;
    accepted += o.accepted;
    rejected += o.rejected;
    upload_failures += o.upload_failures;
    histogram_truth.Merge(o.histogram_truth);
    mean_truth.Merge(o.mean_truth);
    workload_truth.Merge(o.workload_truth);
    if (first_error.empty()) first_error = o.first_error;
    for (const auto& [what, count] : o.errors) errors[what] += count;
  }
};

// Everything the workers share. The counters in `totals` are merged in
// under `mutex` when a worker ends; the rest is thread-safe or read-only.
struct Shared {
  const LoadtestConfig& config;
  const LoadtestRunOptions& run;
  const PopulationSource& population;
  uint64_t study_id = 0;
  Totals totals;
  std::vector<std::shared_ptr<v1::AgentService::StubInterface>> stubs{};
  std::vector<std::shared_ptr<v1::RelayService::StubInterface>> relay_stubs{};
  // The same channels for raw calls (the task poll's bytes).
  std::vector<std::shared_ptr<grpc::GenericStub>> generic_stubs{};
  // With run.shuffler: one per agent channel, each its own connection.
  std::vector<std::shared_ptr<v1::ShufflerService::StubInterface>>
      shuffler_stubs{};
  std::atomic<int64_t> next_agent{0};
  // With run.rate, agent i starts no earlier than start + i / rate.
  absl::Time start = absl::Now();
  LatencyStats ack_latency{};
  std::mutex mutex{};
  ProgressMeter* progress = nullptr;
  ThroughputTimeline* timeline = nullptr;
};

// Opens the agents' channels: --channels (bulk: one per stream), each
// with its own connection, taking the servers in turn; with run.shuffler as
// many to the shuffler, over `shuffler_credentials`.
void MakeStubs(
    const std::shared_ptr<grpc::ChannelCredentials>& credentials,
    const std::shared_ptr<grpc::ChannelCredentials>& shuffler_credentials,
    Shared& shared);

// Runs every session (or every bulk batch); returns the wall time they took.
absl::Duration RunSessions(Shared& shared);

}  // namespace ldp

#endif  // LDP_TOOLS_LOADTEST_LOADTEST_SESSIONS_H_
