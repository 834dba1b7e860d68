// `ldp plan` in process: the forecast of a real spec file, γ₂'s interval
// as printed, and each bad option refused before any planning.
#include "tools/plan_command/plan_command.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"
#include "tools/plan_command/gamma2_text.h"

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
  for (const char* question :
       {"mean_income", "smoker_share", "region_by_age"}) {
    EXPECT_THAT(out, HasSubstr(question));
  }
  EXPECT_THAT(out, HasSubstr("central n(τ)"));
}

// The example of a repeated question: the planner picks L-GRR for 8 values
// at ε = 1 (GRR beats the unary encodings below N = 3e + 2).
TEST(PlanCommand, PicksALongitudinalOracleForTheTelemetryExample) {
  ::testing::internal::CaptureStdout();
  const absl::Status status =
      RunPlanCommand(std::string(LDP_SOURCE_DIR) +
                         "/deploy/examples/telemetry_study.textproto",
                     {.agents = 100000});
  const std::string out = ::testing::internal::GetCapturedStdout();
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_THAT(out, HasSubstr("longitudinal_grr"));
}

TEST(PlanCommand, RefusesBadOptionsAndMissingFiles) {
  EXPECT_THAT(
      RunPlanCommand(kDemo, {.simulate = true}),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--agents")));
  EXPECT_THAT(
      RunPlanCommand(kDemo, {.confidence = 1.5}),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--confidence")));
  EXPECT_THAT(RunPlanCommand("/nonexistent/study.textproto", {}),
              StatusIs(absl::StatusCode::kNotFound));
}

// The printed interval is rounded outwards, never inwards, at every scale.
TEST(Gamma2IntervalText, RoundsOutwards) {
  for (double x : {1.0, 1.5694792169, 1.56947921695, 0.99999999995, 2.5e-7,
                   123456.78949, 31.622776601683793}) {
    const std::string text = Gamma2IntervalText(x, x);
    double lower = 0, upper = 0;
    ASSERT_EQ(std::sscanf(text.c_str(), "gamma2(W) certified in [%lf, %lf]",
                          &lower, &upper),
              2)
        << text;
    EXPECT_LE(lower, x) << text;
    EXPECT_GE(upper, x) << text;
    EXPECT_LE(upper - lower, 2e-9 * x) << text;  // 10 significant digits
  }
}

// A workload question's plan shows γ₂(W)'s certified interval, lower bound
// first, and as printed it brackets the closed form: all 2-way marginals over 4
// bits have γ₂ = 1/4 + 1/√2 + √6/4.
TEST(PlanCommand, ShowsTheGamma2IntervalOfAWorkloadQuestion) {
  const std::string path = ::testing::TempDir() + "/marginals.textproto";
  std::ofstream(path) << R"pb(
    display_name: "pairs" epsilon_cap_nanos: 1000000000 mode: NONINTERACTIVE
    schema {
      fields { name: "a" bool_field {} } fields { name: "b" bool_field {} }
      fields { name: "c" bool_field {} } fields { name: "d" bool_field {} }
    }
    questions {
      question_id: "pairs"
      workload {
        encoding { product {
          fields { field: "a" } fields { field: "b" }
          fields { field: "c" } fields { field: "d" }
        } }
        workload { kind: MARGINALS order: 2 }
      }
    }
  )pb";
  ::testing::internal::CaptureStdout();
  const absl::Status status = RunPlanCommand(path, {.agents = 1000});
  const std::string out = ::testing::internal::GetCapturedStdout();
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_THAT(out, HasSubstr("pairs: strategy "));
  const std::string label = "gamma2(W) certified in [";
  const size_t at = out.find(label);
  ASSERT_NE(at, std::string::npos) << out;
  double lower = 0, upper = 0;
  ASSERT_EQ(std::sscanf(out.c_str() + at + label.size(),
                        "%lf, %lf] (dual "
                        "lower bound, factorization found)",
                        &lower, &upper),
            2)
      << out.substr(at);
  const double exact = 0.25 + 1 / std::sqrt(2.0) + std::sqrt(6.0) / 4;
  EXPECT_LE(lower, exact);
  // Printed to 10 digits, rounded outwards: still an interval around γ₂.
  EXPECT_GE(upper, exact);
  EXPECT_GT(lower, exact * 0.999);
}

}  // namespace
}  // namespace ldp
