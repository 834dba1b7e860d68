// The AgentService gRPC adapter: authenticates the caller, translates wire
// messages to domain types (proto/convert), calls the Aggregator, and maps
// absl statuses to gRPC statuses. No protocol logic lives here; transport
// policy does: the client-certificate requirement and the rate limits, which
// answer RESOURCE_EXHAUSTED with a "retry-after-ms" trailer before the
// aggregator does any work.
#ifndef LDP_SERVER_GRPC_AGENT_SERVICE_H_
#define LDP_SERVER_GRPC_AGENT_SERVICE_H_

#include "proto/ldp/v1/agent_service.grpc.pb.h"
#include "server/core/aggregator.h"
#include "server/grpc/rate_limiter.h"
#include "server/grpc/shuffle_tickets.h"
#include "server/grpc/wire_question_cache.h"

namespace ldp {

struct AgentServiceOptions {
  // Per authenticated agent: one token per GetTasks or GetBudget call and
  // per UploadReports message. Null = no limit. Not owned.
  RateLimiter* agent_limiter = nullptr;
  // Per peer address: one token per Enroll call. Null = no limit.
  RateLimiter* enroll_limiter = nullptr;
  // Refuse (UNAUTHENTICATED) callers without a verified client certificate
  // (mutual TLS; see tls_credentials.h).
  bool require_client_certificate = false;
  // Signs the tickets of shuffled studies' tasks; null: the server has no
  // shuffle keys, and such tasks are an INTERNAL error.
  const ShuffleTicketIssuer* shuffle_tickets = nullptr;
};

// UploadReports is a raw method: the reactor parses each stream message
// itself, so that bytes which are not an UploadReportsRequest end the stream
// with INVALID_ARGUMENT rather than looking like the end of the stream.
class AgentServiceImpl final
    : public v1::AgentService::WithRawCallbackMethod_UploadReports<
          v1::AgentService::CallbackService> {
 public:
  // `aggregator` is not owned and must outlive the service.
  explicit AgentServiceImpl(Aggregator* aggregator,
                            AgentServiceOptions options = {})
      : aggregator_(aggregator), options_(options) {}

  grpc::ServerUnaryReactor* Enroll(grpc::CallbackServerContext* context,
                                   const v1::EnrollRequest* request,
                                   v1::EnrollResponse* response) override;
  grpc::ServerUnaryReactor* GetTasks(grpc::CallbackServerContext* context,
                                     const v1::GetTasksRequest* request,
                                     v1::GetTasksResponse* response) override;
  grpc::ServerReadReactor<grpc::ByteBuffer>* UploadReports(
      grpc::CallbackServerContext* context,
      grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* GetBudget(grpc::CallbackServerContext* context,
                                      const v1::GetBudgetRequest* request,
                                      v1::GetBudgetResponse* response) override;

 private:
  // The authenticated agent, checked against the id the request names and
  // charged one token of its rate limit (`charge`).
  absl::StatusOr<uint64_t> Authenticate(grpc::CallbackServerContext* context,
                                        uint64_t claimed_agent_id,
                                        bool charge) const;

  Aggregator* aggregator_;  // not owned
  const AgentServiceOptions options_;
  WireQuestionCache wire_questions_;
};

}  // namespace ldp

#endif  // LDP_SERVER_GRPC_AGENT_SERVICE_H_
