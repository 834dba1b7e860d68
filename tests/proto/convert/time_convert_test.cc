#include "proto/convert/time_convert.h"

#include "gtest/gtest.h"
#include "tests/proto/convert/convert_testing.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using ::ldp::testing::kInvalid;
using ::ldp::testing::StatusIs;

google::protobuf::Timestamp Stamp(int64_t seconds, int32_t nanos) {
  google::protobuf::Timestamp t;
  t.set_seconds(seconds);
  t.set_nanos(nanos);
  return t;
}

TEST(TimeConvert, RoundTripsToTheNanosecond) {
  for (const google::protobuf::Timestamp& t :
       {Stamp(0, 0), Stamp(1'700'000'000, 123'456'789), Stamp(-1, 999'999'999),
        Stamp(-62135596800, 0), Stamp(253402300799, 999'999'999)}) {
    absl::StatusOr<absl::Time> time = TimeFromProto(t);
    ASSERT_OK(time);
    google::protobuf::Timestamp back;
    TimeToProto(*time, &back);
    EXPECT_EQ(back.seconds(), t.seconds());
    EXPECT_EQ(back.nanos(), t.nanos());
  }
  absl::StatusOr<absl::Time> time = TimeFromProto(Stamp(10, 5));
  ASSERT_OK(time);
  EXPECT_EQ(*time, absl::FromUnixSeconds(10) + absl::Nanoseconds(5));
}

TEST(TimeConvert, RejectsOutOfRangeTimestamps) {
  EXPECT_THAT(TimeFromProto(Stamp(0, -1)), StatusIs(kInvalid));
  EXPECT_THAT(TimeFromProto(Stamp(0, 1'000'000'000)), StatusIs(kInvalid));
  EXPECT_THAT(TimeFromProto(Stamp(-62135596801, 0)), StatusIs(kInvalid));
  EXPECT_THAT(TimeFromProto(Stamp(253402300800, 0)), StatusIs(kInvalid));
}

TEST(TimeConvert, ClampsInfiniteTimesToTheValidRange) {
  google::protobuf::Timestamp t;
  TimeToProto(absl::InfiniteFuture(), &t);
  EXPECT_EQ(t.seconds(), 253402300799);
  EXPECT_EQ(t.nanos(), 999'999'999);
  EXPECT_OK(TimeFromProto(t));
  TimeToProto(absl::InfinitePast(), &t);
  EXPECT_EQ(t.seconds(), -62135596800);
  EXPECT_EQ(t.nanos(), 0);
  EXPECT_OK(TimeFromProto(t));
}

}  // namespace
}  // namespace ldp
