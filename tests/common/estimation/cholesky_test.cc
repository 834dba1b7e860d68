#include "common/estimation/cholesky.h"

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using testing::StatusIs;

// A = [[4, 2, 0.4], [2, 5, 1], [0.4, 1, 3]]: solve and invert, checked by
// multiplying back.
TEST(CholeskyFactor, SolvesAndInvertsASymmetricPositiveDefiniteMatrix) {
  const std::vector<double> a = {4, 2, 0.4, 2, 5, 1, 0.4, 1, 3};
  auto factor = CholeskyFactor::Factor(a, 3);
  ASSERT_OK(factor);
  const std::vector<double> b = {1, -2, 0.5};
  const std::vector<double> x = factor->Solve(b);
  for (size_t i = 0; i < 3; ++i) {
    double row = 0;
    for (size_t j = 0; j < 3; ++j) row += a[i * 3 + j] * x[j];
    EXPECT_NEAR(row, b[i], 1e-12);
  }
  const std::vector<double> inverse = factor->Inverse();
  for (size_t i = 0; i < 3; ++i) {
    for (size_t j = 0; j < 3; ++j) {
      double entry = 0;
      for (size_t k = 0; k < 3; ++k) entry += a[i * 3 + k] * inverse[k * 3 + j];
      EXPECT_NEAR(entry, i == j ? 1.0 : 0.0, 1e-12) << i << "," << j;
    }
  }
}

TEST(CholeskyFactor, RefusesSingularAndMisshapenMatrices) {
  EXPECT_THAT(CholeskyFactor::Factor({1, 1, 1, 1}, 2),
              StatusIs(absl::StatusCode::kFailedPrecondition));
  EXPECT_THAT(CholeskyFactor::Factor({1, 0, 0, -1}, 2),
              StatusIs(absl::StatusCode::kFailedPrecondition));
  EXPECT_THAT(CholeskyFactor::Factor({1, 0, 0}, 2),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

}  // namespace
}  // namespace ldp
