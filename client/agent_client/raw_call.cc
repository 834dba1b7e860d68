// Raw unary calls; see the header.
#include "client/agent_client/raw_call.h"

#include <utility>

#include "absl/synchronization/notification.h"
#include "proto/grpc_convert/byte_buffer.h"
#include "proto/grpc_convert/grpc_status.h"

namespace ldp {

absl::Status RawUnaryCall(grpc::GenericStub& stub, grpc::ClientContext& context,
                          const std::string& method,
                          const google::protobuf::MessageLite& request,
                          std::string* response) {
  const grpc::ByteBuffer request_buffer = MessageToByteBuffer(request);
  grpc::ByteBuffer response_buffer;
  grpc::Status status;
  absl::Notification done;
  stub.UnaryCall(&context, method, grpc::StubOptions(), &request_buffer,
                 &response_buffer, [&](grpc::Status finished) {
                   status = std::move(finished);
                   done.Notify();
                 });
  done.WaitForNotification();
  if (!status.ok()) return FromGrpcStatus(status);
  *response = ByteBufferToString(response_buffer);
  return absl::OkStatus();
}

}  // namespace ldp
