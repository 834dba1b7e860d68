// Parsing ldp.v1 messages from raw bytes, with errors a sender can act on.
//
// gRPC's own deserialization answers a bad message with a bare status and no
// message, and cannot tell garbage from a message that merely nests deeper
// than protobuf's recursion limit (100 messages: a query expression of ~48
// levels). The service edges that take untrusted bytes (the upload stream,
// CreateStudy, an agent's task poll) parse through here instead, so each
// failure is INVALID_ARGUMENT and says which of the two it was.
#ifndef LDP_PROTO_CONVERT_WIRE_MESSAGE_H_
#define LDP_PROTO_CONVERT_WIRE_MESSAGE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "google/protobuf/message.h"

namespace ldp {

// Parses `bytes` into `message` (cleared first). InvalidArgument, naming the
// message type, if the bytes are not a serialized message of that type, or,
// naming protobuf's nesting limit and the query depth limit, if they nest
// messages deeper than protobuf reads.
absl::Status ParseWireMessage(std::string_view bytes,
                              google::protobuf::Message& message);

// How deeply `bytes`, read as a `type` message, nest messages (the message
// itself is depth 1), walking the wire iteratively so that no depth can
// exhaust the stack. Counting stops once past `stop_after`. InvalidArgument
// if the bytes are not wire-format protobuf.
absl::StatusOr<int> WireNestingDepth(std::string_view bytes,
                                     const google::protobuf::Descriptor& type,
                                     int stop_after);

// A message's top-level occurrences of one length-delimited field, split
// from everything else, so that each element can be parsed (and refused) on
// its own: one bad task must not cost an agent the rest of its poll.
struct SplitFields {
  std::vector<std::string_view> elements;  // views into the input bytes
  std::string rest;                        // the other fields, re-serialized
};
absl::StatusOr<SplitFields> SplitRepeatedField(std::string_view bytes,
                                               int field_number);

// The first top-level varint field `field_number` of `bytes`, if any is
// readable: enough to name a message (its id) that does not parse.
std::optional<uint64_t> TopLevelVarint(std::string_view bytes,
                                       int field_number);

}  // namespace ldp

#endif  // LDP_PROTO_CONVERT_WIRE_MESSAGE_H_
