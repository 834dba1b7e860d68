// The pieces of a sealed report's padding (types.proto, "The shuffle
// model", step 2) that sealed_report.h does not export: the max-width size
// that fixes a report's padded length, and deterministic serialization.
//
// Why apart from sealed_report.h: callers need only PadReport and
// UnpadReport; these are here so the tests can check the size rule itself.
#ifndef LDP_PROTO_SEALING_PADDED_REPORT_H_
#define LDP_PROTO_SEALING_PADDED_REPORT_H_

#include <cstddef>
#include <string>

#include "google/protobuf/message.h"
#include "google/protobuf/message_lite.h"

namespace ldp::sealing_internal {

// The message's serialized size if every varint took 10 bytes and every
// length prefix 5, counting every singular integer, enum, bool and fixed
// field of each message present (set or not); see padded_report.cc.
size_t MaxWidthSize(const google::protobuf::Message& message);

// `message` serialized deterministically, as the padding, the question
// digest and the ticket signature need (one byte string per message).
std::string SealingBytes(const google::protobuf::MessageLite& message);

}  // namespace ldp::sealing_internal

#endif  // LDP_PROTO_SEALING_PADDED_REPORT_H_
