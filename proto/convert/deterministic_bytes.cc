// Deterministic serialization; see the header.
#include "proto/convert/deterministic_bytes.h"

#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"

namespace ldp {

std::string DeterministicBytes(const google::protobuf::MessageLite& message) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream string_stream(&bytes);
    google::protobuf::io::CodedOutputStream coded(&string_stream);
    coded.SetSerializationDeterministic(true);
    message.SerializeToCodedStream(&coded);
  }  // the streams flush into `bytes` when destroyed
  return bytes;
}

}  // namespace ldp
