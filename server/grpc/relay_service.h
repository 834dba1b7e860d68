// The RelayService gRPC adapter (proto/ldp/v1/relay_service.proto): many
// agents' calls over one connection, each item authenticated with its own
// agent's bearer token and handed to the same Aggregator methods as the
// AgentService call it stands for, so a relay skips no check. What it saves
// is per-call overhead: one message, one commit, per thousand agents.
//
// Transport policy differs from AgentService in one way: the per-agent rate
// limit does not apply (a relay paces many agents), and the enroll limit is
// charged once per EnrollBatch call. That is why the server offers this
// service only when asked (--relay_service).
#ifndef LDP_SERVER_GRPC_RELAY_SERVICE_H_
#define LDP_SERVER_GRPC_RELAY_SERVICE_H_

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "proto/ldp/v1/relay_service.grpc.pb.h"
#include "server/core/aggregator.h"
#include "server/grpc/rate_limiter.h"
#include "server/grpc/shuffle_tickets.h"
#include "server/grpc/wire_question_cache.h"

namespace ldp {

struct RelayServiceOptions {
  // Per peer address: one token per EnrollBatch call. Null = no limit. Not
  // owned.
  RateLimiter* enroll_limiter = nullptr;
  // Refuse (UNAUTHENTICATED) relays without a verified client certificate.
  bool require_client_certificate = false;
  // As AgentServiceOptions::shuffle_tickets.
  const ShuffleTicketIssuer* shuffle_tickets = nullptr;
};

// UploadReports is a raw method: its reactor parses each stream message, so
// that bytes which are not a RelayUploadRequest get INVALID_ARGUMENT. (Its
// raw and typed forms take the same arguments, so the raw one cannot wrap
// CallbackService, which declares the typed one; the service is composed.)
using RelayCallbackService = v1::RelayService::WithCallbackMethod_EnrollBatch<
    v1::RelayService::WithCallbackMethod_GetTasksBatch<
        v1::RelayService::WithRawCallbackMethod_UploadReports<
            v1::RelayService::Service>>>;

class RelayServiceImpl final : public RelayCallbackService {
 public:
  // `aggregator` is not owned and must outlive the service.
  explicit RelayServiceImpl(Aggregator* aggregator,
                            RelayServiceOptions options = {})
      : aggregator_(aggregator), options_(options) {}

  grpc::ServerUnaryReactor* EnrollBatch(
      grpc::CallbackServerContext* context,
      const v1::EnrollBatchRequest* request,
      v1::EnrollBatchResponse* response) override;
  grpc::ServerUnaryReactor* GetTasksBatch(
      grpc::CallbackServerContext* context,
      const v1::GetTasksBatchRequest* request,
      v1::GetTasksBatchResponse* response) override;
  grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer>* UploadReports(
      grpc::CallbackServerContext* context) override;

 private:
  // OK, or UNAUTHENTICATED when a client certificate is required and absent.
  absl::Status CheckRelay(const grpc::CallbackServerContext& context) const;

  // Authenticates every item (`agents`, in order), then polls the
  // authenticated ones against one view of the open rounds: one answer per
  // OK entry of `agents`, in order.
  std::vector<absl::StatusOr<std::vector<TaskAssignment>>> PollAll(
      const v1::GetTasksBatchRequest& request,
      std::vector<absl::StatusOr<uint64_t>>& agents);
  // One response's questions, each sent once and named by its index.
  struct WireBatch {
    v1::GetTasksBatchResponse& response;
    absl::flat_hash_map<const Task*, uint32_t> index{};
  };
  uint32_t QuestionIndex(const TaskAssignment& assignment, WireBatch& batch);

  Aggregator* aggregator_;  // not owned
  const RelayServiceOptions options_;
  WireQuestionCache wire_questions_;
};

}  // namespace ldp

#endif  // LDP_SERVER_GRPC_RELAY_SERVICE_H_
