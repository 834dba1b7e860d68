// Token-bucket rate limiter: bursts pass, floods are held to the refill
// rate, keys are independent, the retry hint is exact, memory is bounded.
#include "server/grpc/rate_limiter.h"

#include <string>

#include "common/base/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/fake_clock.h"

namespace ldp {
namespace {

std::unique_ptr<RateLimiter> Make(const Clock* clock, RateLimit limit) {
  auto limiter = RateLimiter::Create(clock, limit);
  EXPECT_TRUE(limiter.ok()) << limiter.status();
  return *std::move(limiter);
}

TEST(RateLimiterTest, BurstPassesThenTheRestWaits) {
  FakeClock clock;
  auto limiter = Make(&clock, {.per_second = 10, .burst = 5});
  for (int i = 0; i < 5; ++i)
    EXPECT_EQ(limiter->Acquire("a"), absl::ZeroDuration()) << i;
  // Empty: one token takes 1/10 s to come back.
  EXPECT_NEAR(absl::ToDoubleSeconds(limiter->Acquire("a")), 0.1, 1e-9);
  clock.Advance(absl::Milliseconds(99));
  EXPECT_NEAR(absl::ToDoubleSeconds(limiter->Acquire("a")), 0.001, 1e-9);
  clock.Advance(absl::Milliseconds(2));
  EXPECT_EQ(limiter->Acquire("a"), absl::ZeroDuration());
}

TEST(RateLimiterTest, AFloodIsHeldToTheRate) {
  FakeClock clock;
  auto limiter = Make(&clock, {.per_second = 50, .burst = 20});
  // 1000 calls, one every millisecond, for one second: the burst plus one
  // second of refill get through, no more and no less.
  int passed = 0;
  for (int i = 0; i < 1000; ++i) {
    if (limiter->Acquire("flood") == absl::ZeroDuration()) ++passed;
    clock.Advance(absl::Milliseconds(1));
  }
  EXPECT_GE(passed, 20 + 49);
  EXPECT_LE(passed, 20 + 50);
}

TEST(RateLimiterTest, KeysAreIndependent) {
  FakeClock clock;
  auto limiter = Make(&clock, {.per_second = 1, .burst = 2});
  EXPECT_EQ(limiter->Acquire("7"), absl::ZeroDuration());
  EXPECT_EQ(limiter->Acquire("7"), absl::ZeroDuration());
  EXPECT_GT(limiter->Acquire("7"), absl::ZeroDuration());
  EXPECT_EQ(limiter->Acquire("8"), absl::ZeroDuration());
}

TEST(RateLimiterTest, RefillIsCappedAtTheBurst) {
  FakeClock clock;
  auto limiter = Make(&clock, {.per_second = 100, .burst = 3});
  EXPECT_EQ(limiter->Acquire("k"), absl::ZeroDuration());
  clock.Advance(absl::Hours(1));
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(limiter->Acquire("k"), absl::ZeroDuration());
  EXPECT_GT(limiter->Acquire("k"), absl::ZeroDuration());
}

TEST(RateLimiterTest, ClockSteppingBackNeverAddsTokens) {
  FakeClock clock;
  auto limiter = Make(&clock, {.per_second = 1, .burst = 1});
  EXPECT_EQ(limiter->Acquire("k"), absl::ZeroDuration());
  clock.Advance(-absl::Hours(1));
  EXPECT_GT(limiter->Acquire("k"), absl::ZeroDuration());
  clock.Advance(absl::Hours(1) + absl::Seconds(1));
  EXPECT_EQ(limiter->Acquire("k"), absl::ZeroDuration());
}

TEST(RateLimiterTest, DisabledLetsEverythingThrough) {
  FakeClock clock;
  auto limiter = Make(&clock, {.per_second = 0});
  for (int i = 0; i < 10000; ++i)
    ASSERT_EQ(limiter->Acquire("k"), absl::ZeroDuration());
  EXPECT_EQ(limiter->NumBuckets(), 0u);
}

TEST(RateLimiterTest, IdleBucketsAreDropped) {
  FakeClock clock;
  auto limiter = Make(&clock, {.per_second = 10, .burst = 10});
  for (int round = 0; round < 10; ++round) {
    for (int i = 0; i < 10000; ++i) {
      limiter->Acquire(std::to_string(round * 10000 + i));
    }
    clock.Advance(absl::Seconds(1));  // every bucket refills
  }
  // 100,000 keys seen; only about the last round's are held (each shard
  // sweeps when it doubles, so at most ~2x one round plus the sweep floor).
  EXPECT_LE(limiter->NumBuckets(), 2 * 10000 + 16 * 1024u);
}

TEST(RateLimiterTest, RejectsUnusableLimits) {
  FakeClock clock;
  EXPECT_EQ(RateLimiter::Create(&clock, {.per_second = 5, .burst = 0.5})
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(
      RateLimiter::Create(&clock, {.per_second = INFINITY}).status().code(),
      absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(RateLimiter::Create(nullptr, {}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(RateLimiterTest, ErrorSaysWhoAndWhen) {
  const absl::Status status = RateLimitedError(
      "agent 7", {.per_second = 10, .burst = 20}, absl::Milliseconds(100));
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(status.message(), ::testing::HasSubstr("agent 7"));
  EXPECT_THAT(status.message(), ::testing::HasSubstr("retry in 0.1 s"));
}

}  // namespace
}  // namespace ldp
