// The forecast against the simulation: every mechanism's observed
// error over 200 seeded runs within 15% of the closed-form prediction at the
// simulated population, the worst-case forecast above it, and the planner's
// agents for a target error against the simulated minimum.
#include "planning/study_forecast.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/estimation/confidence_interval.h"
#include "common/mechanisms/frequency_oracle_factory.h"
#include "common/queries/domain_encoding.h"
#include "common/queries/query_expression.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/server/core/test_studies.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using testing::BucketHistogram;
using testing::BucketWorkload;
using ::testing::HasSubstr;
using testing::MakeStudy;
using testing::MeanQuestion;
using testing::StructuredStrategiesOnly;

constexpr int64_t kNano = kNanosPerEpsilon;

void ExpectInvalid(const absl::Status& status, const std::string& part) {
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr(part));
}

// 1[x < 0]: a counting query, values 0 or 1.
Question NegativeShare(std::string id,
                       RealMechanismKind kind = RealMechanismKind::kHybrid) {
  return Question{.id = std::move(id),
                  .kind = StatisticalQueryQuestion{
                      .query = *Query::Create(
                          expr::Lt(expr::Field("x"), expr::Constant(0)),
                          {.lower = 0, .upper = 1}, testing::TestSchema()),
                      .mechanism = kind}};
}

// Simulates `spec` and checks every question: observed within 15% of the
// prediction at the population, the forecast's worst case not below it.
void ExpectSimulationMatches(const StudySpec& spec, int64_t agents,
                             const StrategyPlannerOptions& strategies = {}) {
  absl::StatusOr<RoundPlan> plan = RoundPlan::Create(spec, strategies);
  ASSERT_OK(plan);
  absl::StatusOr<StudyForecast> forecast =
      ForecastStudy(spec, {.num_agents = agents, .plan = &*plan});
  ASSERT_OK(forecast);
  absl::StatusOr<std::vector<QuestionSimulation>> simulated = SimulateForecast(
      spec, {.num_agents = agents, .runs = 200, .seed = 7, .plan = &*plan},
      SyntheticPopulation(spec, 11));
  ASSERT_OK(simulated);
  ASSERT_EQ(simulated->size(), forecast->questions.size());
  for (size_t q = 0; q < simulated->size(); ++q) {
    const QuestionSimulation& s = (*simulated)[q];
    const QuestionForecast& f = forecast->questions[q];
    SCOPED_TRACE(absl::StrCat(s.question_id, " (", f.local.mechanism, ")"));
    EXPECT_EQ(s.question_id, f.question_id);
    EXPECT_GT(s.mean_reports, 0);
    EXPECT_NEAR(s.observed_rmse / s.predicted_rmse, 1.0, 0.15);
    // The forecast is a worst case over data (the worst estimate); the
    // population's average error is at most that, up to the share's
    // rounding of n_q.
    EXPECT_LE(s.predicted_rmse, f.local.rmse * 1.02);
    EXPECT_GT(s.coverage, 0.9);
  }
}

TEST(StudyForecast, EveryFrequencyOracleMatchesItsSimulation) {
  for (FrequencyOracleKind kind :
       {FrequencyOracleKind::kGeneralizedRandomizedResponse,
        FrequencyOracleKind::kOptimizedUnaryEncoding,
        FrequencyOracleKind::kSymmetricUnaryEncoding,
        FrequencyOracleKind::kOptimizedLocalHashing,
        FrequencyOracleKind::kSubsetSelection,
        FrequencyOracleKind::kHadamardResponse,
        FrequencyOracleKind::kCountMeanSketch,
        FrequencyOracleKind::kHadamardCountMeanSketch}) {
    SCOPED_TRACE(FrequencyOracleKindName(kind));
    ExpectSimulationMatches(
        MakeStudy(kNano,
                  {BucketHistogram("h", FrequencyOracleSpec{.kind = kind})}),
        1500);
  }
  // The general Hadamard response, with t = 2 rows per item (its best t at
  // ε = 1).
  ExpectSimulationMatches(
      MakeStudy(kNano, {BucketHistogram(
                           "h",
                           FrequencyOracleSpec{
                               .kind = FrequencyOracleKind::kHadamardResponse,
                               .rows_per_item = 2})}),
      1500);
  // Longitudinal: one report per agent at ε₁ = 1 from a memo at ε∞ = 2.
  ExpectSimulationMatches(
      MakeStudy(kNano,
                {BucketHistogram(
                    "h",
                    FrequencyOracleSpec{
                        .kind = FrequencyOracleKind::kLongitudinalUnaryEncoding,
                        .epsilon_permanent = 2})}),
      1500);
  // dBitFlipPM, with its own estimator and variance; L-GRR and L-OLH
  // forecast through the pure-protocol variance checked above.
  ExpectSimulationMatches(
      MakeStudy(
          kNano,
          {BucketHistogram(
              "h", FrequencyOracleSpec{.kind = FrequencyOracleKind::kDBitFlip,
                                       .sampled_buckets = 2})}),
      1500);
  // RAPPOR: the forecast's scalar variance (equal cohorts, background bits
  // at h/k) against its regression decode.
  ExpectSimulationMatches(
      MakeStudy(
          kNano,
          {BucketHistogram(
              "h", FrequencyOracleSpec{.kind = FrequencyOracleKind::kRappor,
                                       .num_columns = 16,
                                       .epsilon_permanent = 2,
                                       .num_cohorts = 8})}),
      1500);
}

