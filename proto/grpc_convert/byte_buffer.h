// gRPC ByteBuffer <-> bytes, for the raw (not auto-deserialized) methods:
// the upload stream and CreateStudy on the server, the task poll on the
// agent. Those parse their messages themselves (wire_message.h) so that a
// bad message gets an actionable INVALID_ARGUMENT instead of gRPC's bare
// deserialization failure.
#ifndef LDP_PROTO_GRPC_CONVERT_BYTE_BUFFER_H_
#define LDP_PROTO_GRPC_CONVERT_BYTE_BUFFER_H_

#include <string>

#include "absl/status/status.h"
#include "google/protobuf/message.h"
#include "google/protobuf/message_lite.h"
#include "grpcpp/support/byte_buffer.h"

namespace ldp {

// The buffer's bytes, copied into one string.
std::string ByteBufferToString(const grpc::ByteBuffer& buffer);

// Parses `buffer` into `message` straight from its slices (no copy) when it
// is valid; otherwise copies it once to say why, as ParseWireMessage does.
absl::Status ParseByteBuffer(const grpc::ByteBuffer& buffer,
                             google::protobuf::Message& message);

// `message`, serialized deterministically, as a one-slice buffer.
grpc::ByteBuffer MessageToByteBuffer(
    const google::protobuf::MessageLite& message);

}  // namespace ldp

#endif  // LDP_PROTO_GRPC_CONVERT_BYTE_BUFFER_H_
