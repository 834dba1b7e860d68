// Reads who the caller is: its credential from gRPC metadata
// ("authorization: Bearer <token>"), the one place either service looks at
// it; whether its TLS handshake presented a verified client certificate;
// and its network address (the key of per-peer limits).
#ifndef LDP_SERVER_GRPC_AUTH_METADATA_H_
#define LDP_SERVER_GRPC_AUTH_METADATA_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "grpcpp/server_context.h"

namespace ldp {

// UNAUTHENTICATED (with what to send) when the header is missing or not a
// bearer token.
absl::StatusOr<std::string_view> BearerToken(
    const grpc::CallbackServerContext& context);

// Whether the caller presented a client certificate that the server's
// client CA verified (only possible over TLS with --tls_client_ca_file).
bool HasVerifiedClientCertificate(const grpc::CallbackServerContext& context);

// The caller's address without its port (e.g. "ipv4:10.0.0.7"): a client
// gets no fresh allowance by opening another connection.
std::string PeerAddress(const grpc::CallbackServerContext& context);

// Sets the retry hint of a RESOURCE_EXHAUSTED answer as trailing metadata
// "retry-after-ms" (the status message says it in words too).
void AddRetryAfter(grpc::CallbackServerContext& context, absl::Duration delay);

}  // namespace ldp

#endif  // LDP_SERVER_GRPC_AUTH_METADATA_H_
