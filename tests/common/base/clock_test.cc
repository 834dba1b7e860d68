#include "common/base/clock.h"

#include "gtest/gtest.h"
#include "tests/testing/fake_clock.h"

namespace ldp {
namespace {

TEST(FakeClock, MovesOnlyWhenTold) {
  const absl::Time start = absl::FromUnixSeconds(1'000'000);
  FakeClock clock(start);
  EXPECT_EQ(clock.Now(), start);
  EXPECT_EQ(clock.Now(), start);
  clock.Advance(absl::Seconds(5));
  EXPECT_EQ(clock.Now(), start + absl::Seconds(5));
  clock.SetTime(start - absl::Hours(1));
  EXPECT_EQ(clock.Now(), start - absl::Hours(1));
}

TEST(RealClock, FollowsTheSystemClock) {
  const Clock& clock = *RealClock::Get();
  const absl::Time before = absl::Now();
  const absl::Time now = clock.Now();
  EXPECT_GE(now, before);
  EXPECT_LE(now, absl::Now());
  EXPECT_EQ(RealClock::Get(), &clock);
}

}  // namespace
}  // namespace ldp
