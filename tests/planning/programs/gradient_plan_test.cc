// The gradient plan: the planner's k is the argmin of its stated criterion
// (checked against a brute force over every k, not against a copy of the
// table), the documented picks, the blocks, the charge, and bad input.
#include "planning/programs/gradient_plan.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "gtest/gtest.h"
#include "planning/programs/scalar_mechanism_choice.h"
#include "tests/testing/epsilon_nanos.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/test_values.h"

namespace ldp {
namespace {

using ::ldp::testing::kEps;
using ::ldp::testing::kInvalid;
using ::ldp::testing::StatusIs;

// ⌈D/k⌉ · max_x E[Decode²] at ε/k, straight from the shared choice.
double Criterion(int64_t cap, double clip, int dims, int k) {
  absl::StatusOr<SqMechanismChoice> choice = ChooseScalarMechanism(
      (cap / k) * 1e-9, clip, MechanismCriterion::kMechanismVariance);
  EXPECT_OK(choice);
  return ((dims + k - 1) / k) * choice->report_variance;
}

TEST(GradientPlanTest, TheAutomaticKMinimizesTheStatedVarianceBound) {
  for (double eps : {0.5, 1.0, 2.0, 3.0, 4.0, 8.0}) {
    for (int dims : {3, 31, 65}) {
      const int64_t cap = std::llround(eps * kEps);
      absl::StatusOr<GradientPlan> plan =
          PlanGradientReports(cap, 0.1, dims, /*coordinates_per_agent=*/0);
      ASSERT_OK(plan);
      int best = 1;
      for (int k = 2; k <= std::min(dims, kMaxCoordinatesPerAgent); ++k) {
        if (Criterion(cap, 0.1, dims, k) < Criterion(cap, 0.1, dims, best)) {
          best = k;
        }
      }
      EXPECT_EQ(plan->coordinates_per_agent, best)
          << "ε = " << eps << ", D = " << dims;
      EXPECT_DOUBLE_EQ(plan->variance_factor, Criterion(cap, 0.1, dims, best));
    }
  }
}

// The header's figures for D = 65 (digits): one coordinate per agent up to
// ε = 2, two at ε = 4, three at ε = 8; the clip scales every variance by c²
// alike, so it does not move k.
TEST(GradientPlanTest, PicksTheDocumentedK) {
  const struct {
    double eps;
    int k;
  } kCases[] = {{0.5, 1}, {1, 1}, {2, 1}, {4, 2}, {8, 3}};
  for (const auto& c : kCases) {
    for (double clip : {0.1, 0.25}) {
      absl::StatusOr<GradientPlan> plan =
          PlanGradientReports(std::llround(c.eps * kEps), clip, 65, 0);
      ASSERT_OK(plan);
      EXPECT_EQ(plan->coordinates_per_agent, c.k)
          << "ε = " << c.eps << ", c = " << clip;
    }
  }
}

TEST(GradientPlanTest,
     AnExplicitKChargesAtMostTheCapAndUsesTheChoiceAtEpsOverK) {
  const int64_t cap = 4 * kEps + 1;  // not a multiple of 3
  absl::StatusOr<GradientPlan> plan = PlanGradientReports(cap, 0.25, 10, 3);
  ASSERT_OK(plan);
  EXPECT_EQ(plan->coordinates_per_agent, 3);
  EXPECT_EQ(plan->epsilon_nanos_per_report, cap / 3);
  EXPECT_LE(3 * plan->epsilon_nanos_per_report, cap);
  absl::StatusOr<SqMechanismChoice> choice = ChooseScalarMechanism(
      (cap / 3) * 1e-9, 0.25, MechanismCriterion::kMechanismVariance);
  ASSERT_OK(choice);
  EXPECT_EQ(plan->kind, choice->kind);
  EXPECT_EQ(plan->Describe(),
            "3 coordinates per agent at ε/3 = 1.33333 each, hybrid");
  absl::StatusOr<GradientPlan> one = PlanGradientReports(cap, 0.25, 10, 1);
  ASSERT_OK(one);
  EXPECT_EQ(one->epsilon_nanos_per_report, cap);
  EXPECT_EQ(one->Describe(),
            "1 coordinate per agent at the full ε = 4, hybrid");
}

// The k blocks tile [0, D) in order, each one or two coordinates wide here,
// so every coordinate is asked in exactly one of a step's rounds.
TEST(GradientPlanTest, BlocksTileTheCoordinates) {
  for (int dims : {1, 2, 3, 7, 16, 65}) {
    for (int k = 1; k <= std::min(dims, kMaxCoordinatesPerAgent); ++k) {
      absl::StatusOr<GradientPlan> plan =
          PlanGradientReports(2 * kEps, 0.25, dims, k);
      ASSERT_OK(plan);
      EXPECT_EQ(plan->BlockBegin(0), 0);
      EXPECT_EQ(plan->BlockEnd(k - 1), dims);
      for (int b = 0; b < k; ++b) {
        const int width = plan->BlockEnd(b) - plan->BlockBegin(b);
        EXPECT_GE(width, dims / k) << "D = " << dims << ", k = " << k;
        EXPECT_LE(width, (dims + k - 1) / k) << "D = " << dims << ", k = " << k;
      }
    }
  }
}

// One spelling for the program parameter and the experiment's flag.
TEST(GradientPlanTest, ParsesAutoOrAPositiveInteger) {
  EXPECT_EQ(*ParseCoordinatesPerAgent("auto"), 0);
  EXPECT_EQ(*ParseCoordinatesPerAgent("3"), 3);
  for (const char* bad : {"0", "-1", "", "2.5", "two", "Auto"}) {
    EXPECT_THAT(ParseCoordinatesPerAgent(bad), StatusIs(kInvalid)) << bad;
  }
}

TEST(GradientPlanTest, RefusesWhatCannotBePlanned) {
  EXPECT_THAT(PlanGradientReports(0, 0.25, 3, 0), StatusIs(kInvalid));
  EXPECT_THAT(PlanGradientReports(kEps, 0, 3, 0), StatusIs(kInvalid));
  EXPECT_THAT(PlanGradientReports(kEps, NAN, 3, 0), StatusIs(kInvalid));
  EXPECT_THAT(PlanGradientReports(kEps, 0.25, 0, 0), StatusIs(kInvalid));
  EXPECT_THAT(PlanGradientReports(kEps, 0.25, 3, -1), StatusIs(kInvalid));
  EXPECT_THAT(PlanGradientReports(kEps, 0.25, 3, 4), StatusIs(kInvalid));
  EXPECT_THAT(PlanGradientReports(kEps, 0.25, 65, kMaxCoordinatesPerAgent + 1),
              StatusIs(kInvalid));
  // ε/k must be at least one nano-ε.
  EXPECT_THAT(PlanGradientReports(2, 0.25, 3, 3), StatusIs(kInvalid));
}

}  // namespace
}  // namespace ldp
