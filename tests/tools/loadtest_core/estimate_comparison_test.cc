#include "tools/loadtest_core/estimate_comparison.h"

#include <cmath>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using testing::StatusIs;

TEST(CompareScalar, MeasuresTheErrorInStandardErrors) {
  const ScalarEstimate estimate{.value = 0.52,
                                .standard_error = 0.01,
                                .interval = {0.50, 0.54},
                                .confidence = 0.95};
  const ComparedValue v = CompareScalar(estimate, 0.5, "mean value");
  EXPECT_NEAR(v.z, 2.0, 1e-9);
  EXPECT_TRUE(v.covered);
  EXPECT_FALSE(CompareScalar(estimate, 0.49, "x").covered);
  ScalarEstimate exact;
  exact.value = 1;
  EXPECT_EQ(CompareScalar(exact, 1, "x").z, 0);
  EXPECT_TRUE(std::isinf(CompareScalar(exact, 0, "x").z));
  const std::string table = FormatScalarComparison(v);
  EXPECT_NE(table.find("mean value"), std::string::npos);
  EXPECT_NE(table.find("+2.00"), std::string::npos);
}

TEST(CompareHistogram, ComparesEveryItemAndSummarizes) {
  HistogramEstimate estimate{.num_reports = 100,
                             .frequencies = {0.5, 0.3, 0.25, -0.05},
                             .variances = {0.0001, 0.0004, 0.0001, 0.0001}};
  const std::vector<double> truth = {0.5, 0.2, 0.25, 0.05};
  auto comparison = CompareHistogram(estimate, truth, {}, 0.95);
  ASSERT_OK(comparison);
  ASSERT_EQ(comparison->items.size(), 4u);
  EXPECT_EQ(comparison->items[1].label, "1");
  EXPECT_NEAR(comparison->items[0].z, 0, 1e-12);
  EXPECT_NEAR(comparison->items[1].z, 5, 1e-9);    // 0.1 / 0.02
  EXPECT_NEAR(comparison->items[3].z, -10, 1e-9);  // -0.1 / 0.01
  EXPECT_NEAR(comparison->items[1].standard_error, 0.02, 1e-12);
  EXPECT_EQ(comparison->num_covered, 2);
  EXPECT_NEAR(comparison->max_abs_z, 10, 1e-9);
  EXPECT_NEAR(comparison->root_mean_square_z, std::sqrt((25.0 + 100.0) / 4),
              1e-9);
  // Top 2 by truth: items 0 and 2; the rest summarized.
  const std::string table = FormatHistogramComparison(*comparison, 2);
  EXPECT_LT(table.find("\n  0 "), table.find("\n  2 "));
  EXPECT_EQ(table.find("\n  1 "), std::string::npos);
  EXPECT_NE(table.find("2 more items"), std::string::npos);
  EXPECT_NE(table.find("2 of 4 (50.0%)"), std::string::npos);
}

TEST(CompareHistogram, RejectsMismatchedInputs) {
  HistogramEstimate estimate{.frequencies = {0.5, 0.5},
                             .variances = {0.1, 0.1}};
  EXPECT_THAT(CompareHistogram(estimate, {0.5}, {}, 0.95),
              StatusIs(absl::StatusCode::kInvalidArgument));
  const std::vector<std::string> one_label = {"a"};
  EXPECT_THAT(CompareHistogram(estimate, {0.5, 0.5}, one_label, 0.95),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(CompareHistogram(estimate, {0.5, 0.5}, {}, 1.0),
              StatusIs(absl::StatusCode::kInvalidArgument));
  const std::vector<std::string> labels = {"red", "blue"};
  auto labelled = CompareHistogram(estimate, {0.5, 0.5}, labels, 0.95);
  ASSERT_OK(labelled);
  EXPECT_EQ(labelled->items[1].label, "blue");
}

}  // namespace
}  // namespace ldp
