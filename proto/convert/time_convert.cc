// Timestamps between google.protobuf and absl; see the header.
#include "proto/convert/time_convert.h"

#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace ldp {
namespace {

// 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z, the Timestamp range.
constexpr int64_t kMinSeconds = -62135596800;
constexpr int64_t kMaxSeconds = 253402300799;

}  // namespace

absl::StatusOr<absl::Time> TimeFromProto(
    const google::protobuf::Timestamp& proto) {
  if (proto.seconds() < kMinSeconds || proto.seconds() > kMaxSeconds) {
    return absl::InvalidArgumentError(absl::StrCat(
        "timestamp seconds must be within years 0001 to 9999, got ",
        proto.seconds()));
  }
  if (proto.nanos() < 0 || proto.nanos() >= 1'000'000'000) {
    return absl::InvalidArgumentError(absl::StrCat(
        "timestamp nanos must be in [0, 999999999], got ", proto.nanos()));
  }
  return absl::FromUnixSeconds(proto.seconds()) +
         absl::Nanoseconds(proto.nanos());
}

void TimeToProto(absl::Time time, google::protobuf::Timestamp* proto) {
  const absl::Time lo = absl::FromUnixSeconds(kMinSeconds);
  const absl::Time hi =
      absl::FromUnixSeconds(kMaxSeconds) + absl::Nanoseconds(999'999'999);
  if (time < lo) time = lo;
  if (time > hi) time = hi;
  const int64_t seconds = absl::ToUnixSeconds(time);  // rounds down
  proto->set_seconds(seconds);
  proto->set_nanos(static_cast<int32_t>(
      absl::ToInt64Nanoseconds(time - absl::FromUnixSeconds(seconds))));
}

}  // namespace ldp
