#include "planning/planner.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/workload/strategies/strategy_planner.h"
#include "common/workload/strategies/workload.h"
#include "common/workload/strategies/workload_estimator.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planning/study_validation.h"
#include "planning/workload_choice.h"
#include "tests/server/core/test_studies.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using testing::BucketHistogram;
using testing::BucketWorkload;
using ::testing::HasSubstr;
using testing::MakeStudy;
using testing::MeanQuestion;
using testing::StatusIs;
using testing::StructuredStrategiesOnly;

constexpr int64_t kNano = kNanosPerEpsilon;

double DuchiUnitVariance(int64_t epsilon_nanos) {
  auto mechanism =
      *CreateRealMechanism({.kind = RealMechanismKind::kDuchi,
                            .epsilon = double(epsilon_nanos) / kNano,
                            .bound = 1});
  return mechanism->WorstCaseVariance();
}

std::vector<Question> DuchiQuestions(int m) {
  std::vector<Question> questions;
  for (int i = 0; i < m; ++i) {
    questions.push_back(MeanQuestion(absl::StrCat("q", i), "x", -1, 1));
  }
  return questions;
}

TEST(Planner, OneQuestionGetsTheWholeCap) {
  absl::StatusOr<RoundPlan> plan =
      RoundPlan::Create(MakeStudy(kNano, DuchiQuestions(1)));
  ASSERT_OK(plan);
  EXPECT_EQ(plan->strategy(), SplitStrategy::kSampleSplitting);
  EXPECT_EQ(plan->questions()[0].task->epsilon_nanos, kNano);
  EXPECT_THAT(plan->decisions().explanation, HasSubstr("one question"));
  EXPECT_TRUE(plan->Assigns(1, 0));
  EXPECT_EQ(plan->Share(0), 1.0);
}

// At small ε the variance grows like 1/ε², so splitting ε over m questions
// costs m² and splitting agents only m.
TEST(Planner, SmallCapSplitsTheSample) {
  const int64_t cap = kNano / 2;
  absl::StatusOr<RoundPlan> plan =
      RoundPlan::Create(MakeStudy(cap, DuchiQuestions(4)));
  ASSERT_OK(plan);
  EXPECT_EQ(plan->strategy(), SplitStrategy::kSampleSplitting);
  const double sample = 4 * 4 * DuchiUnitVariance(cap);
  const double split = 4 * DuchiUnitVariance(cap / 4);
  EXPECT_LT(sample, split);
  for (const PlannedQuestion& q : plan->questions()) {
    EXPECT_EQ(q.task->epsilon_nanos, cap);
    EXPECT_NEAR(q.unit_variance, DuchiUnitVariance(cap), 1e-12);
  }
  EXPECT_THAT(plan->decisions().explanation, HasSubstr("sample splitting"));
  EXPECT_THAT(plan->decisions().explanation, HasSubstr("epsilon splitting"));
}

// At large ε the variance flattens out, and every agent answering every
// question at ε/m beats splitting the agents.
TEST(Planner, LargeCapSplitsEpsilon) {
  const int64_t cap = 8 * kNano;
  absl::StatusOr<RoundPlan> plan =
      RoundPlan::Create(MakeStudy(cap, DuchiQuestions(2)));
  ASSERT_OK(plan);
  EXPECT_EQ(plan->strategy(), SplitStrategy::kEpsilonSplitting);
  EXPECT_LT(2 * DuchiUnitVariance(cap / 2), 2 * 2 * DuchiUnitVariance(cap));
  int64_t total = 0;
  for (int q = 0; q < 2; ++q) {
    EXPECT_EQ(plan->questions()[q].task->epsilon_nanos, cap / 2);
    total += plan->questions()[q].task->epsilon_nanos;
    EXPECT_TRUE(plan->Assigns(12345, q));
    EXPECT_EQ(plan->Share(q), 1.0);
  }
  EXPECT_LE(total, cap);
  EXPECT_THAT(plan->decisions().explanation, HasSubstr("epsilon splitting"));
}

