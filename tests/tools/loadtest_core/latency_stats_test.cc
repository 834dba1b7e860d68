#include "tools/loadtest_core/latency_stats.h"

#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace ldp {
namespace {

TEST(LatencyStats, NearestRankQuantiles) {
  LatencyStats stats;
  EXPECT_EQ(stats.Quantile(0.5), absl::ZeroDuration());
  // 1..100 ms in a scrambled order.
  for (int i = 0; i < 100; ++i)
    stats.Record(absl::Milliseconds((i * 37) % 100 + 1));
  EXPECT_EQ(stats.count(), 100);
  EXPECT_EQ(stats.Quantile(0.5), absl::Milliseconds(50));
  EXPECT_EQ(stats.Quantile(0.99), absl::Milliseconds(99));
  EXPECT_EQ(stats.Quantile(1.0), absl::Milliseconds(100));
  EXPECT_EQ(stats.Quantile(0.0), absl::Milliseconds(1));
  EXPECT_EQ(stats.Quantile(0.001), absl::Milliseconds(1));
}

TEST(LatencyStats, RecordsFromManyThreads) {
  LatencyStats stats;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&stats] {
      for (int i = 0; i < 1000; ++i) stats.Record(absl::Microseconds(i));
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(stats.count(), 4000);
  EXPECT_EQ(stats.Quantile(0.5), absl::Microseconds(499));
}

}  // namespace
}  // namespace ldp
