// A retry-safe EnrollRequest for the C library; see the header.
#include "client/agent_c/enroll_request.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "client/agent_c/quiet_parse.h"
#include "common/crypto/random_bytes.h"
#include "proto/convert/deterministic_bytes.h"
#include "proto/ldp/v1/agent_service.pb.h"

namespace ldp {

absl::StatusOr<std::string> EnrollRequestBytes(std::string_view token,
                                               std::string_view csr_pem) {
  if (token.empty()) {
    return absl::InvalidArgumentError(
        "the enrollment token is empty: pass the one-time token the device "
        "was given");
  }
  // Checked here: protobuf would print about a non-UTF-8 string field when
  // serializing it, and the server would refuse it.
  if (!IsUtf8(token) || !IsUtf8(csr_pem)) {
    return absl::InvalidArgumentError(
        absl::StrCat("the ", IsUtf8(token) ? "CSR" : "enrollment token",
                     " is not UTF-8 text (a token and a PEM CSR are ASCII)"));
  }
  std::string id(kEnrollRequestIdBytes, '\0');
  if (absl::Status drawn = FillRandomBytes(id.data(), id.size()); !drawn.ok()) {
    return absl::InternalError(absl::StrCat(
        "cannot draw the enrollment's request id: ", drawn.message()));
  }
  v1::EnrollRequest request;
  request.set_enrollment_token(std::string(token));
  request.set_csr_pem(std::string(csr_pem));
  request.set_request_id(std::move(id));
  return DeterministicBytes(request);
}

}  // namespace ldp
