#include "common/base/validation.h"

#include <cstdint>
#include <limits>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/test_values.h"

namespace ldp {
namespace {

using ::testing::HasSubstr;
using testing::StatusIs;

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
using ::ldp::testing::kInf;

TEST(ValidateEpsilon, AcceptsExactlyTheHalfOpenInterval) {
  EXPECT_OK(ValidateEpsilon("GRR", 1e-300, 20));
  EXPECT_OK(ValidateEpsilon("GRR", 1, 20));
  EXPECT_OK(ValidateEpsilon("GRR", 20, 20));
  for (double epsilon : {0.0, -0.0, -1.0, 20.000001, kNan, kInf, -kInf}) {
    EXPECT_THAT(ValidateEpsilon("GRR", epsilon, 20),
                StatusIs(absl::StatusCode::kInvalidArgument))
        << epsilon;
  }
}

TEST(ValidateEpsilon, UnboundedStillRejectsInfinityAndNan) {
  EXPECT_OK(ValidateEpsilon("local hashing", 1e6));
  for (double epsilon : {0.0, -1.0, kNan, kInf}) {
    EXPECT_THAT(ValidateEpsilon("local hashing", epsilon),
                StatusIs(absl::StatusCode::kInvalidArgument))
        << epsilon;
  }
}

TEST(ValidateEpsilon, MessagesNameTheMechanismTheRangeAndTheValue) {
  EXPECT_EQ(ValidateEpsilon("subset selection", -1, 20).message(),
            "subset selection: epsilon must be finite and in (0, 20], got -1");
  EXPECT_EQ(ValidateEpsilon("local hashing", 0).message(),
            "local hashing: epsilon must be finite and > 0, got 0");
  // No mechanism, no prefix.
  EXPECT_EQ(ValidateEpsilon("", 51, 50).message(),
            "epsilon must be finite and in (0, 50], got 51");
  EXPECT_EQ(std::string(ValidateEpsilonField("longitudinal",
                                             "epsilon_permanent", kNan, 20)
                            .message()),
            "longitudinal: epsilon_permanent must be finite and in (0, 20], "
            "got nan");
}

TEST(ValidateDomainSize, AcceptsExactlyTheClosedInterval) {
  EXPECT_OK(ValidateDomainSize("GRR", 2, 2, 16));
  EXPECT_OK(ValidateDomainSize("GRR", 16, 2, 16));
  EXPECT_OK(ValidateDomainSize("sketch", std::numeric_limits<uint32_t>::max(),
                               2, kUnboundedDomainSize));
  for (uint32_t n : {0u, 1u, 17u}) {
    EXPECT_THAT(ValidateDomainSize("GRR", n, 2, 16),
                StatusIs(absl::StatusCode::kInvalidArgument))
        << n;
  }
}

TEST(ValidateDomainSize, MessagesNameTheRangeAndAppendTheHint) {
  EXPECT_EQ(ValidateDomainSize("GRR", 1, 2, 16).message(),
            "GRR: domain_size must be in [2, 16], got 1");
  EXPECT_EQ(ValidateDomainSize("count-mean sketch", 1, 2, kUnboundedDomainSize)
                .message(),
            "count-mean sketch: domain_size must be at least 2, got 1");
  EXPECT_THAT(
      std::string(ValidateDomainSize("local hashing", 17, 2, 16, "use a sketch")
                      .message()),
      HasSubstr("must be in [2, 16], got 17 (use a sketch)"));
}

}  // namespace
}  // namespace ldp
