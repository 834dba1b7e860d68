// google.protobuf.Timestamp <-> absl::Time, with the range checks the
// Timestamp contract requires (0001-01-01 to 9999-12-31, nanos in [0, 1e9)).
#ifndef LDP_PROTO_CONVERT_TIME_CONVERT_H_
#define LDP_PROTO_CONVERT_TIME_CONVERT_H_

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "google/protobuf/timestamp.pb.h"

namespace ldp {

// InvalidArgument outside the Timestamp range.
absl::StatusOr<absl::Time> TimeFromProto(
    const google::protobuf::Timestamp& proto);
// Overwrites `proto`; times outside the range (including the infinite
// past/future) are clamped to its ends.
void TimeToProto(absl::Time time, google::protobuf::Timestamp* proto);

}  // namespace ldp

#endif  // LDP_PROTO_CONVERT_TIME_CONVERT_H_
