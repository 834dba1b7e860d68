// The threshold learners: their plans (rounds, tolerances, predicted agents),
// parameter checks, and PAC recovery on simulated populations through the
// registry and the in-process simulator.
#include "planning/programs/threshold_learner.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <random>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planning/program_simulator.h"
#include "planning/programs/program_registry.h"
#include "planning/programs/program_schedule.h"
#include "planning/programs/sq_program.h"
#include "tests/testing/epsilon_nanos.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/test_values.h"

namespace ldp {
namespace {

using ::ldp::testing::StatusIs;
using ::testing::HasSubstr;

using ::ldp::testing::kEps;

ProgramSpec Spec(std::string mode, double accuracy, double beta = 0.05) {
  return {.name = "threshold_learner",
          .parameters = {{"mode", std::move(mode)},
                         {"accuracy", std::to_string(accuracy)},
                         {"failure_probability", std::to_string(beta)}}};
}

ProgramContext ThresholdContext(int64_t n) {
  return {.schema = *ThresholdSchema(n), .epsilon_cap_nanos = kEps};
}

StudySpec Study(int64_t n, ProgramSpec spec) {
  return {.schema = *ThresholdSchema(n),
          .epsilon_cap_nanos = kEps,
          .mode = StudyMode::kInteractive,
          .program = std::move(spec)};
}

using ::ldp::testing::SplitMix64;

// x uniform on [0, n − 1], y = [x ≥ t*] flipped with probability `noise`;
// a pure function of (seed, agent).
RecordSource Population(int64_t n, int64_t t_star, uint64_t seed,
                        double noise = 0) {
  return [=](uint64_t agent) {
    const uint64_t h = SplitMix64(seed * 0xD1B54A32D192ED03ULL + agent);
    const int64_t x = static_cast<int64_t>((h >> 32) % n);
    const bool flip = static_cast<double>(h & 0xFFFFFFFF) * 0x1.0p-32 < noise;
    Record r;
    r.values["x"] = x;
    r.values["y"] = (x >= t_star) != flip;
    return r;
  };
}

// err(t) under that population: η + (1 − 2η)·|t − t*|/n.
double Error(int64_t n, int64_t t_star, int64_t t, double noise = 0) {
  return noise +
         (1 - 2 * noise) * std::abs(t - t_star) / static_cast<double>(n);
}

TEST(ThresholdLearnerTest, AdaptivePlanIsABinarySearch) {
  for (int64_t n : {2, 16, 64, 256}) {
    auto alg =
        CreateThresholdSqAlgorithm(Spec("adaptive", 0.1), ThresholdContext(n));
    ASSERT_OK(alg);
    const auto plan = (*alg)->Plan();
    // ⌈log2(n + 1)⌉ rounds of one query, τ = α/2, β/K each.
    const int rounds = static_cast<int>(std::ceil(std::log2(n + 1.0)));
    ASSERT_EQ(plan.size(), static_cast<size_t>(rounds)) << n;
    for (const auto& batch : plan) {
      ASSERT_EQ(batch.size(), 1u);
      EXPECT_DOUBLE_EQ(batch[0].tolerance, 0.05);
      EXPECT_DOUBLE_EQ(batch[0].failure_probability, 0.05 / rounds);
    }
    auto program = CreateThresholdLearnerProgram(Spec("adaptive", 0.1),
                                                 ThresholdContext(n));
    ASSERT_OK(program);
    EXPECT_OK(CheckSchedule((*program)->Schedule(), kEps));
    EXPECT_EQ(MaxScheduledSpend((*program)->Schedule()), kEps);
  }
}

TEST(ThresholdLearnerTest, NonadaptivePlanIsOneRoundOfEveryCandidate) {
  auto alg = CreateThresholdSqAlgorithm(Spec("nonadaptive", 0.1),
                                        ThresholdContext(16));
  ASSERT_OK(alg);
  const auto plan = (*alg)->Plan();
  ASSERT_EQ(plan.size(), 1u);
  ASSERT_EQ(plan[0].size(), 17u);
  EXPECT_EQ(plan[0][0].id, "err(0)");
  EXPECT_EQ(plan[0][16].id, "err(16)");
  EXPECT_DOUBLE_EQ(plan[0][3].failure_probability, 0.05 / 17);
  // Adaptive needs ⌈log2 17⌉ = 5 queries at β/5; nonadaptive 17 at β/17.
  auto adaptive =
      CreateThresholdSqAlgorithm(Spec("adaptive", 0.1), ThresholdContext(16));
  ASSERT_OK(adaptive);
  auto n_adaptive = PredictedAgents(**adaptive, 1.0);
  auto n_nonadaptive = PredictedAgents(**alg, 1.0);
  ASSERT_OK(n_adaptive);
  ASSERT_OK(n_nonadaptive);
  EXPECT_LT(*n_adaptive * 3, *n_nonadaptive);
}

TEST(ThresholdLearnerTest, RejectsBadParametersAndSchemas) {
  const auto bad = [](ProgramSpec spec, ProgramContext context) {
    return CreateThresholdLearnerProgram(spec, context).status();
  };
  EXPECT_THAT(bad(Spec("sideways", 0.1), ThresholdContext(16)),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(bad(Spec("adaptive", 0.9), ThresholdContext(16)),
              StatusIs(absl::StatusCode::kInvalidArgument));
  ProgramSpec misspelt = Spec("adaptive", 0.1);
  misspelt.parameters["acuracy"] = "0.1";
  EXPECT_THAT(bad(misspelt, ThresholdContext(16)),
              StatusIs(absl::StatusCode::kInvalidArgument));
  ProgramSpec wrong_field = Spec("adaptive", 0.1);
  wrong_field.parameters["feature"] = "y";
  const absl::Status status = bad(wrong_field, ThresholdContext(16));
  EXPECT_THAT(status, StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(status.message(), HasSubstr("int field"));
  EXPECT_THAT(ThresholdSchema(1).status(),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(ThresholdSchema(kMaxThresholdDomainSize + 1).status(),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

// Runs one learner on `runs` seeded populations of predicted-n agents and
// returns how many reached error ≤ α (+ the noise level, which is OPT).
int Successes(const std::string& mode, int64_t n, double alpha, int runs,
              double noise = 0) {
  const StudySpec study = Study(n, Spec(mode, alpha));
  auto alg = CreateThresholdSqAlgorithm(*study.program, ThresholdContext(n));
  EXPECT_OK(alg);
  auto agents = PredictedAgents(**alg, 1.0);
  EXPECT_OK(agents);
  int ok = 0;
  for (int seed = 1; seed <= runs; ++seed) {
    const int64_t t_star = static_cast<int64_t>(SplitMix64(seed) % (n + 1));
    std::mt19937_64 coins(seed * 31 + n);
    auto run = SimulateStudy(study, *agents, Population(n, t_star, seed, noise),
                             coins);
    EXPECT_OK(run);
    if (!run.ok()) continue;
    EXPECT_EQ(run->refused_over_cap, 0);
    EXPECT_LE(run->max_spent_nanos, kEps);
    auto t = ThresholdFromResult(run->result);
    EXPECT_OK(t);
    ok += Error(n, t_star, *t, noise) <= noise + alpha;
  }
  return ok;
}

// Each run fails with probability ≤ β = 0.05 at the predicted n, so over 10
// runs P[≥ 4 failures] ≤ C(10,4)·0.05⁴ < 0.002: we allow 3.
TEST(ThresholdLearnerTest, AdaptiveLearnsARealizableThreshold) {
  EXPECT_GE(Successes("adaptive", 64, 0.1, 10), 7);
}

TEST(ThresholdLearnerTest, NonadaptiveLearnsARealizableThreshold) {
  EXPECT_GE(Successes("nonadaptive", 16, 0.1, 10), 7);
}

// Agnostic: 10% of labels flipped, so OPT = 0.1 and the guarantee is
// err ≤ OPT + α.
TEST(ThresholdLearnerTest, NonadaptiveIsAgnostic) {
  EXPECT_GE(Successes("nonadaptive", 16, 0.1, 5, 0.1), 3);
}

// The result states t̂, an error estimate whose interval holds the truth,
// and the predicted n.
TEST(ThresholdLearnerTest, ResultStatesThresholdErrorAndPredictedN) {
  const int64_t n = 32, t_star = 20;
  for (const std::string mode : {"adaptive", "nonadaptive"}) {
    const StudySpec study = Study(n, Spec(mode, 0.1));
    auto alg = CreateThresholdSqAlgorithm(*study.program, ThresholdContext(n));
    ASSERT_OK(alg);
    auto agents = PredictedAgents(**alg, 1.0);
    ASSERT_OK(agents);
    std::mt19937_64 coins(99);
    auto run = SimulateStudy(study, *agents, Population(n, t_star, 4), coins);
    ASSERT_OK(run);
    std::map<std::string, ProgramValue> values;
    for (const ProgramValue& v : run->result.values) values[v.name] = v;
    ASSERT_TRUE(values.count("threshold"));
    ASSERT_TRUE(values.count("error"));
    ASSERT_TRUE(values.count("predicted_agents"));
    EXPECT_EQ(values["predicted_agents"].value, *agents);
    const int64_t t = std::llround(values["threshold"].value);
    ASSERT_TRUE(values["error"].interval.has_value());
    EXPECT_TRUE(values["error"].interval->Contains(Error(n, t_star, t)))
        << mode << ": t̂ = " << t << ", " << run->result.summary;
  }
}

}  // namespace
}  // namespace ldp