TEST(Planner, ImplementedEpsilonNeverExceedsTheCharge) {
  absl::StatusOr<RoundPlan> plan = RoundPlan::Create(MakeStudy(
      kNano, {MeanQuestion("mean", "x", -1, 1, RealMechanismKind::kHybrid),
              BucketHistogram("hist"),
              MeanQuestion("y", "y", 0, 10, RealMechanismKind::kPiecewise)}));
  ASSERT_OK(plan);
  for (const PlannedQuestion& q : plan->questions()) {
    EXPECT_LE(q.mechanism->implemented_epsilon(),
              double(q.task->epsilon_nanos) / kNano);
    EXPECT_GT(q.unit_variance, 0);
  }
}

TEST(Planner, ExplicitEpsilonsAreHonoured) {
  std::vector<Question> questions = DuchiQuestions(3);
  questions[0].epsilon_nanos = kNano / 10;
  absl::StatusOr<RoundPlan> plan =
      RoundPlan::Create(MakeStudy(8 * kNano, questions));
  ASSERT_OK(plan);
  ASSERT_EQ(plan->strategy(), SplitStrategy::kEpsilonSplitting);
  EXPECT_EQ(plan->questions()[0].task->epsilon_nanos, kNano / 10);
  // The others split what is left.
  EXPECT_EQ(plan->questions()[1].task->epsilon_nanos,
            (8 * kNano - kNano / 10) / 2);

  // When explicit epsilons use the whole cap, only sample splitting remains.
  questions[0].epsilon_nanos = kNano;
  plan = RoundPlan::Create(MakeStudy(kNano, questions));
  ASSERT_OK(plan);
  EXPECT_EQ(plan->strategy(), SplitStrategy::kSampleSplitting);
  EXPECT_EQ(plan->questions()[0].task->epsilon_nanos, kNano);
  EXPECT_EQ(plan->questions()[1].task->epsilon_nanos, kNano);
  EXPECT_THAT(plan->decisions().explanation, HasSubstr("impossible"));
}

TEST(Planner, RejectsExplicitEpsilonsBeyondTheCap) {
  std::vector<Question> questions = DuchiQuestions(2);
  questions[0].epsilon_nanos = 600'000'000;
  questions[1].epsilon_nanos = 600'000'000;
  EXPECT_THAT(RoundPlan::Create(MakeStudy(kNano, questions)),
              StatusIs(absl::StatusCode::kInvalidArgument));
  questions[1].epsilon_nanos = 400'000'000;
  EXPECT_OK(RoundPlan::Create(MakeStudy(kNano, questions)));
}

TEST(Planner, SplitsAgentsByTargetReports) {
  std::vector<Question> questions = DuchiQuestions(3);
  questions[0].target_reports = 100;
  questions[1].target_reports = 300;  // the third counts as the mean, 200
  absl::StatusOr<RoundPlan> plan =
      RoundPlan::Create(MakeStudy(kNano / 2, questions));
  ASSERT_OK(plan);
  ASSERT_EQ(plan->strategy(), SplitStrategy::kSampleSplitting);
  const double shares[] = {1.0 / 6, 1.0 / 2, 1.0 / 3};
  // Any run of consecutive agent ids splits almost exactly (a golden-ratio
  // sequence has discrepancy O(log n / n)).
  for (uint64_t first : {uint64_t{1}, uint64_t{1'000'003}}) {
    constexpr int kAgents = 60'000;
    std::vector<int> counts(3);
    for (uint64_t a = first; a < first + kAgents; ++a) {
      const int q = plan->SampleQuestion(a);
      ++counts[q];
      for (int other = 0; other < 3; ++other) {
        EXPECT_EQ(plan->Assigns(a, other), other == q);
      }
    }
    for (int q = 0; q < 3; ++q) {
      EXPECT_NEAR(plan->Share(q), shares[q], 1e-12);
      EXPECT_NEAR(counts[q], kAgents * shares[q], 30) << q;
    }
  }
}

