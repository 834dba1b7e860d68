#include "common/estimation/sample_size.h"

#include <cmath>

#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using testing::StatusIs;

TEST(ReportsNeeded, InvertsToleranceAchieved) {
  const double unit_variance = 4.6827;  // HR at ε = 1
  auto n =
      ReportsNeeded(unit_variance, {.tolerance = 0.01, .confidence = 0.95});
  ASSERT_OK(n);
  EXPECT_EQ(
      *n, static_cast<int64_t>(std::ceil(1.959963984540054 * 1.959963984540054 *
                                         unit_variance / 1e-4)));
  EXPECT_LE(ToleranceAchieved(unit_variance, *n, 0.95), 0.01);
  EXPECT_GT(ToleranceAchieved(unit_variance, *n - 1, 0.95), 0.01);
}

TEST(ReportsNeeded, RejectsBadGoals) {
  EXPECT_THAT(ReportsNeeded(1, {.tolerance = 0}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(ReportsNeeded(1, {.tolerance = 0.1, .confidence = 1}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(ReportsNeeded(NAN, {.tolerance = 0.1}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(ReportsNeeded(1e30, {.tolerance = 1e-10}),
              StatusIs(absl::StatusCode::kOutOfRange));
}

TEST(ReportsNeededHoeffding, MatchesTheBound) {
  auto n = ReportsNeededHoeffding(2.0, {.tolerance = 0.1, .confidence = 0.95});
  ASSERT_OK(n);
  EXPECT_EQ(*n, static_cast<int64_t>(std::ceil(4 * std::log(40.0) / 0.02)));
}

TEST(ReportsNeededSimultaneous, CostsMoreThanOne) {
  auto one = ReportsNeeded(1, {.tolerance = 0.01});
  auto many = ReportsNeededSimultaneous(1, 1024, {.tolerance = 0.01});
  ASSERT_OK(one);
  ASSERT_OK(many);
  EXPECT_GT(*many, 2 * *one);
  EXPECT_THAT(ReportsNeededSimultaneous(1, 0, {.tolerance = 0.01}),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

}  // namespace
}  // namespace ldp
