// Reads the caller's credential from gRPC metadata ("authorization: Bearer
// <token>"), the one place either service looks at it.
#ifndef LDP_SERVER_GRPC_AUTH_METADATA_H_
#define LDP_SERVER_GRPC_AUTH_METADATA_H_

#include <string_view>

#include "absl/status/statusor.h"
#include "grpcpp/server_context.h"

namespace ldp {

// UNAUTHENTICATED (with what to send) when the header is missing or not a
// bearer token.
absl::StatusOr<std::string_view> BearerToken(
    const grpc::CallbackServerContext& context);

}  // namespace ldp

#endif  // LDP_SERVER_GRPC_AUTH_METADATA_H_
