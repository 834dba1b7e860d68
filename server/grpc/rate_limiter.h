// Per-key token buckets: how the server bounds what one agent (or one peer
// address, for enrollment) can make it do per second.
//
// Why token buckets: an honest agent calls in short bursts (poll, answer,
// upload) separated by long idle times, so a bucket of `burst` tokens that
// refills at `per_second` lets every honest burst through at full speed and
// still caps a flood at the refill rate. Buckets live in memory only: a
// restart forgets them, which merely grants each key one fresh burst.
//
// Memory stays proportional to the keys active recently: a bucket that has
// refilled to `burst` is indistinguishable from a missing one, so such
// buckets are dropped whenever a shard has doubled in size since its last
// sweep (amortized O(1) per call).
//
// Time comes from the injectable Clock (tests use FakeClock). If the clock
// steps backwards, a bucket just stops refilling until it catches up.
#ifndef LDP_SERVER_GRPC_RATE_LIMITER_H_
#define LDP_SERVER_GRPC_RATE_LIMITER_H_

#include <array>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/base/clock.h"

namespace ldp {

struct RateLimit {
  // Tokens added per second; ≤ 0 disables the limit (every call passes).
  double per_second = 0;
  // Bucket capacity = the largest burst let through at once (≥ 1 when the
  // limit is enabled).
  double burst = 1;
};

// Thread-safe.
class RateLimiter {
 public:
  // InvalidArgument for a non-finite rate or an enabled limit with burst < 1.
  // `clock` is not owned and must outlive the limiter.
  static absl::StatusOr<std::unique_ptr<RateLimiter>> Create(const Clock* clock,
                                                             RateLimit limit);

  // Takes one token from `key`'s bucket and returns zero, or, when the
  // bucket is empty, takes nothing and returns how long until a token will
  // be there (the retry hint).
  absl::Duration Acquire(std::string_view key);

  // Number of buckets held (for tests of the memory bound).
  size_t NumBuckets() const;

  bool enabled() const { return limit_.per_second > 0; }
  const RateLimit& limit() const { return limit_; }

 private:
  RateLimiter(const Clock* clock, RateLimit limit)
      : clock_(clock), limit_(limit) {}

  struct Bucket {
    double tokens = 0;
    absl::Time updated = absl::InfinitePast();
  };
  struct Shard {
    mutable absl::Mutex mutex;
    absl::flat_hash_map<std::string, Bucket> buckets ABSL_GUARDED_BY(mutex);
    size_t sweep_at ABSL_GUARDED_BY(mutex) = 1024;
  };
  static constexpr size_t kNumShards = 16;

  // Tokens in `bucket` at `now`, refilled and capped at burst.
  double Refilled(const Bucket& bucket, absl::Time now) const;
  void Sweep(Shard& shard, absl::Time now)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(shard.mutex);

  const Clock* clock_;
  const RateLimit limit_;
  std::array<Shard, kNumShards> shards_;
};

// RESOURCE_EXHAUSTED naming what was limited and when to retry, e.g.
// "agent 7 is over its rate limit of 10 calls/s (burst 20); retry in 0.1 s".
absl::Status RateLimitedError(std::string_view who, const RateLimit& limit,
                              absl::Duration retry_after);

}  // namespace ldp

#endif  // LDP_SERVER_GRPC_RATE_LIMITER_H_
