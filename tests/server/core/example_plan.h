// One plan with a field of every kind set off its default, for the codec
// tests (storage and legacy) to round-trip and compare.
#ifndef LDP_TESTS_SERVER_CORE_EXAMPLE_PLAN_H_
#define LDP_TESTS_SERVER_CORE_EXAMPLE_PLAN_H_

#include "planning/planner.h"

namespace ldp::testing {

inline PlanDecisions ExamplePlan() {
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

// A workload question whose optimized matrix strategy is stored whole,
// with everything it is measured against.
inline QuestionDecision MatrixStrategyQuestion() {
  return {.epsilon_nanos = 1'000'000'000,
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
              .gamma2_upper = 2.5328}};
}

}  // namespace ldp::testing

#endif  // LDP_TESTS_SERVER_CORE_EXAMPLE_PLAN_H_
