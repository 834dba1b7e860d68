// The C library's ldp_agent_enroll_request in C++: a serialized
// ldp.v1.EnrollRequest with a fresh request id, for the app to send (and
// resend unchanged) itself.
//
// Why in the library: the request id is what makes Enroll safe to retry
// (agent_service.proto, EnrollRequest.request_id), and it must come from a
// CSPRNG and be fixed once per enrollment; an app that drew its own could
// draw it weakly or anew on each retry, and a retry would then enroll a
// second agent that no one holds.
#ifndef LDP_CLIENT_AGENT_C_ENROLL_REQUEST_H_
#define LDP_CLIENT_AGENT_C_ENROLL_REQUEST_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace ldp {

// The request id's length: within the 16 to 64 bytes the server takes.
inline constexpr size_t kEnrollRequestIdBytes = 32;

// The deterministic bytes of an EnrollRequest {token, csr_pem, a fresh
// kEnrollRequestIdBytes-byte request_id from the system CSPRNG}.
// InvalidArgument for an empty token, or a token or CSR that is not UTF-8
// (protobuf string fields); Internal if the CSPRNG fails.
absl::StatusOr<std::string> EnrollRequestBytes(std::string_view token,
                                               std::string_view csr_pem);

}  // namespace ldp

#endif  // LDP_CLIENT_AGENT_C_ENROLL_REQUEST_H_
