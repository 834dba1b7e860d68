#include "server/plan_codec.h"

#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using testing::StatusIs;

PlanDecisions Example() {
  return {
      .strategy = SplitStrategy::kEpsilonSplitting,
      .questions =
          {{.epsilon_nanos = 500'000'000,
            .weight = 1,
            .randomizer =
                RealMechanismSpec{.kind = RealMechanismKind::kDiscreteLaplace,
                                  .epsilon = 0.5,
                                  .bound = 2.5,
                                  .resolution_bits = 7,
                                  .num_cells = 0}},
           {.epsilon_nanos = 250'000'000,
            .weight = 1'000'000,
            .randomizer =
                FrequencyOracleSpec{
                    .kind = FrequencyOracleKind::kHadamardCountMeanSketch,
                    .epsilon = 0.25,
                    .domain_size = 1u << 30,
                    .num_buckets = 1,
                    .subset_size = 2,
                    .num_hashes = 16,
                    .num_columns = 1024,
                    .hash_seed = 0xfeedfacecafebeef,
                    .epsilon_permanent = 3.5}}},
      .explanation = "because"};
}

TEST(PlanCodec, RoundTripsEveryField) {
  const PlanDecisions plan = Example();
  absl::StatusOr<PlanDecisions> decoded = DecodePlan(EncodePlan(plan));
  ASSERT_OK(decoded);
  EXPECT_EQ(decoded->strategy, plan.strategy);
  EXPECT_EQ(decoded->explanation, plan.explanation);
  ASSERT_EQ(decoded->questions.size(), 2u);
  const auto& real =
      std::get<RealMechanismSpec>(decoded->questions[0].randomizer);
  EXPECT_EQ(real.kind, RealMechanismKind::kDiscreteLaplace);
  EXPECT_EQ(real.epsilon, 0.5);
  EXPECT_EQ(real.bound, 2.5);
  EXPECT_EQ(real.resolution_bits, 7);
  const auto& oracle =
      std::get<FrequencyOracleSpec>(decoded->questions[1].randomizer);
  EXPECT_EQ(decoded->questions[1].epsilon_nanos, 250'000'000);
  EXPECT_EQ(decoded->questions[1].weight, 1'000'000u);
  EXPECT_EQ(oracle.kind, FrequencyOracleKind::kHadamardCountMeanSketch);
  EXPECT_EQ(oracle.domain_size, 1u << 30);
  EXPECT_EQ(oracle.num_hashes, 16u);
  EXPECT_EQ(oracle.num_columns, 1024u);
  EXPECT_EQ(oracle.subset_size, 2u);
  EXPECT_EQ(oracle.num_buckets, 1u);
  EXPECT_EQ(oracle.hash_seed, 0xfeedfacecafebeefu);
  EXPECT_EQ(oracle.epsilon_permanent, 3.5);
  EXPECT_EQ(EncodePlan(*decoded), EncodePlan(plan));
}

TEST(PlanCodec, RejectsCorruptPlans) {
  const std::string good = EncodePlan(Example());
  EXPECT_THAT(DecodePlan(""), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(DecodePlan(good + "x"),
              StatusIs(absl::StatusCode::kInvalidArgument));
  for (size_t length = 1; length < good.size(); ++length) {
    EXPECT_THAT(DecodePlan(good.substr(0, length)),
                StatusIs(absl::StatusCode::kInvalidArgument))
        << length;
  }
  std::string bad_strategy = good;
  bad_strategy[1] = 2;
  EXPECT_THAT(DecodePlan(bad_strategy),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(PlanCodec, RoundTripsProgramRounds) {
  PlanDecisions plan = Example();
  plan.strategy = SplitStrategy::kSampleSplitting;
  plan.from_program = true;
  plan.round_name = "learn a";
  plan.slice = {.begin = 0.5, .end = 0.75};
  plan.questions_bytes = std::string("\0\1questions", 11);
  absl::StatusOr<PlanDecisions> decoded = DecodePlan(EncodePlan(plan));
  ASSERT_OK(decoded);
  EXPECT_TRUE(decoded->from_program);
  EXPECT_EQ(decoded->round_name, "learn a");
  EXPECT_EQ(decoded->slice, plan.slice);
  EXPECT_EQ(decoded->questions_bytes, plan.questions_bytes);
  EXPECT_EQ(EncodePlan(*decoded), EncodePlan(plan));
  // A slice outside [0, 1) is corrupt.
  plan.slice = {.begin = 0.5, .end = 1.5};
  EXPECT_THAT(DecodePlan(EncodePlan(plan)),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

// A workload question's strategy is stored whole (an optimized matrix with
// it), so a restart never plans again.
TEST(PlanCodec, RoundTripsWorkloadStrategies) {
  PlanDecisions plan = Example();
  plan.questions.push_back(
      {.epsilon_nanos = 1'000'000'000,
       .weight = 3,
       .randomizer = StrategyDecision{
           .spec = {.kind = StrategyKind::kMatrix,
                    .epsilon = 1,
                    .domain_size = 2,
                    .level_weights = {},
                    .rows = 3,
                    .matrix = {0.5, 0.25, 0.25, 0.5, 0.25, 0.25}},
           .description = "optimized matrix K=3",
           .v_max = 25.1,
           .v_avg = 17.5,
           .best_fixed = "haar, HRR",
           .best_fixed_v_max = 37.5,
           .gamma2_lower = 2.5327,
           .gamma2_upper = 2.5328}});
  plan.questions.push_back(
      {.epsilon_nanos = 7,
       .randomizer = StrategyDecision{
           .spec = {.kind = StrategyKind::kFourier,
                    .epsilon = 7e-9,
                    .domain_size = 256,
                    .num_bits = 8,
                    .order = 2,
                    .level_weights = {0.25, 1.5},
                    .rows = 0,
                    .matrix = {}},
           .description = "fourier d=8 k=2"}});
  const std::string bytes = EncodePlan(plan);
  absl::StatusOr<PlanDecisions> decoded = DecodePlan(bytes);
  ASSERT_OK(decoded);
  ASSERT_EQ(decoded->questions.size(), 4u);
  for (int q = 2; q < 4; ++q) {
    EXPECT_EQ(std::get<StrategyDecision>(decoded->questions[q].randomizer),
              std::get<StrategyDecision>(plan.questions[q].randomizer));
    EXPECT_EQ(decoded->questions[q].epsilon_nanos,
              plan.questions[q].epsilon_nanos);
  }
  EXPECT_EQ(EncodePlan(*decoded), bytes);
  for (size_t length = 1; length < bytes.size(); length += 7) {
    EXPECT_THAT(DecodePlan(bytes.substr(0, length)),
                StatusIs(absl::StatusCode::kInvalidArgument))
        << length;
  }
}

// Databases written before program rounds existed hold version-1 plans: the
// same bytes without the trailer.
TEST(PlanCodec, ReadsVersionOnePlans) {
  std::string v1 = EncodePlan(Example());
  ASSERT_EQ(v1.back(), 0);  // "not a program round"
  v1.pop_back();
  v1[0] = 1;
  absl::StatusOr<PlanDecisions> decoded = DecodePlan(v1);
  ASSERT_OK(decoded);
  EXPECT_FALSE(decoded->from_program);
  EXPECT_EQ(decoded->questions.size(), 2u);
}

}  // namespace
}  // namespace ldp
