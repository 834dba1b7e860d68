// absl::Status <-> grpc::Status; see the header.
#include "proto/grpc_convert/grpc_status.h"

#include <string>

namespace ldp {
namespace {

// The last canonical code (UNAUTHENTICATED); both enums number 0..16 alike.
constexpr int kMaxCanonicalCode = 16;

bool IsCanonical(int code) { return code >= 0 && code <= kMaxCanonicalCode; }

}  // namespace

grpc::Status ToGrpcStatus(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  const int code = static_cast<int>(status.code());
  return grpc::Status(IsCanonical(code) ? static_cast<grpc::StatusCode>(code)
                                        : grpc::StatusCode::UNKNOWN,
                      std::string(status.message()));
}

absl::Status FromGrpcStatus(const grpc::Status& status) {
  if (status.ok()) return absl::OkStatus();
  const int code = static_cast<int>(status.error_code());
  return absl::Status(IsCanonical(code) ? static_cast<absl::StatusCode>(code)
                                        : absl::StatusCode::kUnknown,
                      status.error_message());
}

}  // namespace ldp
