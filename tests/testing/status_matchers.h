// GoogleTest helpers for absl::Status / absl::StatusOr (Debian's Abseil has
// no status_matchers.h).
#ifndef LDP_TESTS_TESTING_STATUS_MATCHERS_H_
#define LDP_TESTS_TESTING_STATUS_MATCHERS_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace ldp::testing {

inline const absl::Status& GetStatus(const absl::Status& status) {
  return status;
}
template <typename T>
const absl::Status& GetStatus(const absl::StatusOr<T>& status_or) {
  return status_or.status();
}

MATCHER(IsOk, "is OK") { return ::ldp::testing::GetStatus(arg).ok(); }

MATCHER_P(StatusIs, code, "has status code " + ::testing::PrintToString(code)) {
  const absl::Status& status = ::ldp::testing::GetStatus(arg);
  *result_listener << "status is " << status;
  return status.code() == code;
}

// The code, and a message matching `message_matcher` (e.g. HasSubstr).
MATCHER_P2(StatusIs, code, message_matcher,
           "has status code " + ::testing::PrintToString(code) +
               " and a matching message") {
  const absl::Status& status = ::ldp::testing::GetStatus(arg);
  *result_listener << "status is " << status;
  return status.code() == code &&
         ::testing::ExplainMatchResult(
             message_matcher, std::string(status.message()), result_listener);
}

// An OK StatusOr whose value matches `matcher`.
MATCHER_P(IsOkAndHolds, matcher, "is OK and holds a matching value") {
  if (!arg.ok()) {
    *result_listener << "status is " << arg.status();
    return false;
  }
  return ::testing::ExplainMatchResult(matcher, *arg, result_listener);
}

}  // namespace ldp::testing

#define ASSERT_OK(expr) ASSERT_THAT((expr), ::ldp::testing::IsOk())
#define EXPECT_OK(expr) EXPECT_THAT((expr), ::ldp::testing::IsOk())

#endif  // LDP_TESTS_TESTING_STATUS_MATCHERS_H_
