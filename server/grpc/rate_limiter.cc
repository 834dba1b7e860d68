// Token buckets; see the header.
#include "server/grpc/rate_limiter.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>

#include "absl/strings/str_format.h"

namespace ldp {

absl::StatusOr<std::unique_ptr<RateLimiter>> RateLimiter::Create(
    const Clock* clock, RateLimit limit) {
  if (clock == nullptr)
    return absl::InvalidArgumentError("the rate limiter needs a clock");
  if (!std::isfinite(limit.per_second) || !std::isfinite(limit.burst)) {
    return absl::InvalidArgumentError("rate limit and burst must be finite");
  }
  if (limit.per_second > 0 && limit.burst < 1) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "a burst of %g lets no call through; use a burst >= 1", limit.burst));
  }
  return std::unique_ptr<RateLimiter>(new RateLimiter(clock, limit));
}

double RateLimiter::Refilled(const Bucket& bucket, absl::Time now) const {
  const double elapsed =
      std::max(0.0, absl::ToDoubleSeconds(now - bucket.updated));
  return std::min(limit_.burst, bucket.tokens + elapsed * limit_.per_second);
}

absl::Duration RateLimiter::Acquire(std::string_view key) {
  if (!enabled()) return absl::ZeroDuration();
  const absl::Time now = clock_->Now();
  Shard& shard = shards_[std::hash<std::string_view>{}(key) % kNumShards];
  absl::MutexLock lock(&shard.mutex);
  // Debian's Abseil has its own string_view type, which its string hash takes.
  auto [it, inserted] =
      shard.buckets.try_emplace(absl::string_view(key.data(), key.size()));
  Bucket& bucket = it->second;
  if (inserted) {
    bucket.tokens = limit_.burst;
    bucket.updated = now;
  } else {
    bucket.tokens = Refilled(bucket, now);
    // A clock that stepped back leaves `updated` ahead; refilling resumes
    // once the clock passes it again.
    bucket.updated = std::max(bucket.updated, now);
  }
  if (bucket.tokens >= 1) {
    bucket.tokens -= 1;
    if (inserted && shard.buckets.size() >= shard.sweep_at) Sweep(shard, now);
    return absl::ZeroDuration();
  }
  return absl::Seconds((1 - bucket.tokens) / limit_.per_second);
}

void RateLimiter::Sweep(Shard& shard, absl::Time now) {
  absl::erase_if(shard.buckets, [&](const auto& entry) {
    return Refilled(entry.second, now) >= limit_.burst;
  });
  shard.sweep_at = std::max<size_t>(1024, 2 * shard.buckets.size());
}

size_t RateLimiter::NumBuckets() const {
  size_t total = 0;
  for (const Shard& shard : shards_) {
    absl::MutexLock lock(&shard.mutex);
    total += shard.buckets.size();
  }
  return total;
}

absl::Status RateLimitedError(std::string_view who, const RateLimit& limit,
                              absl::Duration retry_after) {
  return absl::ResourceExhaustedError(absl::StrFormat(
      "%s is over its rate limit of %g calls/s (burst %g); retry in %.3g s",
      who, limit.per_second, limit.burst,
      std::max(0.001, absl::ToDoubleSeconds(retry_after))));
}

}  // namespace ldp
