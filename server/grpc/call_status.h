// How the gRPC adapters answer with an absl::Status: a unary call finished
// with it, a report's ack carrying it, and the rate-limit refusal (with its
// retry hint) given before the aggregator does any work.
#ifndef LDP_SERVER_GRPC_CALL_STATUS_H_
#define LDP_SERVER_GRPC_CALL_STATUS_H_

#include <string_view>

#include "absl/status/status.h"
#include "grpcpp/server_context.h"
#include "proto/ldp/v1/agent_service.pb.h"
#include "server/grpc/rate_limiter.h"

namespace ldp {

// The context's default reactor, finished with `status`.
grpc::ServerUnaryReactor* FinishWith(grpc::CallbackServerContext* context,
                                     const absl::Status& status);

// Sets the ack's code and message from `status`.
void SetAck(const absl::Status& status, v1::ReportAck* ack);

// OK, or RESOURCE_EXHAUSTED (with the retry trailer set) when `key` is over
// `limiter`'s rate; `who` names the key in the message. A null limiter
// never refuses.
absl::Status Throttle(RateLimiter* limiter, std::string_view key,
                      std::string_view who,
                      grpc::CallbackServerContext* context);

// Throttle keyed by the caller's address (PeerAddress): the enroll limit.
absl::Status ThrottlePeer(RateLimiter* limiter,
                          grpc::CallbackServerContext* context);

}  // namespace ldp

#endif  // LDP_SERVER_GRPC_CALL_STATUS_H_
