// Caller identity from the call context; see the header.
#include "server/grpc/auth_metadata.h"

#include <algorithm>
#include <cmath>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "grpcpp/security/auth_context.h"

namespace ldp {

absl::StatusOr<std::string_view> BearerToken(
    const grpc::CallbackServerContext& context) {
  const auto& metadata = context.client_metadata();
  const auto it = metadata.find("authorization");
  if (it == metadata.end()) {
    return absl::UnauthenticatedError(
        "missing 'authorization: Bearer <token>' metadata");
  }
  const std::string_view value(it->second.data(), it->second.size());
  constexpr std::string_view kPrefix = "Bearer ";
  if (value.substr(0, kPrefix.size()) != kPrefix ||
      value.size() == kPrefix.size()) {
    return absl::UnauthenticatedError(
        "the authorization metadata must be 'Bearer <token>'");
  }
  return value.substr(kPrefix.size());
}

bool HasVerifiedClientCertificate(const grpc::CallbackServerContext& context) {
  const std::shared_ptr<const grpc::AuthContext> auth = context.auth_context();
  // The SSL transport sets a peer identity only from a certificate that
  // passed verification against the client CA.
  return auth != nullptr && auth->IsPeerAuthenticated() &&
         !auth->FindPropertyValues("x509_pem_cert").empty();
}

std::string PeerAddress(const grpc::CallbackServerContext& context) {
  const std::string peer = context.peer();
  const size_t colon = peer.rfind(':');
  const size_t bracket = peer.rfind(']');
  // "ipv4:1.2.3.4:port", "ipv6:[::1]:port": drop the last ":port" only.
  if (colon == std::string::npos || colon <= peer.find(':') ||
      (bracket != std::string::npos && colon < bracket)) {
    return peer;
  }
  return peer.substr(0, colon);
}

void AddRetryAfter(grpc::CallbackServerContext& context, absl::Duration delay) {
  const int64_t ms = std::max<int64_t>(
      1, static_cast<int64_t>(std::ceil(absl::ToDoubleMilliseconds(delay))));
  context.AddTrailingMetadata("retry-after-ms", absl::StrCat(ms));
}

}  // namespace ldp
