// Operator counters: histogram buckets with Prometheus' inclusive upper
// bounds, outcomes by status code, and exact totals under concurrent
// writers (also run under TSan: tests/server_* are in its job).
#include "server/telemetry/server_stats.h"

#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace ldp {
namespace {

TEST(LatencyHistogram, BucketsAreInclusiveUpperBounds) {
  LatencyHistogram h;
  h.Observe(absl::Microseconds(500));  // exactly the first bound
  h.Observe(absl::Microseconds(501));  // the second bucket
  h.Observe(absl::Milliseconds(30));   // ≤ 0.05
  h.Observe(absl::Seconds(60));        // +Inf
  const LatencyHistogram::Snapshot s = h.Read();
  ASSERT_EQ(s.counts.size(), LatencyHistogram::kBounds.size() + 1);
  EXPECT_EQ(s.count, 4u);
  EXPECT_EQ(s.counts[0], 1u);
  EXPECT_EQ(s.counts[1], 1u);
  EXPECT_EQ(s.counts[6], 1u);  // (0.025, 0.05]
  EXPECT_EQ(s.counts.back(), 1u);
  EXPECT_NEAR(s.sum_seconds, 0.0005 + 0.000501 + 0.03 + 60, 1e-9);
}

TEST(ServerStats, CountsOutcomesByCode) {
  ServerStats stats;
  stats.RecordUpload({absl::OkStatus(), absl::InvalidArgumentError("x"),
                      absl::OkStatus(), absl::FailedPreconditionError("y")},
                     absl::Milliseconds(3));
  stats.RecordEnrollment(true);
  stats.RecordEnrollment(false);
  stats.AddCharged(1'500'000'000);
  stats.AddCharged(-5);  // ignored
  stats.RecordCommit(absl::Milliseconds(1));
  const ServerStats::Snapshot s = stats.Read();
  EXPECT_EQ(s.report_outcomes[0], 2u);
  EXPECT_EQ(
      s.report_outcomes[static_cast<int>(absl::StatusCode::kInvalidArgument)],
      1u);
  EXPECT_EQ(s.report_outcomes[static_cast<int>(
                absl::StatusCode::kFailedPrecondition)],
            1u);
  EXPECT_EQ(s.enrollments, 1u);
  EXPECT_EQ(s.enrollments_refused, 1u);
  EXPECT_EQ(s.charged_nanos, 1'500'000'000u);
  EXPECT_EQ(s.upload_latency.count, 1u);
  EXPECT_EQ(s.commit_latency.count, 1u);
}

TEST(ServerStats, ConcurrentWritersLoseNothing) {
  ServerStats stats;
  constexpr int kThreads = 4, kCalls = 20'000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kCalls; ++i) {
        stats.RecordUpload({absl::OkStatus()}, absl::Microseconds(i % 2000));
        stats.AddCharged(1);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  const ServerStats::Snapshot s = stats.Read();
  EXPECT_EQ(s.report_outcomes[0], uint64_t{kThreads * kCalls});
  EXPECT_EQ(s.charged_nanos, uint64_t{kThreads * kCalls});
  EXPECT_EQ(s.upload_latency.count, uint64_t{kThreads * kCalls});
}

}  // namespace
}  // namespace ldp
