// absl::Status <-> grpc::Status at the service edges.
//
// Both use the canonical google.rpc.Code numbering, so the mapping is total
// and lossless: the code is cast and the message copied. Codes outside the
// canonical range (none exist today) become UNKNOWN rather than an invalid
// status.
#ifndef LDP_PROTO_GRPC_CONVERT_GRPC_STATUS_H_
#define LDP_PROTO_GRPC_CONVERT_GRPC_STATUS_H_

#include "absl/status/status.h"
#include "grpcpp/support/status.h"

namespace ldp {

grpc::Status ToGrpcStatus(const absl::Status& status);
absl::Status FromGrpcStatus(const grpc::Status& status);

}  // namespace ldp

#endif  // LDP_PROTO_GRPC_CONVERT_GRPC_STATUS_H_