TEST(StudyForecast, EveryRealMechanismMatchesItsSimulation) {
  for (RealMechanismKind kind :
       {RealMechanismKind::kDiscreteLaplace, RealMechanismKind::kDuchi,
        RealMechanismKind::kPiecewise, RealMechanismKind::kHybrid}) {
    SCOPED_TRACE(RealMechanismKindName(kind));
    ExpectSimulationMatches(
        MakeStudy(kNano, {MeanQuestion("mean", "x", -1, 1, kind),
                          NegativeShare("share", kind)}),
        2000);
  }
}

TEST(StudyForecast, EveryWorkloadStrategyMatchesItsSimulation) {
  for (StrategyKind kind :
       {StrategyKind::kIdentity, StrategyKind::kHierarchical,
        StrategyKind::kHaar, StrategyKind::kMatrix,
        StrategyKind::kFactorization}) {
    SCOPED_TRACE(StrategyKindName(kind));
    StrategyPlannerOptions options;
    options.optimizer_time_limit = absl::Seconds(5);
    ExpectSimulationMatches(
        MakeStudy(kNano, {BucketWorkload("cdf", WorkloadKind::kPrefix,
                                         StrategyChoice{.kind = kind})}),
        1500, options);
  }
}

// 2-way marginals over four bool fields through the Fourier strategy.
TEST(StudyForecast, FourierMarginalsMatchTheirSimulation) {
  const RecordSchema schema =
      *RecordSchema::Create({FieldSpec::Bool("a"), FieldSpec::Bool("b"),
                             FieldSpec::Bool("c"), FieldSpec::Bool("d")});
  absl::StatusOr<DomainEncoding> encoding =
      DomainEncoding::Create(ProductEncoding{.fields = {{.field = "a"},
                                                        {.field = "b"},
                                                        {.field = "c"},
                                                        {.field = "d"}}},
                             schema);
  ASSERT_OK(encoding);
  const StudySpec spec{
      .display_name = "marginals",
      .schema = schema,
      .epsilon_cap_nanos = kNano,
      .questions = {Question{
          .id = "pairs",
          .kind = WorkloadQuestion{
              .encoding = *encoding,
              .workload = {.kind = WorkloadKind::kMarginals,
                           .num_bits = 4,
                           .order = 2},
              .strategy = StrategyChoice{.kind = StrategyKind::kFourier}}}}};
  ExpectSimulationMatches(spec, 1500, StructuredStrategiesOnly());
}

// Sample splitting: each question's reporters are a random share, whose
// mean differs from the population's; the prediction carries that term.
TEST(StudyForecast, SampleSplittingMatchesItsSimulation) {
  const StudySpec spec =
      MakeStudy(kNano / 2, {MeanQuestion("mean", "x", -1, 1),
                            NegativeShare("share", RealMechanismKind::kDuchi),
                            BucketHistogram("h")});
  absl::StatusOr<StudyForecast> forecast =
      ForecastStudy(spec, {.num_agents = 3000});
  ASSERT_OK(forecast);
  EXPECT_EQ(forecast->split, "sample_splitting");
  for (const QuestionForecast& q : forecast->questions) {
    EXPECT_NEAR(q.share, 1.0 / 3, 1e-9);
  }
  ExpectSimulationMatches(spec, 3000);
}

