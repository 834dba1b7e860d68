// A blocking unary call whose response arrives as raw bytes, for the agent's
// task poll: the agent parses the response itself (task_batch.h), task by
// task, rather than letting gRPC fail the whole poll on one bad task.
#ifndef LDP_CLIENT_AGENT_CLIENT_RAW_CALL_H_
#define LDP_CLIENT_AGENT_CLIENT_RAW_CALL_H_

#include <string>

#include "absl/status/status.h"
#include "google/protobuf/message_lite.h"
#include "grpcpp/client_context.h"
#include "grpcpp/generic/generic_stub.h"

namespace ldp {

// Calls `method` ("/package.Service/Method") with `request`; on OK,
// `response` holds the answer's serialized bytes.
absl::Status RawUnaryCall(grpc::GenericStub& stub, grpc::ClientContext& context,
                          const std::string& method,
                          const google::protobuf::MessageLite& request,
                          std::string* response);

}  // namespace ldp

#endif  // LDP_CLIENT_AGENT_CLIENT_RAW_CALL_H_
