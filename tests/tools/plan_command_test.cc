// `ldp plan` in process: the forecast of a real spec file, and each bad
// option refused before any planning.
#include "tools/plan_command.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using ::ldp::testing::StatusIs;
using ::testing::HasSubstr;

const std::string kDemo =
    std::string(LDP_SOURCE_DIR) + "/deploy/examples/demo_study.textproto";

TEST(PlanCommand, ForecastsEveryQuestionOfTheDemoStudy) {
  ::testing::internal::CaptureStdout();
  const absl::Status status =
      RunPlanCommand(kDemo, {.agents = 1000, .target_error = 0.05});
  const std::string out = ::testing::internal::GetCapturedStdout();
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_THAT(out, HasSubstr("study \"demo"));
  for (const char* question : {"mean_income", "smoker_share", "region_by_age"}) {
    EXPECT_THAT(out, HasSubstr(question));
  }
  EXPECT_THAT(out, HasSubstr("central n(τ)"));
}

TEST(PlanCommand, RefusesBadOptionsAndMissingFiles) {
  EXPECT_THAT(RunPlanCommand(kDemo, {.simulate = true}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--agents")));
  EXPECT_THAT(RunPlanCommand(kDemo, {.confidence = 1.5}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("--confidence")));
  EXPECT_THAT(RunPlanCommand("/nonexistent/study.textproto", {}),
              StatusIs(absl::StatusCode::kNotFound));
}

}  // namespace
}  // namespace ldp