// The planner's n for τ = 0.01 at 95% for a counting query at ε = 1 against
// the smallest n that meets τ in simulation. The simulated errors' 95th
// percentile of √n·|error| is scale-free (a mean of n iid reports), so
// n_sim = (q₉₅/τ)², measured at n/32 (~1,100 agents) to keep 2,000 runs
// cheap.
TEST(StudyForecast, AgentsNeededMatchTheSimulatedMinimum) {
  const StudySpec spec = MakeStudy(kNano, {NegativeShare("share")});
  absl::StatusOr<StudyForecast> forecast =
      ForecastStudy(spec, {.target_error = 0.01});
  ASSERT_OK(forecast);
  const int64_t planned = forecast->questions[0].local.agents_needed;
  ASSERT_GT(planned, 1000);
  absl::StatusOr<std::vector<QuestionSimulation>> simulated = SimulateForecast(
      spec, {.num_agents = planned / 32, .runs = 2000, .seed = 3},
      SyntheticPopulation(spec, 5));
  ASSERT_OK(simulated);
  std::vector<double> errors = (*simulated)[0].scaled_errors;
  ASSERT_EQ(errors.size(), 2000u);
  std::sort(errors.begin(), errors.end());
  const double q95 = errors[static_cast<size_t>(0.95 * errors.size())];
  const double simulated_minimum = (q95 / 0.01) * (q95 / 0.01);
  EXPECT_NEAR(static_cast<double>(planned) / simulated_minimum, 1.0, 0.10)
      << "planned " << planned << ", simulated " << simulated_minimum;
}

TEST(StudyForecast, CentralBaselineIsFarSmallerForCounts) {
  const StudySpec spec = MakeStudy(kNano, {NegativeShare("share")});
  absl::StatusOr<StudyForecast> forecast =
      ForecastStudy(spec, {.num_agents = 1'000'000, .target_error = 0.01});
  ASSERT_OK(forecast);
  const QuestionForecast& q = forecast->questions[0];
  // Laplace at ε = 1 on a fraction of 10^6: scale 1e-6, rmse √2·1e-6.
  EXPECT_NEAR(q.central.rmse, std::sqrt(2.0) * 1e-6, 1e-12);
  EXPECT_NEAR(q.central.half_width, 1e-6 * std::log(20.0), 1e-12);
  EXPECT_EQ(q.central.agents_needed,
            static_cast<int64_t>(std::ceil(std::log(20.0) / 0.01)));
  // The price of locality grows like √n.
  EXPECT_GT(q.local.rmse / q.central.rmse, 100);
}

TEST(StudyForecast, ProgramsShowTheirSchedule) {
  StudySpec spec{.display_name = "thresholds",
                 .schema = *RecordSchema::Create(
                     {FieldSpec::Int("x", 0, 63), FieldSpec::Bool("y")}),
                 .epsilon_cap_nanos = 2 * kNano,
                 .mode = StudyMode::kInteractive,
                 .program = ProgramSpec{.name = "threshold_learner"}};
  absl::StatusOr<StudyForecast> forecast = ForecastStudy(spec, {});
  ASSERT_OK(forecast);
  EXPECT_EQ(forecast->num_rounds, static_cast<int>(forecast->schedule.size()));
  EXPECT_GE(forecast->num_rounds, 1);
  EXPECT_GT(forecast->epsilon_spent_nanos, 0);
  EXPECT_LE(forecast->epsilon_spent_nanos, spec.epsilon_cap_nanos);
  EXPECT_TRUE(forecast->questions.empty());
  // Locally the SQ learner needs far more agents than the central private
  // PAC learner over the same 65 thresholds at the same ε, α, β.
  EXPECT_GT(forecast->central_learner_agents, 0);
  EXPECT_GT(forecast->program_agents_needed,
            10 * forecast->central_learner_agents);
  EXPECT_THAT(forecast->central_learner, HasSubstr("65 thresholds"));
  ExpectInvalid(
      SimulateForecast(spec, {.num_agents = 10}, SyntheticPopulation(spec, 1))
          .status(),
      "noninteractive");
}

TEST(StudyForecast, RejectsBadOptions) {
  const StudySpec spec = MakeStudy(kNano, {NegativeShare("share")});
  ExpectInvalid(ForecastStudy(spec, {.num_agents = -1}).status(), "agents");
  ExpectInvalid(ForecastStudy(spec, {.target_error = std::nan("")}).status(),
                "target error");
  ExpectInvalid(
      SimulateForecast(spec, {.num_agents = 0}, SyntheticPopulation(spec, 1))
          .status(),
      "1 agent");
}

}  // namespace
}  // namespace ldp
