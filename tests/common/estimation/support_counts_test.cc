#include "common/estimation/support_counts.h"

#include <cstdint>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace ldp {
namespace {

using ::testing::ElementsAre;

constexpr PureProtocol kProtocol{.p = 0.6, .q = 0.1};

TEST(SupportCounts, CountsSingleAndMultiItemReports) {
  SupportCounts support(4, kProtocol, 1.5);
  EXPECT_EQ(support.num_reports(), 0);
  support.AddReport(2);
  support.AddReport(std::vector<uint32_t>{0, 2, 3});
  EXPECT_THAT(support.counts(), ElementsAre(1, 0, 2, 1));
  EXPECT_EQ(support.num_reports(), 2);
}

TEST(SupportCounts, EstimateIsThePureProtocolEstimate) {
  SupportCounts support(3, kProtocol, 1.5);
  for (uint32_t item : {0, 0, 1, 2, 0}) support.AddReport(item);
  const HistogramEstimate expected =
      kProtocol.Estimate(std::vector<int64_t>{3, 1, 1}, 5, 1.5);
  const HistogramEstimate estimate = support.Estimate();
  EXPECT_EQ(estimate.num_reports, 5);
  EXPECT_EQ(estimate.epsilon, 1.5);
  EXPECT_EQ(estimate.frequencies, expected.frequencies);
  EXPECT_EQ(estimate.variances, expected.variances);
}

TEST(SupportCounts, MergeEqualsAddingEverythingToOne) {
  SupportCounts left(3, kProtocol, 1.5), right(3, kProtocol, 1.5),
      all(3, kProtocol, 1.5);
  for (uint32_t item : {0, 1, 1}) {
    left.AddReport(item);
    all.AddReport(item);
  }
  const std::vector<uint32_t> pair = {0, 2};
  right.AddReport(pair);
  all.AddReport(pair);
  left.Merge(right);
  EXPECT_THAT(left.counts(), ElementsAre(2, 2, 1));
  EXPECT_EQ(left.num_reports(), all.num_reports());
  EXPECT_EQ(left.Estimate().frequencies, all.Estimate().frequencies);
}

}  // namespace
}  // namespace ldp
