// Deterministic serialization of a message, for stores that compare bytes
// ("an identical retry has the same bytes") and keep specs verbatim.
// Protobuf's default serialization may order map entries arbitrarily; the
// deterministic mode fixes the order within one binary.
#ifndef LDP_PROTO_CONVERT_DETERMINISTIC_BYTES_H_
#define LDP_PROTO_CONVERT_DETERMINISTIC_BYTES_H_

#include <string>

#include "google/protobuf/message_lite.h"

namespace ldp {

std::string DeterministicBytes(const google::protobuf::MessageLite& message);

}  // namespace ldp

#endif  // LDP_PROTO_CONVERT_DETERMINISTIC_BYTES_H_