TEST(Planner, ChoosesAnOracleOrKeepsTheAnalysts) {
  absl::StatusOr<RoundPlan> plan = RoundPlan::Create(MakeStudy(
      kNano,
      {BucketHistogram("chosen"),
       BucketHistogram(
           "given",
           FrequencyOracleSpec{
               .kind = FrequencyOracleKind::kGeneralizedRandomizedResponse})}));
  ASSERT_OK(plan);
  const int64_t eps = plan->questions()[0].task->epsilon_nanos;
  const OracleChoice best = *ChooseFrequencyOracle(double(eps) / kNano, 64);
  const auto& chosen =
      std::get<FrequencyOracleSpec>(plan->decisions().questions[0].randomizer);
  EXPECT_EQ(chosen.kind, best.chosen.spec.kind);
  EXPECT_EQ(chosen.domain_size, 64u);
  const auto& given =
      std::get<FrequencyOracleSpec>(plan->decisions().questions[1].randomizer);
  EXPECT_EQ(given.kind, FrequencyOracleKind::kGeneralizedRandomizedResponse);
  EXPECT_EQ(given.domain_size, 64u);
  EXPECT_EQ(given.epsilon,
            double(plan->questions()[1].task->epsilon_nanos) / kNano);
}

// A repeated question without a mechanism gets the longitudinal oracle
// ChooseLongitudinalOracle picks, with its ε∞; an ε∞ not above the
// question's ε is refused, naming the question.
TEST(Planner, ChoosesALongitudinalOracleForARepeatedQuestion) {
  Question repeated = BucketHistogram("repeated");
  std::get<HistogramQuestion>(repeated.kind).epsilon_permanent = 4;
  absl::StatusOr<RoundPlan> plan =
      RoundPlan::Create(MakeStudy(kNano, {repeated}));
  ASSERT_OK(plan);
  const double eps = double(plan->questions()[0].task->epsilon_nanos) / kNano;
  const OracleChoice best = *ChooseLongitudinalOracle(eps, 4, 64);
  const auto& chosen =
      std::get<FrequencyOracleSpec>(plan->decisions().questions[0].randomizer);
  EXPECT_EQ(chosen.kind, best.chosen.spec.kind);
  EXPECT_EQ(chosen.epsilon_permanent, 4);
  EXPECT_TRUE(plan->questions()[0].mechanism->longitudinal());

  std::get<HistogramQuestion>(repeated.kind).epsilon_permanent = eps;
  absl::StatusOr<RoundPlan> refused =
      RoundPlan::Create(MakeStudy(kNano, {repeated}));
  EXPECT_THAT(refused, StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(std::string(refused.status().message()),
              ::testing::HasSubstr("question repeated: "
                                   "longitudinal_epsilon_permanent_nanos"));
}

TEST(Planner, RestoreRebuildsTheSamePlan) {
  std::vector<Question> questions = DuchiQuestions(3);
  questions.push_back(BucketHistogram("hist"));
  questions[0].target_reports = 7;
  const StudySpec spec = MakeStudy(kNano, questions);
  absl::StatusOr<RoundPlan> plan = RoundPlan::Create(spec);
  ASSERT_OK(plan);
  absl::StatusOr<RoundPlan> restored =
      RoundPlan::Restore(spec, plan->decisions());
  ASSERT_OK(restored);
  EXPECT_EQ(restored->strategy(), plan->strategy());
  EXPECT_EQ(restored->decisions().explanation, plan->decisions().explanation);
  for (int q = 0; q < 4; ++q) {
    EXPECT_EQ(restored->Share(q), plan->Share(q));
    EXPECT_EQ(restored->questions()[q].mechanism->implemented_epsilon(),
              plan->questions()[q].mechanism->implemented_epsilon());
  }
  for (uint64_t a = 1; a < 1000; ++a) {
    EXPECT_EQ(restored->SampleQuestion(a), plan->SampleQuestion(a));
  }
  // A plan that does not fit the study is refused.
  PlanDecisions wrong = plan->decisions();
  wrong.questions.pop_back();
  EXPECT_THAT(RoundPlan::Restore(spec, wrong),
              StatusIs(absl::StatusCode::kInvalidArgument));
  wrong = plan->decisions();
  std::swap(wrong.questions[0], wrong.questions[3]);
  EXPECT_THAT(RoundPlan::Restore(spec, wrong),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(Planner, RejectsMalformedStudies) {
  const auto invalid = [](StudySpec spec) {
    EXPECT_THAT(RoundPlan::Create(spec),
                StatusIs(absl::StatusCode::kInvalidArgument));
  };
  invalid(MakeStudy(0, DuchiQuestions(1)));
  invalid(MakeStudy(kNano, {}));
  invalid(MakeStudy(kNano, DuchiQuestions(kMaxQuestionsPerRound + 1)));
  std::vector<Question> twice = DuchiQuestions(2);
  twice[1].id = twice[0].id;
  invalid(MakeStudy(kNano, twice));
  std::vector<Question> unnamed = DuchiQuestions(1);
  unnamed[0].id = "";
  invalid(MakeStudy(kNano, unnamed));
  std::vector<Question> negative = DuchiQuestions(1);
  negative[0].target_reports = -1;
  invalid(MakeStudy(kNano, negative));
  negative = DuchiQuestions(1);
  negative[0].epsilon_nanos = -1;
  invalid(MakeStudy(kNano, negative));
  StudySpec spec = MakeStudy(kNano, DuchiQuestions(1));
  spec.confidence = 1;
  invalid(spec);
  spec = MakeStudy(kNano, DuchiQuestions(1));
  spec.quorum = -1;
  invalid(spec);
  spec = MakeStudy(kNano, DuchiQuestions(1));
  spec.round_duration = absl::ZeroDuration();
  invalid(spec);
  invalid(MakeStudy(
      kNano, {BucketHistogram("ibu", std::nullopt,
                              ConsistencyMethod::kIterativeBayesianUpdate)}));
  // A query checked against another schema.
  spec = MakeStudy(kNano, DuchiQuestions(1));
  spec.schema = *RecordSchema::Create({FieldSpec::Real("x", -1, 1)});
  invalid(spec);
}

// A workload question gets the strategy planner's choice for (W, εₜ): a
// task agents can rebuild, the estimator that answers W from it, and the
// predicted variance as the question's unit variance.
TEST(Planner, PlansAWorkloadQuestion) {
  const StudySpec spec = MakeStudy(kNano, {BucketWorkload("cdf")});
  absl::StatusOr<RoundPlan> plan =
      RoundPlan::Create(spec, StructuredStrategiesOnly());
  ASSERT_OK(plan);
  const auto& decision =
      std::get<StrategyDecision>(plan->decisions().questions[0].randomizer);
  EXPECT_EQ(decision.spec.epsilon, 1.0);
  EXPECT_EQ(decision.spec.domain_size, 64u);
  EXPECT_FALSE(decision.description.empty());
  EXPECT_GT(decision.v_max, 0);
  EXPECT_GE(decision.v_max, decision.v_avg);
  // The planner's own choice under the same options.
  const Workload cdf =
      *Workload::Create({.kind = WorkloadKind::kPrefix, .domain_size = 64});
  StrategyPlannerOptions options = StructuredStrategiesOnly();
  options.wire_sized_only = true;
  absl::StatusOr<StrategyPlan> direct = PlanStrategy(cdf, 1.0, options);
  ASSERT_OK(direct);
  EXPECT_EQ(decision.spec, direct->chosen.spec);
  EXPECT_DOUBLE_EQ(decision.v_max, direct->chosen.variance.worst());

  const PlannedQuestion& planned = plan->questions()[0];
  EXPECT_EQ(planned.unit_variance, decision.v_max);
  const auto& task = std::get<WorkloadTask>(planned.task->question);
  EXPECT_EQ(task.strategy, decision.spec);
  EXPECT_EQ(task.encoding.domain_size(), 64u);
  EXPECT_LE(planned.mechanism->implemented_epsilon(), 1.0);
  ASSERT_NE(planned.mechanism->strategy_randomizer(), nullptr);
  // The question's accumulators share one strategy around the task's own
  // randomizer.
  ASSERT_NE(planned.workload.strategy, nullptr);
  EXPECT_EQ(planned.workload.strategy->randomizer(),
            planned.mechanism->strategy_randomizer());
  ASSERT_NE(planned.workload.estimator, nullptr);
  EXPECT_EQ(planned.workload.estimator->workload().num_queries(), 64u);
  EXPECT_LT(planned.workload.estimator->ReconstructionError(), 1e-6);

  // Restored (after a restart) from the decisions alone, without planning.
  absl::StatusOr<RoundPlan> restored =
      RoundPlan::Restore(spec, plan->decisions());
  ASSERT_OK(restored);
  EXPECT_EQ(
      std::get<WorkloadTask>(restored->questions()[0].task->question).strategy,
      decision.spec);
  ASSERT_NE(restored->questions()[0].workload.estimator, nullptr);
  EXPECT_EQ(restored->questions()[0].workload.estimator->strategy().Describe(),
            decision.description);
  // Built now, the estimator's strategy is the task's.
  EXPECT_EQ(
      restored->questions()[0].workload.estimator->strategy().randomizer(),
      restored->questions()[0].mechanism->strategy_randomizer());
}

// A custom workload: the plan reports the chosen strategy's objective (v_max)
// next to the best fixed strategy's and γ₂'s certified interval, and never
// chooses worse than the best fixed one.
TEST(Planner, ACustomWorkloadIsMeasuredAgainstTheBestFixedStrategyAndGamma2) {
  constexpr uint32_t kN = 64, kM = 24;
  std::vector<double> dense(kM * kN);
  for (uint32_t j = 0; j < kM; ++j) {
    for (uint32_t x = 0; x < kN; ++x) {
      dense[j * kN + x] = (x * (j + 3) + j) % 7 < 3 ? 1.0 : 0.0;
    }
  }
  Question question = BucketWorkload("custom");
  std::get<WorkloadQuestion>(question.kind).workload = {
      .kind = WorkloadKind::kCustom,
      .domain_size = kN,
      .num_queries = kM,
      .dense = dense};
  StrategyPlannerOptions options;  // every candidate, optimizers included
  options.optimizer_time_limit = absl::Seconds(30);
  absl::StatusOr<RoundPlan> plan =
      RoundPlan::Create(MakeStudy(kNano, {question}), options);
  ASSERT_OK(plan);
  const auto& decision =
      std::get<StrategyDecision>(plan->decisions().questions[0].randomizer);
  EXPECT_FALSE(decision.best_fixed.empty());
  EXPECT_GT(decision.best_fixed_v_max, 0);
  EXPECT_LE(decision.v_max, decision.best_fixed_v_max);
  EXPECT_GT(decision.gamma2_lower, 0);
  EXPECT_LE(decision.gamma2_lower, decision.gamma2_upper);
  // The certificate is tight to the factorization's default relative gap.
  EXPECT_LE(decision.gamma2_upper, decision.gamma2_lower * 1.01);
  // Trivial bounds any certificate must respect: max|W_ij| ≤ γ₂(W) ≤ the
  // largest row ℓ2 norm (the factorization R = W, A = I).
  double max_row_norm = 0;
  for (uint32_t j = 0; j < kM; ++j) {
    double sum = 0;
    for (uint32_t x = 0; x < kN; ++x) sum += dense[j * kN + x];
    max_row_norm = std::max(max_row_norm, std::sqrt(sum));
  }
  EXPECT_GE(decision.gamma2_upper, 1.0 - 1e-9);
  EXPECT_LE(decision.gamma2_lower, max_row_norm + 1e-9);
}

TEST(Planner, HonoursANamedStrategy) {
  absl::StatusOr<RoundPlan> plan = RoundPlan::Create(
      MakeStudy(
          kNano,
          {BucketWorkload("tree", WorkloadKind::kAllRange,
                          StrategyChoice{.kind = StrategyKind::kHierarchical,
                                         .branching = 4},
                          /*consistency=*/true),
           BucketWorkload("haar", WorkloadKind::kPrefix,
                          StrategyChoice{.kind = StrategyKind::kHaar})}),
      StructuredStrategiesOnly());
  ASSERT_OK(plan);
  const auto& tree =
      std::get<StrategyDecision>(plan->decisions().questions[0].randomizer);
  EXPECT_EQ(tree.spec.kind, StrategyKind::kHierarchical);
  EXPECT_EQ(tree.spec.branching, 4u);
  EXPECT_TRUE(plan->questions()[0].workload.consistency);
  const auto& haar =
      std::get<StrategyDecision>(plan->decisions().questions[1].randomizer);
  EXPECT_EQ(haar.spec.kind, StrategyKind::kHaar);
  EXPECT_FALSE(plan->questions()[1].workload.consistency);
  for (const PlannedQuestion& q : plan->questions()) {
    EXPECT_LE(q.mechanism->implemented_epsilon(),
              double(q.task->epsilon_nanos) / kNano);
    ASSERT_NE(q.workload.estimator, nullptr);
    EXPECT_LT(q.workload.estimator->ReconstructionError(), 1e-6);
  }
}

// SAMPLING_FAKE_DATA names RS+FD in all three forms: the planner takes the
// one its own candidates score lowest (here, at large attributes, a unary
// form); the unary kinds name their form.
TEST(Planner, NamedFakeDataTakesItsMostAccurateForm) {
  const WorkloadSpec marginals = {.kind = WorkloadKind::kAttributeMarginals,
                                  .attribute_sizes = {16, 16}};
  const StrategyPlannerOptions options = StructuredStrategiesOnly();
  absl::StatusOr<Workload> workload = Workload::Create(marginals);
  ASSERT_OK(workload);
  absl::StatusOr<StrategyPlan> all = PlanStrategy(*workload, 1.0, options);
  ASSERT_OK(all);
  const StrategyCandidate* best = nullptr;
  for (const StrategyCandidate& c : all->candidates) {
    if (!IsFakeDataKind(c.spec.kind)) continue;
    if (best == nullptr || c.variance.worst() < best->variance.worst()) {
      best = &c;
    }
  }
  ASSERT_NE(best, nullptr);
  EXPECT_NE(best->spec.kind, StrategyKind::kRandomSamplingFakeData);
  // PlanWorkload reads the workload and the choice; the encoding is any.
  WorkloadQuestion question =
      std::get<WorkloadQuestion>(BucketWorkload("fake").kind);
  question.workload = marginals;
  question.strategy =
      StrategyChoice{.kind = StrategyKind::kRandomSamplingFakeData};
  absl::StatusOr<ChosenStrategy> family = PlanWorkload(question, 1.0, options);
  ASSERT_OK(family);
  EXPECT_EQ(family->decision.spec.kind, best->spec.kind);
  EXPECT_DOUBLE_EQ(family->decision.v_max, best->variance.worst());
  for (StrategyKind form :
       {StrategyKind::kFakeDataUnaryZero, StrategyKind::kFakeDataUnaryRandom}) {
    question.strategy = StrategyChoice{.kind = form};
    absl::StatusOr<ChosenStrategy> named = PlanWorkload(question, 1.0, options);
    ASSERT_OK(named);
    EXPECT_EQ(named->decision.spec.kind, form);
    EXPECT_GE(named->decision.v_max, best->variance.worst());
  }
}

// Explicit εₜ that add up past the cap are refused, even where the sum
// would pass 2^63 (a cap may be 2^63 − 1); a program round's questions,
// answered by different agents, are not summed at all (found by the study
// fuzzer as a signed overflow).
TEST(Planner, SumsExplicitEpsilonsWithoutOverflow) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  Question a = BucketWorkload("a"), b = BucketWorkload("b");
  a.epsilon_nanos = b.epsilon_nanos = kMax / 4 * 3;
  const StudySpec spec = MakeStudy(kMax, {a, b});
  const absl::Status status = ValidateStudy(spec);
  EXPECT_THAT(status, StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(status.message(), HasSubstr("add up to more than"));
  EXPECT_OK(ValidateStudy(spec, /*program_round=*/true));
  a.epsilon_nanos = b.epsilon_nanos = kMax / 2;
  EXPECT_OK(ValidateStudy(MakeStudy(kMax, {a, b})));
}

TEST(Planner, RefusesWorkloadsItCannotPlanNamingTheQuestion) {
  // k > d.
  Question bad_order = BucketWorkload("marginals");
  std::get<WorkloadQuestion>(bad_order.kind).workload = {
      .kind = WorkloadKind::kMarginals, .num_bits = 6, .order = 7};
  absl::Status status = RoundPlan::Create(MakeStudy(kNano, {bad_order}),
                                          StructuredStrategiesOnly())
                            .status();
  EXPECT_THAT(status, StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(status.message(), HasSubstr("marginals"));
  // A workload over another domain than its encoding's.
  Question mismatch = BucketWorkload("mismatch");
  std::get<WorkloadQuestion>(mismatch.kind).workload.domain_size = 32;
  status = RoundPlan::Create(MakeStudy(kNano, {mismatch}),
                             StructuredStrategiesOnly())
               .status();
  EXPECT_THAT(status.message(), HasSubstr("question mismatch"));
  // An optimized kind when the optimizers are off finds no candidate.
  status =
      RoundPlan::Create(
          MakeStudy(kNano, {BucketWorkload(
                               "q", WorkloadKind::kPrefix,
                               StrategyChoice{.kind = StrategyKind::kMatrix})}),
          {.include_optimized_matrix = false,
           .include_factorization = false,
           .optimizer_time_limit = absl::ZeroDuration()})
          .status();
  EXPECT_THAT(status, StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(status.message(), HasSubstr("question q"));
}

// Under sample splitting a workload's answers also carry the sampling
// variance of the share that answered: a(1 − a)/n per 0/1 query.
TEST(Planner, WorkloadAnswersCarrySamplingVariance) {
  absl::StatusOr<RoundPlan> plan = RoundPlan::Create(
      MakeStudy(kNano / 2, {BucketWorkload("cdf"), BucketHistogram("hist")}),
      StructuredStrategiesOnly());
  ASSERT_OK(plan);
  ASSERT_EQ(plan->strategy(), SplitStrategy::kSampleSplitting);
  WorkloadAnswer answer;
  answer.num_reports = 100;
  answer.answers.assign(64, 0.5);
  answer.standard_errors.assign(64, 0.03);
  answer.answers[0] = 0;
  TaskEstimate estimate = answer;
  AddSamplingVariance(*plan, 0, estimate);
  const auto& after = std::get<WorkloadAnswer>(estimate);
  EXPECT_DOUBLE_EQ(after.standard_errors[0], 0.03);  // a = 0: no spread
  EXPECT_DOUBLE_EQ(after.standard_errors[1],
                   std::sqrt(0.03 * 0.03 + 0.25 / 100));
}

// A program round asks only the agents of its slice, each one question,
// split by target_reports, at the εₜ the program set.
TEST(Planner, ProgramRoundsAskOnlyTheirSlice) {
  const StudySpec study = MakeStudy(2 * kNano, {});
  const ScheduledRound scheduled{.name = "step",
                                 .slice = {.begin = 0.25, .end = 0.75},
                                 .epsilon_nanos = kNano};
  ProgramRound round{
      .questions = {
          MeanQuestion("a", "x", -1, 1, RealMechanismKind::kDuchi, kNano),
          MeanQuestion("b", "x", -1, 1, RealMechanismKind::kDuchi, kNano)}};
  absl::StatusOr<RoundPlan> plan =
      RoundPlan::CreateForProgram(study, round, scheduled);
  ASSERT_OK(plan);
  EXPECT_EQ(plan->strategy(), SplitStrategy::kSampleSplitting);
  EXPECT_DOUBLE_EQ(plan->Share(0), 0.25);
  constexpr int kAgents = 40'000;
  int counts[2] = {};
  for (uint64_t id = 1; id <= kAgents; ++id) {
    const bool inside = scheduled.slice.Contains(AgentPosition(id));
    EXPECT_EQ(plan->AsksAgent(id), inside);
    const int assigned = plan->Assigns(id, 0) + plan->Assigns(id, 1);
    EXPECT_EQ(assigned, inside ? 1 : 0) << id;
    for (int q = 0; q < 2; ++q) counts[q] += plan->Assigns(id, q);
  }
  // Low-discrepancy placement: within ±50 of a quarter each.
  EXPECT_NEAR(counts[0], kAgents / 4, 50);
  EXPECT_NEAR(counts[1], kAgents / 4, 50);

  // Past the schedule's εₜ is refused.
  round.questions[1].epsilon_nanos = 2 * kNano;
  EXPECT_THAT(
      RoundPlan::CreateForProgram(study, round, scheduled).status().message(),
      HasSubstr("the schedule allows (0, 1000000000]"));

  // Restored from its decisions, the round asks the same agents.
  StudySpec round_spec = study;
  round_spec.questions = {round.questions[0], round.questions[0]};
  round_spec.questions[1].id = "b";
  absl::StatusOr<RoundPlan> restored =
      RoundPlan::Restore(round_spec, plan->decisions());
  ASSERT_OK(restored);
  for (uint64_t id = 1; id <= 1000; ++id) {
    EXPECT_EQ(restored->Assigns(id, 0), plan->Assigns(id, 0));
  }
}

}  // namespace
}  // namespace ldp
