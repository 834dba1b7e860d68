// Answering with a status; see the header.
#include "server/grpc/call_status.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "proto/grpc_convert/grpc_status.h"
#include "server/grpc/auth_metadata.h"

namespace ldp {

grpc::ServerUnaryReactor* FinishWith(grpc::CallbackServerContext* context,
                                     const absl::Status& status) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish(ToGrpcStatus(status));
  return reactor;
}

void SetAck(const absl::Status& status, v1::ReportAck* ack) {
  ack->set_code(static_cast<int32_t>(status.code()));
  ack->set_message(std::string(status.message()));
}

absl::Status Throttle(RateLimiter* limiter, std::string_view key,
                      std::string_view who,
                      grpc::CallbackServerContext* context) {
  if (limiter == nullptr) return absl::OkStatus();
  const absl::Duration wait = limiter->Acquire(key);
  if (wait == absl::ZeroDuration()) return absl::OkStatus();
  AddRetryAfter(*context, wait);
  return RateLimitedError(who, limiter->limit(), wait);
}

absl::Status ThrottlePeer(RateLimiter* limiter,
                          grpc::CallbackServerContext* context) {
  if (limiter == nullptr) return absl::OkStatus();
  const std::string peer = PeerAddress(*context);
  return Throttle(limiter, peer, absl::StrCat("peer ", peer), context);
}

}  // namespace ldp
