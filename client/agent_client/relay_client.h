// The relay side of proto/ldp/v1/relay_service.proto: many agents' calls in
// one message (ldp-loadtest --mode=bulk; an ingestion gateway would look
// the same). A thin adapter like agent_client.h: it moves the Agent's
// reports and the server's tasks over the wire and decides nothing; every
// report still comes from an Agent that holds the record.
#ifndef LDP_CLIENT_AGENT_CLIENT_RELAY_CLIENT_H_
#define LDP_CLIENT_AGENT_CLIENT_RELAY_CLIENT_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "client/agent_client/agent_client.h"
#include "client/core/agent.h"
#include "grpcpp/client_context.h"
#include "proto/ldp/v1/relay_service.grpc.pb.h"

namespace ldp {

// One enrolled agent as the relay holds it.
struct RelayedAgent {
  uint64_t agent_id = 0;
  std::string bearer_token{};
};

// A report and the agent that made it.
struct RelayedTaskReport {
  const RelayedAgent* agent = nullptr;  // not owned
  TaskReport report{};
};

class RelayClient {
 public:
  // `stub` is shared (one per channel); every call waits at most `timeout`.
  RelayClient(std::shared_ptr<v1::RelayService::StubInterface> stub,
              absl::Duration timeout);

  // `count` (1 to 1000) new agents. UNIMPLEMENTED from a server started
  // without --relay_service. One try: a caller that retries passes the
  // same `request_id` (NewEnrollmentRequestId, agent_client.h) and count
  // each time, and gets the same agents; "" = not safe to retry.
  absl::StatusOr<std::vector<RelayedAgent>> EnrollBatch(
      absl::string_view enrollment_token, int count,
      absl::string_view request_id = "");

  // Each agent's open tasks (or why its call failed), in order; a question
  // the agent could not parse is one malformed entry of its TaskBatch. A
  // shuffled study's task is refused the same way unless `has_shuffler`
  // (the caller submits each Agent's PendingSealed to a shuffler of its
  // own) and its ticket fits the agent (ShuffledTaskSealer).
  absl::StatusOr<std::vector<absl::StatusOr<TaskBatch>>> GetTasksBatch(
      const std::vector<const RelayedAgent*>& agents,
      bool has_shuffler = false);

  // One upload stream: Send writes one batch (at most 1000 reports) and
  // waits for its acks, one per report, in order.
  class UploadStream {
   public:
    ~UploadStream();
    absl::StatusOr<std::vector<absl::Status>> Send(
        absl::Span<const RelayedTaskReport> reports);
    // Half-closes and returns the stream's final status.
    absl::Status Close();

   private:
    friend class RelayClient;
    UploadStream() = default;
    grpc::ClientContext context_;
    std::unique_ptr<grpc::ClientReaderWriterInterface<v1::RelayUploadRequest,
                                                      v1::RelayUploadResponse>>
        stream_;
    bool closed_ = false;
  };
  // A stream with no deadline (it lives for the whole run).
  std::unique_ptr<UploadStream> OpenUploadStream();

 private:
  std::unique_ptr<grpc::ClientContext> NewContext() const;

  std::shared_ptr<v1::RelayService::StubInterface> stub_;
  const absl::Duration timeout_;
};

}  // namespace ldp

#endif  // LDP_CLIENT_AGENT_CLIENT_RELAY_CLIENT_H_
