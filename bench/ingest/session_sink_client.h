// The client half of session_sink_baseline (bench/reports/INGEST.md): sessions
// on gRPC's callback API, `in_flight` at a time, as ldp-loadtest
// --mode=sessions --in_flight runs them. Each session makes the three calls
// an agent makes, in order, each with a deadline: Enroll; Poll and then one
// Upload stream (one report, sent with the stream's end), both with the
// bearer-token header. A session that ends starts the next one from its
// last callback, so no thread waits on a call.
#ifndef LDP_BENCH_INGEST_SESSION_SINK_CLIENT_H_
#define LDP_BENCH_INGEST_SESSION_SINK_CLIENT_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "bench/ingest/session_sink_server.h"
#include "grpcpp/channel.h"

namespace ldp::bench {

struct SessionRun {
  int64_t sessions = 0;
  int in_flight = 0;
  SessionSizes sizes;
};

// Runs `run.sessions` sessions over `channels` (round-robin) and returns
// once every one has ended: OK if every call succeeded with answers of the
// expected sizes and every upload was acked for its one report, else the
// first failure and how many sessions failed.
absl::Status RunSessions(
    const std::vector<std::shared_ptr<grpc::Channel>>& channels,
    const SessionRun& run);

}  // namespace ldp::bench

#endif  // LDP_BENCH_INGEST_SESSION_SINK_CLIENT_H_
