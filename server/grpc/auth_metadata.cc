// Bearer-token extraction; see the header.
#include "server/grpc/auth_metadata.h"

#include "absl/status/status.h"

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
  if (value.substr(0, kPrefix.size()) != kPrefix || value.size() == kPrefix.size()) {
    return absl::UnauthenticatedError(
        "the authorization metadata must be 'Bearer <token>'");
  }
  return value.substr(kPrefix.size());
}

}  // namespace ldp
