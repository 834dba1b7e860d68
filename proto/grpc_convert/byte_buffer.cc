// ByteBuffer conversions; see the header.
#include "proto/grpc_convert/byte_buffer.h"

#include <vector>

#include "grpcpp/support/proto_buffer_reader.h"
#include "grpcpp/support/slice.h"
#include "proto/convert/deterministic_bytes.h"
#include "proto/convert/wire_message.h"

namespace ldp {

std::string ByteBufferToString(const grpc::ByteBuffer& buffer) {
  std::vector<grpc::Slice> slices;
  std::string bytes;
  if (!buffer.Dump(&slices).ok()) return bytes;  // an empty buffer
  bytes.reserve(buffer.Length());
  for (const grpc::Slice& slice : slices) {
    bytes.append(reinterpret_cast<const char*>(slice.begin()), slice.size());
  }
  return bytes;
}

absl::Status ParseByteBuffer(const grpc::ByteBuffer& buffer,
                             google::protobuf::Message& message) {
  grpc::ByteBuffer shared(buffer);  // shares the slices, copies no bytes
  grpc::ProtoBufferReader reader(&shared);
  message.Clear();
  if (reader.status().ok() && message.ParseFromZeroCopyStream(&reader)) {
    return absl::OkStatus();
  }
  return ParseWireMessage(ByteBufferToString(buffer), message);
}

grpc::ByteBuffer MessageToByteBuffer(
    const google::protobuf::MessageLite& message) {
  grpc::Slice slice(DeterministicBytes(message));
  return grpc::ByteBuffer(&slice, 1);
}

}  // namespace ldp
