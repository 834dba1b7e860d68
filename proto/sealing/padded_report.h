// The piece of a sealed report's padding (types.proto, "The shuffle
// model", step 2) that sealed_report.h does not export: the max-width size
// that fixes a report's padded length.
//
// Why apart from sealed_report.h: callers need only PadReport and
// UnpadReport; this is here so the tests can check the size rule itself.
#ifndef LDP_PROTO_SEALING_PADDED_REPORT_H_
#define LDP_PROTO_SEALING_PADDED_REPORT_H_

#include <cstddef>

#include "google/protobuf/message.h"

namespace ldp::sealing_internal {

// The message's serialized size if every varint took 10 bytes and every
// length prefix 5, counting every singular integer, enum, bool and fixed
// field of each message present (set or not); see padded_report.cc.
size_t MaxWidthSize(const google::protobuf::Message& message);

}  // namespace ldp::sealing_internal

#endif  // LDP_PROTO_SEALING_PADDED_REPORT_H_
