#include "client/core/retry.h"

#include "gtest/gtest.h"
#include "tests/testing/statistics.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using testing::SeededGenerator;
using testing::StatusIs;

TEST(IsTransient, RetriesOnlyWhatMaySucceedLater) {
  for (auto code :
       {absl::StatusCode::kUnavailable, absl::StatusCode::kDeadlineExceeded,
        absl::StatusCode::kAborted, absl::StatusCode::kResourceExhausted,
        absl::StatusCode::kCancelled, absl::StatusCode::kInternal,
        absl::StatusCode::kUnknown}) {
    EXPECT_TRUE(IsTransient(code)) << code;
  }
  for (auto code :
       {absl::StatusCode::kOk, absl::StatusCode::kInvalidArgument,
        absl::StatusCode::kNotFound, absl::StatusCode::kAlreadyExists,
        absl::StatusCode::kPermissionDenied,
        absl::StatusCode::kFailedPrecondition,
        absl::StatusCode::kUnauthenticated, absl::StatusCode::kDataLoss}) {
    EXPECT_FALSE(IsTransient(code)) << code;
  }
}

TEST(Backoff, GrowsExponentiallyWithJitterUpToTheMaximum) {
  auto backoff = Backoff::Create({.initial_delay = absl::Milliseconds(100),
                                  .max_delay = absl::Seconds(1),
                                  .multiplier = 2});
  ASSERT_OK(backoff);
  SeededGenerator gen(5);
  const absl::Duration bases[] = {
      absl::Milliseconds(100), absl::Milliseconds(200), absl::Milliseconds(400),
      absl::Milliseconds(800), absl::Seconds(1),        absl::Seconds(1)};
  for (absl::Duration base : bases) {
    const absl::Duration delay = backoff->NextDelay(gen);
    EXPECT_GE(delay, base / 2);
    EXPECT_LE(delay, base);
  }
  backoff->Reset();
  EXPECT_LE(backoff->NextDelay(gen), absl::Milliseconds(100));
}

TEST(Backoff, RejectsNonsenseOptions) {
  EXPECT_THAT(Backoff::Create({.initial_delay = absl::ZeroDuration()}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(Backoff::Create({.initial_delay = absl::Seconds(2),
                               .max_delay = absl::Seconds(1)}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(Backoff::Create({.max_delay = absl::InfiniteDuration()}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(Backoff::Create({.multiplier = 0.5}),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

}  // namespace
}  // namespace ldp
