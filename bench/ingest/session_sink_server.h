// The server half of session_sink_baseline (bench/reports/INGEST.md): a bare
// SessionSink on gRPC's callback API, as ldp-server's AgentService is. It
// answers each call with a Blob of the real answer's size and does nothing
// else, except that with a GroupCommitWriter it makes each enrollment and
// each session's reports durable before it answers, as ldp-server commits
// an agent's row and its reports.
#ifndef LDP_BENCH_INGEST_SESSION_SINK_SERVER_H_
#define LDP_BENCH_INGEST_SESSION_SINK_SERVER_H_

#include <atomic>
#include <cstdint>
#include <string>

#include "bench/ingest/group_commit_writer.h"
#include "bench/ingest/ingest_sink.grpc.pb.h"

namespace ldp::bench {

// The sizes of the real calls' messages (ldp-loadtest's default study).
struct SessionSizes {
  int credential_bytes = 72;  // EnrollResponse: agent id and bearer token
  int tasks_bytes = 100;      // GetTasksResponse: one task
  int report_bytes = 40;      // UploadReportsRequest: one report
  int token_bytes = 66;       // the bearer token in the header
};

class SessionSinkService final : public SessionSink::CallbackService {
 public:
  // `writer` may be null (count mode); otherwise not owned, and it must
  // outlive every call.
  SessionSinkService(const SessionSizes& sizes, GroupCommitWriter* writer);

  grpc::ServerUnaryReactor* Enroll(grpc::CallbackServerContext* context,
                                   const Blob* request,
                                   Blob* response) override;
  grpc::ServerUnaryReactor* Poll(grpc::CallbackServerContext* context,
                                 const Blob* request, Blob* response) override;
  grpc::ServerReadReactor<Batch>* Upload(grpc::CallbackServerContext* context,
                                         Ack* response) override;

  // Enrollments and reports answered (made durable first, in append mode).
  int64_t enrolled() const { return enrolled_.load(); }
  int64_t stored() const { return stored_.load(); }

 private:
  const std::string credential_;
  const std::string tasks_;
  GroupCommitWriter* const writer_;
  std::atomic<int64_t> enrolled_{0};
  std::atomic<int64_t> stored_{0};
};

// Blob/report bytes of `size`, varied so that nothing on the path can
// shortcut a constant payload.
std::string Filler(int size, int seed);

}  // namespace ldp::bench

#endif  // LDP_BENCH_INGEST_SESSION_SINK_SERVER_H_
