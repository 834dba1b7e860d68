// Logistic regression by private gradient descent: parameter checks, the
// budget schedule, the gradient queries' meaning and mechanism, the iterate
// average it releases, and a small simulated run on a synthetic linearly
// separable population with label noise.
#include "planning/programs/logistic_regression.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planning/program_simulator.h"
#include "planning/programs/gradient_plan.h"
#include "planning/programs/program_registry.h"
#include "planning/programs/scalar_mechanism_choice.h"
#include "tests/testing/epsilon_nanos.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/test_values.h"

namespace ldp {
namespace {

using ::ldp::testing::StatusIs;
using ::testing::HasSubstr;

using ::ldp::testing::kEps;
using ::ldp::testing::kInvalid;

// Two features: "u" real in [−1, 1] (so x̃ = x) and "v" real in [0, 4]
// (so x̃ = v/2 − 1), label "y", and a categorical a program must refuse.
RecordSchema LogisticSchema() {
  return *RecordSchema::Create(
      {FieldSpec::Real("u", -1, 1), FieldSpec::Real("v", 0, 4),
       FieldSpec::Bool("y"), FieldSpec::Categorical("c", {"a", "b"})});
}

ProgramContext LogisticContext(int64_t cap = 2 * kEps) {
  return {.schema = LogisticSchema(), .epsilon_cap_nanos = cap};
}

ProgramSpec Spec(std::map<std::string, std::string> extra = {}) {
  ProgramSpec spec{.name = "logistic_regression",
                   .parameters = {{"features", "u,v"}, {"label", "y"}}};
  for (auto& [k, v] : extra) spec.parameters[k] = v;
  return spec;
}

// The truth: y = [u + (v/2 − 1) > 0], flipped with probability kFlip, for
// u, v uniform on their ranges. Bayes accuracy is 1 − kFlip = 0.95.
constexpr double kFlip = 0.05;

Record Sample(std::mt19937_64& gen) {
  std::uniform_real_distribution<double> u(-1, 1), v(0, 4), coin(0, 1);
  Record r;
  const double a = u(gen), b = v(gen);
  r.values["u"] = a;
  r.values["v"] = b;
  r.values["y"] = (a + (b / 2 - 1) > 0) != (coin(gen) < kFlip);
  return r;
}

double Accuracy(const LogisticModel& m, uint64_t seed, int n) {
  std::mt19937_64 gen(seed);
  int correct = 0;
  for (int i = 0; i < n; ++i) {
    const Record r = Sample(gen);
    const double z = m.theta[0] * std::get<double>(r.values.at("u")) +
                     m.theta[1] * (std::get<double>(r.values.at("v")) / 2 - 1) +
                     m.bias;
    correct += (z > 0) == std::get<bool>(r.values.at("y"));
  }
  return static_cast<double>(correct) / n;
}

// A closed round whose estimates are the gradient g (θ-part, then bias).
RoundAnswers GradientRound(const std::vector<double>& g) {
  RoundAnswers round;
  for (size_t j = 0; j < g.size(); ++j) {
    ScalarEstimate estimate;
    estimate.value = g[j];
    estimate.num_reports = 100;
    round.answers.push_back(
        {.question_id = j + 1 == g.size() ? "grad[bias]"
                                          : "grad[" + std::to_string(j) + "]",
         .estimate = estimate});
  }
  return round;
}

LogisticModel ModelOf(const ProgramStep& step) {
  absl::StatusOr<LogisticModel> m = LogisticModelFromResult(step.result, 2);
  EXPECT_OK(m);
  return m.ok() ? *m : LogisticModel{.theta = {NAN, NAN}, .bias = NAN};
}

LogisticModel IterateOf(const ProgramStep& step) {
  absl::StatusOr<LogisticModel> m = LogisticIterateFromResult(step.result, 2);
  EXPECT_OK(m);
  return m.ok() ? *m : LogisticModel{.theta = {NAN, NAN}, .bias = NAN};
}

// Fixed gradients, so every iterate is known in closed form: with η_t =
// η/√(t + 1), θ_{t+1} = θ_t − η_t·g_t. 5 rounds, average_tail 0.4: the
// released model is the mean of θ_4 and θ_5, and before round 5 it is θ_4
// alone; before that, the current iterate.
TEST(LogisticRegressionTest, ReleasesTheMeanOfTheLastIterates) {
  auto program =
      CreateLogisticRegressionProgram(Spec({{"rounds", "5"},
                                            {"learning_rate", "0.5"},
                                            {"schedule", "inverse_sqrt"},
                                            {"average_tail", "0.4"},
                                            {"radius", "1000"}}),
                                      LogisticContext());
  ASSERT_OK(program);
  const std::vector<std::vector<double>> g = {{0.2, -0.1, 0.05},
                                              {-0.3, 0.4, 0},
                                              {0.1, 0.1, -0.2},
                                              {0, -0.25, 0.1},
                                              {0.15, 0.05, 0.3}};
  std::vector<LogisticModel> iterates = {{.theta = {0, 0}}};
  for (size_t t = 0; t < g.size(); ++t) {
    LogisticModel next = iterates.back();
    const double eta = 0.5 / std::sqrt(t + 1.0);
    next.theta[0] -= eta * g[t][0];
    next.theta[1] -= eta * g[t][1];
    next.bias -= eta * g[t][2];
    iterates.push_back(next);
  }
  std::vector<RoundAnswers> history;
  for (size_t t = 0; t <= g.size(); ++t) {
    absl::StatusOr<ProgramStep> step = (*program)->Next(history);
    ASSERT_OK(step);
    EXPECT_EQ(step->round.has_value(), t < g.size());
    const LogisticModel iterate = IterateOf(*step);
    EXPECT_NEAR(iterate.theta[0], iterates[t].theta[0], 1e-12) << t;
    EXPECT_NEAR(iterate.theta[1], iterates[t].theta[1], 1e-12) << t;
    EXPECT_NEAR(iterate.bias, iterates[t].bias, 1e-12) << t;
    LogisticModel expected = iterates[t];
    if (t == 5) {
      for (int j : {0, 1}) {
        expected.theta[j] = (iterates[4].theta[j] + iterates[5].theta[j]) / 2;
      }
      expected.bias = (iterates[4].bias + iterates[5].bias) / 2;
    }
    const LogisticModel released = ModelOf(*step);
    EXPECT_NEAR(released.theta[0], expected.theta[0], 1e-12) << t;
    EXPECT_NEAR(released.theta[1], expected.theta[1], 1e-12) << t;
    EXPECT_NEAR(released.bias, expected.bias, 1e-12) << t;
    if (t < g.size()) history.push_back(GradientRound(g[t]));
  }
  // average_tail = 0 releases the last iterate.
  auto last = CreateLogisticRegressionProgram(
      Spec({{"rounds", "5"}, {"average_tail", "0"}}), LogisticContext());
  ASSERT_OK(last);
  absl::StatusOr<ProgramStep> final_step = (*last)->Next(history);
  ASSERT_OK(final_step);
  EXPECT_EQ(ModelOf(*final_step).theta, IterateOf(*final_step).theta);
  EXPECT_EQ(ModelOf(*final_step).bias, IterateOf(*final_step).bias);
}

TEST(LogisticRegressionTest, RefusesBadParameters) {
  const struct {
    std::map<std::string, std::string> params;
    std::string message;
  } kCases[] = {
      {{{"features", ""}}, "must name 1 to"},
      {{{"features", "u,w"}}, "\"w\" is not in the schema"},
      {{{"features", "u,c"}}, "must be a real or int field"},
      {{{"label", "u"}}, "must name a bool field"},
      {{{"label", ""}}, "must name a bool field"},
      {{{"rounds", "0"}}, "rounds"},
      {{{"schedule", "cosine"}}, "\"constant\" or"},
      {{{"average_tail", "1.5"}}, "average_tail"},
      {{{"clip", "2"}}, "clip"},
      {{{"learning_rate", "-1"}}, "learning_rate"},
      {{{"step_size", "1"}}, "step_size"},  // misspelt: not silently ignored
      {{{"coordinates_per_agent", "0"}}, "\"auto\" or an integer ≥ 1"},
      {{{"coordinates_per_agent", "two"}}, "\"auto\" or an integer ≥ 1"},
      {{{"coordinates_per_agent", "-2"}}, "\"auto\" or an integer ≥ 1"},
      // u, v and the bias: at most 3.
      {{{"coordinates_per_agent", "4"}}, "must be in [1, 3]"},
  };
  for (const auto& c : kCases) {
    const auto program =
        CreateLogisticRegressionProgram(Spec(c.params), LogisticContext());
    EXPECT_THAT(program, StatusIs(kInvalid)) << c.message;
    EXPECT_THAT(program.status().message(), HasSubstr(c.message));
  }
  EXPECT_THAT(CreateLogisticRegressionProgram(Spec(), LogisticContext(0)),
              StatusIs(kInvalid));
  EXPECT_OK(CreateLogisticRegressionProgram(Spec(), LogisticContext()));
}

TEST(LogisticRegressionTest, IsRegistered) {
  EXPECT_OK(CreateAnalystProgram(Spec(), LogisticContext()));
}

TEST(LogisticRegressionTest, ScheduleSplitsAgentsAcrossRoundsWithinTheCap) {
  auto program = CreateLogisticRegressionProgram(
      Spec({{"rounds", "7"}, {"coordinates_per_agent", "1"}}),
      LogisticContext(3 * kEps));
  ASSERT_OK(program);
  const std::vector<ScheduledRound> schedule = (*program)->Schedule();
  ASSERT_EQ(schedule.size(), 7u);
  for (int t = 0; t < 7; ++t) {
    EXPECT_EQ(schedule[t].slice, EqualSlice(t, 7));
    EXPECT_EQ(schedule[t].epsilon_nanos, 3 * kEps);
  }
  EXPECT_OK(CheckSchedule(schedule, 3 * kEps));
  EXPECT_EQ(MaxScheduledSpend(schedule), 3 * kEps);
}

// Round 1 asks, per coordinate, Clamp((σ(0) − y)·x̃_j, −c, c) at ε = cap.
TEST(LogisticRegressionTest, FirstRoundAsksTheClippedGradientAtZero) {
  auto program = CreateLogisticRegressionProgram(Spec({{"clip", "0.3"}}),
                                                 LogisticContext());
  ASSERT_OK(program);
  absl::StatusOr<ProgramStep> step = (*program)->Next({});
  ASSERT_OK(step);
  ASSERT_TRUE(step->round.has_value());
  const std::vector<Question>& qs = step->round->questions;
  ASSERT_EQ(qs.size(), 3u);
  Record r;
  r.values["u"] = 0.5;
  r.values["v"] = 3.5;  // x̃ = 0.75
  r.values["y"] = true;
  const double expected[] = {std::clamp(-0.5 * 0.5, -0.3, 0.3),
                             std::clamp(-0.5 * 0.75, -0.3, 0.3), -0.3};
  for (size_t j = 0; j < 3; ++j) {
    const auto& sq = std::get<StatisticalQueryQuestion>(qs[j].kind);
    EXPECT_EQ(qs[j].epsilon_nanos, 2 * kEps);
    EXPECT_EQ(sq.query.output_range(), (QueryRange{-0.3, 0.3}));
    EXPECT_DOUBLE_EQ(sq.query.Evaluate(r), expected[j]) << qs[j].id;
  }
  // The model starts at zero, in both parametrizations.
  absl::StatusOr<LogisticModel> m_or = LogisticModelFromResult(step->result, 2);
  ASSERT_OK(m_or);
  const LogisticModel& m = *m_or;
  EXPECT_EQ(m.theta, (std::vector<double>{0, 0}));
  EXPECT_EQ(m.bias, 0);
}

// With one coordinate per agent, every query uses the shared choice by
// mechanism variance at (ε, c),
// which is the documented one: Duchi at ε = 0.5 (hybrid's α is 0 there and
// the tie goes to Duchi), hybrid from ε = 1 up — unlike the SQ oracle's
// choice, as scalar_mechanism_choice.h documents.
TEST(LogisticRegressionTest, AsksWithTheLowestMechanismVarianceKind) {
  const struct {
    double eps;
    RealMechanismKind documented;
  } kCases[] = {{0.5, RealMechanismKind::kDuchi},
                {1, RealMechanismKind::kHybrid},
                {2, RealMechanismKind::kHybrid},
                {4, RealMechanismKind::kHybrid}};
  for (const auto& c : kCases) {
    auto program = CreateLogisticRegressionProgram(
        Spec({{"clip", "0.25"}, {"coordinates_per_agent", "1"}}),
        LogisticContext(std::llround(c.eps * kEps)));
    ASSERT_OK(program);
    absl::StatusOr<ProgramStep> step = (*program)->Next({});
    ASSERT_OK(step);
    ASSERT_TRUE(step->round.has_value());
    absl::StatusOr<SqMechanismChoice> shared = ChooseScalarMechanism(
        c.eps, 0.25, MechanismCriterion::kMechanismVariance);
    ASSERT_OK(shared);
    EXPECT_EQ(shared->kind, c.documented) << "ε = " << c.eps;
    // The SQ oracle's criterion (worst-case E[report²]) differs: Duchi here.
    absl::StatusOr<SqMechanismChoice> oracle = ChooseSqMechanism(c.eps, 0.25);
    ASSERT_OK(oracle);
    EXPECT_EQ(oracle->kind, RealMechanismKind::kDuchi) << "ε = " << c.eps;
    for (const Question& q : step->round->questions) {
      EXPECT_EQ(std::get<StatisticalQueryQuestion>(q.kind).mechanism,
                shared->kind)
          << q.id << " at ε = " << c.eps;
    }
  }
}

// k = 2 over u, v and the bias: blocks {u} and {v, bias}. Each step is two
// rounds on the same slice at ε/2, the second asked at the same model as
// the first; the step is taken only once both are in, from both.
TEST(LogisticRegressionTest, TwoCoordinatesPerAgentAskEachBlockOnceAtHalfEps) {
  auto program =
      CreateLogisticRegressionProgram(Spec({{"rounds", "3"},
                                            {"coordinates_per_agent", "2"},
                                            {"learning_rate", "2"},
                                            {"average_tail", "0"}}),
                                      LogisticContext(3 * kEps));
  ASSERT_OK(program);
  const std::vector<ScheduledRound> schedule = (*program)->Schedule();
  ASSERT_EQ(schedule.size(), 6u);
  for (int r = 0; r < 6; ++r) {
    EXPECT_EQ(schedule[r].slice, EqualSlice(r / 2, 3)) << r;
    EXPECT_EQ(schedule[r].epsilon_nanos, 3 * kEps / 2) << r;
  }
  EXPECT_EQ(schedule[1].name, "gradient step 1, block 2 of 2");
  EXPECT_OK(CheckSchedule(schedule, 3 * kEps));
  EXPECT_EQ(MaxScheduledSpend(schedule), 3 * kEps);
  absl::StatusOr<SqMechanismChoice> half =
      ChooseScalarMechanism(1.5, 0.25, MechanismCriterion::kMechanismVariance);
  ASSERT_OK(half);
  const auto ids = [&](const ProgramStep& step) {
    std::vector<std::string> out;
    for (const Question& q : step.round->questions) {
      out.push_back(q.id);
      EXPECT_EQ(q.epsilon_nanos, 3 * kEps / 2) << q.id;
      EXPECT_EQ(std::get<StatisticalQueryQuestion>(q.kind).mechanism,
                half->kind)
          << q.id;
    }
    return out;
  };
  const std::vector<double> g = {0.2, -0.1, 0.05};
  RoundAnswers full = GradientRound(g);
  RoundAnswers first{.answers = {full.answers[0]}};
  RoundAnswers second{.answers = {full.answers[1], full.answers[2]}};
  absl::StatusOr<ProgramStep> s0 = (*program)->Next({});
  ASSERT_OK(s0);
  ASSERT_TRUE(s0->round.has_value());
  EXPECT_EQ(ids(*s0), (std::vector<std::string>{"grad[0]"}));
  absl::StatusOr<ProgramStep> s1 = (*program)->Next({first});
  ASSERT_OK(s1);
  ASSERT_TRUE(s1->round.has_value());
  EXPECT_EQ(ids(*s1), (std::vector<std::string>{"grad[1]", "grad[bias]"}));
  EXPECT_EQ(IterateOf(*s1).theta, (std::vector<double>{0, 0}));  // no step yet
  absl::StatusOr<ProgramStep> s2 = (*program)->Next({first, second});
  ASSERT_OK(s2);
  ASSERT_TRUE(s2->round.has_value());
  EXPECT_EQ(ids(*s2), (std::vector<std::string>{"grad[0]"}));
  const LogisticModel m = IterateOf(*s2);
  EXPECT_DOUBLE_EQ(m.theta[0], -2 * g[0]);
  EXPECT_DOUBLE_EQ(m.theta[1], -2 * g[1]);
  EXPECT_DOUBLE_EQ(m.bias, -2 * g[2]);
  // The second block's round asks at θ_1 too: its queries read the model.
  Record r;
  r.values["u"] = 0.5;
  r.values["v"] = 3.5;  // x̃ = 0.75
  r.values["y"] = true;
  absl::StatusOr<ProgramStep> s3 = (*program)->Next({first, second, first});
  ASSERT_OK(s3);
  const double margin = m.theta[0] * 0.5 + m.theta[1] * 0.75 + m.bias;
  const double residual = 1 / (1 + std::exp(-margin)) - 1;
  const auto& v =
      std::get<StatisticalQueryQuestion>(s3->round->questions[0].kind);
  EXPECT_NEAR(v.query.Evaluate(r), std::clamp(residual * 0.75, -0.25, 0.25),
              1e-12);
  // A step missing a block's estimate is an error, not a silent zero.
  EXPECT_FALSE((*program)->Next({first, first}).ok());
}

// The planner's k by default: one coordinate per agent at ε = 2, all three
// at ε = 4 for these three coordinates (gradient_plan.h's criterion).
TEST(LogisticRegressionTest, TheDefaultKIsThePlannersChoice) {
  for (double eps : {2.0, 4.0}) {
    const int64_t cap = std::llround(eps * kEps);
    absl::StatusOr<GradientPlan> plan = PlanGradientReports(cap, 0.25, 3, 0);
    ASSERT_OK(plan);
    auto program = CreateLogisticRegressionProgram(
        Spec({{"rounds", "4"}, {"clip", "0.25"}}), LogisticContext(cap));
    ASSERT_OK(program);
    EXPECT_EQ((*program)->Schedule().size(), 4u * plan->coordinates_per_agent)
        << "ε = " << eps;
    EXPECT_EQ(plan->coordinates_per_agent, eps == 2.0 ? 1 : 3);
  }
}

// 2·10^5 agents, ε = 2, 10 rounds: each of the 30 gradient coordinates
// gets ~6 700 reports, so ĝ's noise per coordinate is ≈ √(1.2·c²/6700) ≈
// 0.003 (c = 0.25) against a starting gradient of ≈ 0.1 per coordinate.
// Noise-free, these 10 steps reach ≈ 0.93 accuracy (Bayes 0.95, the
// flipped labels); the bound 0.8 leaves room for the noise to turn the
// boundary by ~25°, over 10σ of the accumulated noise here.
// The study of the two learning tests: 2·10^5 agents drawing Sample, cap
// ε = 2, the program with `extra` parameters.
StudySpec SeparableStudy(std::map<std::string, std::string> extra) {
  return {.schema = LogisticSchema(),
          .epsilon_cap_nanos = 2 * kEps,
          .mode = StudyMode::kInteractive,
          .program = Spec(std::move(extra))};
}

absl::StatusOr<SimulationResult> SimulateSeparable(const StudySpec& study,
                                                   uint64_t coin_seed) {
  const RecordSource records = [](uint64_t agent) {
    std::mt19937_64 gen(agent * 0x9E3779B97F4A7C15 + 17);
    return Sample(gen);
  };
  std::mt19937_64 coins(coin_seed);
  return SimulateStudy(study, 200'000, records, coins);
}

// What both learning runs must show: every scheduled round ran, every
// agent asked spent exactly the cap and none was refused, and the released
// model classifies fresh samples at ≥ 0.8. Returns that model.
LogisticModel ExpectLearnedWithinTheCap(const SimulationResult& run,
                                        size_t rounds) {
  EXPECT_EQ(run.rounds.size(), rounds);
  EXPECT_EQ(run.max_spent_nanos, 2 * kEps);
  EXPECT_EQ(run.refused_over_cap, 0);
  absl::StatusOr<LogisticModel> m = LogisticModelFromResult(run.result, 2);
  EXPECT_OK(m);
  if (!m.ok()) return {.theta = {NAN, NAN}, .bias = NAN};
  EXPECT_GE(Accuracy(*m, 99, 20'000), 0.8)
      << "θ = (" << m->theta[0] << ", " << m->theta[1] << "), b = " << m->bias;
  return *m;
}

TEST(LogisticRegressionTest, LearnsASeparablePopulation) {
  const StudySpec study = SeparableStudy({{"rounds", "10"}});
  absl::StatusOr<SimulationResult> run = SimulateSeparable(study, 5);
  ASSERT_OK(run);
  const LogisticModel m = ExpectLearnedWithinTheCap(*run, 10);
  // The released model is the mean of the iterates θ_6 … θ_10 the run
  // reported (average_tail 0.5 of 10 rounds): θ_t before round t + 1, θ_10
  // in the final result.
  std::vector<LogisticModel> iterates;
  for (const SimulatedRound& r : run->rounds) {
    iterates.push_back(*LogisticIterateFromResult(r.result_before, 2));
  }
  iterates.push_back(*LogisticIterateFromResult(run->result, 2));
  ASSERT_EQ(iterates.size(), 11u);
  LogisticModel mean{.theta = {0, 0}};
  for (int t = 6; t <= 10; ++t) {
    mean.theta[0] += iterates[t].theta[0] / 5;
    mean.theta[1] += iterates[t].theta[1] / 5;
    mean.bias += iterates[t].bias / 5;
  }
  EXPECT_NEAR(m.theta[0], mean.theta[0], 1e-12);
  EXPECT_NEAR(m.theta[1], mean.theta[1], 1e-12);
  EXPECT_NEAR(m.bias, mean.bias, 1e-12);
  EXPECT_NE(m.theta[0], iterates[10].theta[0]);  // it is not the last iterate
  // Replaying the same history gives the same model (determinism).
  auto program = CreateLogisticRegressionProgram(*study.program,
                                                 LogisticContext(2 * kEps));
  ASSERT_OK(program);
  std::vector<RoundAnswers> history;
  for (const SimulatedRound& r : run->rounds) history.push_back(r.answers);
  absl::StatusOr<ProgramStep> again = (*program)->Next(history);
  ASSERT_OK(again);
  EXPECT_FALSE(again->round.has_value());
  absl::StatusOr<LogisticModel> m2_or =
      LogisticModelFromResult(again->result, 2);
  ASSERT_OK(m2_or);
  const LogisticModel& m2 = *m2_or;
  EXPECT_EQ(m2.theta, m.theta);
  EXPECT_EQ(m2.bias, m.bias);
}

// The same population with two coordinates per agent (blocks {u} and
// {v, bias}, each at ε/2 = 1): u gets 20 000 reports per step and v and the
// bias 10 000 each, at a report variance ≤ 5.3·c² (hybrid at ε = 1), so the
// noise per coordinate is ≈ √(5.3·0.0625/10^4) ≈ 0.006, twice the k = 1
// case's: the bound 0.8 is still over 5σ of the accumulated noise away.
TEST(LogisticRegressionTest,
     LearnsASeparablePopulationWithTwoCoordinatesPerAgent) {
  absl::StatusOr<SimulationResult> run = SimulateSeparable(
      SeparableStudy({{"rounds", "10"}, {"coordinates_per_agent", "2"}}), 6);
  ASSERT_OK(run);
  ExpectLearnedWithinTheCap(*run, 20);
}

TEST(LogisticRegressionTest, ModelFromResultNeedsEveryCoefficient) {
  ProgramResult result{.values = {{.name = "theta[0]", .value = 1},
                                  {.name = "bias", .value = 2}}};
  EXPECT_THAT(LogisticModelFromResult(result, 2), StatusIs(kInvalid));
  absl::StatusOr<LogisticModel> m_or = LogisticModelFromResult(result, 1);
  ASSERT_OK(m_or);
  const LogisticModel& m = *m_or;
  EXPECT_EQ(m.theta[0], 1);
  EXPECT_EQ(m.bias, 2);
}

}  // namespace
}  // namespace ldp
