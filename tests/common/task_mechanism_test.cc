#include "common/task_mechanism.h"

#include <cmath>
#include <string>

#include "common/workload/strategy.h"
#include "common/workload/workload.h"
#include "common/workload/workload_estimator.h"
#include "gtest/gtest.h"
#include "tests/testing/statistics.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using testing::SeededGenerator;
using testing::StatusIs;

RecordSchema Schema() {
  auto schema = RecordSchema::Create(
      {FieldSpec::Real("income", 0, 10),
       FieldSpec::Categorical("color", {"red", "green", "blue", "other"})});
  EXPECT_OK(schema);
  return *schema;
}

Task HistogramTaskFor(int64_t epsilon_nanos, double oracle_epsilon) {
  auto encoding = DomainEncoding::Create(FieldEncoding{.field = "color"}, Schema());
  EXPECT_OK(encoding);
  return Task{.task_id = 7,
              .epsilon_nanos = epsilon_nanos,
              .question = HistogramTask{
                  .encoding = *encoding,
                  .oracle = {.kind = FrequencyOracleKind::kGeneralizedRandomizedResponse,
                             .epsilon = oracle_epsilon}}};
}

Task IncomeTask() {
  auto query = Query::Create(expr::Field("income"), {0, 10}, Schema());
  EXPECT_OK(query);
  return Task{.task_id = 8,
              .epsilon_nanos = kNanosPerEpsilon,
              .question = StatisticalQueryTask{
                  .query = *query,
                  .mechanism = {.kind = RealMechanismKind::kHybrid, .epsilon = 1}}};
}

// The CDF of `color` (N = 4) through a workload strategy at εₜ.
Task WorkloadTaskFor(int64_t epsilon_nanos, StrategySpec strategy) {
  auto encoding = DomainEncoding::Create(FieldEncoding{.field = "color"}, Schema());
  EXPECT_OK(encoding);
  return Task{.task_id = 9,
              .epsilon_nanos = epsilon_nanos,
              .question = WorkloadTask{.encoding = *encoding,
                                       .strategy = std::move(strategy)}};
}

StrategySpec Hierarchical(double epsilon) {
  StrategySpec spec;
  spec.kind = StrategyKind::kHierarchical;
  spec.epsilon = epsilon;
  spec.branching = 2;
  return spec;
}

Record RecordWith(double income, std::string color) {
  Record record;
  record.values["income"] = income;
  record.values["color"] = std::move(color);
  return record;
}

TEST(TaskMechanism, RefusesARandomizerStrongerThanTheCharge) {
  EXPECT_OK(TaskMechanism::Create(HistogramTaskFor(kNanosPerEpsilon, 1.0)));
  EXPECT_THAT(TaskMechanism::Create(HistogramTaskFor(kNanosPerEpsilon / 2, 1.0)),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(TaskMechanism::Create(HistogramTaskFor(0, 1.0)),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(TaskMechanism::Create(HistogramTaskFor(kNanosPerEpsilon, -1.0)),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

// The same charge rule for workload strategies: the strategy's implemented
// ε may not exceed εₜ, and a spec the factory refuses is refused here.
TEST(TaskMechanism, WorkloadStrategiesFollowTheChargeRule) {
  auto mechanism =
      TaskMechanism::Create(WorkloadTaskFor(kNanosPerEpsilon, Hierarchical(1)));
  ASSERT_OK(mechanism);
  EXPECT_LE((*mechanism)->implemented_epsilon(), 1.0);
  ASSERT_NE((*mechanism)->strategy(), nullptr);
  // TaskMechanism takes N from the encoding, whatever the spec said.
  EXPECT_EQ((*mechanism)->strategy()->domain_size(), 4u);
  EXPECT_THAT(TaskMechanism::Create(
                  WorkloadTaskFor(kNanosPerEpsilon / 2, Hierarchical(1))),
              StatusIs(absl::StatusCode::kInvalidArgument));
  StrategySpec no_branching = Hierarchical(1);
  no_branching.branching = 1;
  EXPECT_THAT(TaskMechanism::Create(WorkloadTaskFor(kNanosPerEpsilon, no_branching)),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(TaskMechanism::Create(WorkloadTaskFor(0, Hierarchical(1))),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(TaskMechanism, WorkloadReportsValidateAndOthersDoNot) {
  auto mechanism =
      TaskMechanism::Create(WorkloadTaskFor(kNanosPerEpsilon, Hierarchical(1)));
  ASSERT_OK(mechanism);
  SeededGenerator gen(5);
  Record missing;
  for (const Record& r : {RecordWith(1, "blue"), RecordWith(1, "purple"), missing}) {
    const ReportPayload payload = (*mechanism)->Randomize(r, gen);
    ASSERT_TRUE(std::holds_alternative<WorkloadReport>(payload));
    EXPECT_OK((*mechanism)->Validate(payload));
  }
  TaskAccumulator accumulator(*mechanism);
  const ReportPayload wrong = FrequencyReport{ItemReport{1}};
  EXPECT_THAT((*mechanism)->Validate(wrong),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(accumulator.Add(wrong), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(accumulator.Add(ScalarReport{.level = 0}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  // A group the strategy never samples.
  EXPECT_THAT(accumulator.Add(WorkloadReport{.group = 1000, .inner = ItemReport{0}}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_EQ(accumulator.num_reports(), 0);
  // Without an estimator the estimate says how many reports, and no more.
  const auto empty = std::get<WorkloadAnswer>(accumulator.Estimate(0.9));
  EXPECT_EQ(empty.num_reports, 0);
  EXPECT_TRUE(empty.answers.empty());
}

// End to end through the task layer: the CDF of colors, answered through
// the task's strategy and the estimator the server would attach, lands in
// its simultaneous band.
TEST(TaskMechanism, EstimatesAWorkload) {
  auto mechanism =
      TaskMechanism::Create(WorkloadTaskFor(kNanosPerEpsilon, Hierarchical(1)));
  ASSERT_OK(mechanism);
  absl::StatusOr<Workload> cdf =
      Workload::Create({.kind = WorkloadKind::kPrefix, .domain_size = 4});
  ASSERT_OK(cdf);
  absl::StatusOr<std::shared_ptr<const WorkloadEstimator>> estimator =
      WorkloadEstimator::Create(*cdf, (*mechanism)->strategy());
  ASSERT_OK(estimator);
  TaskAccumulator accumulator(*mechanism, {.estimator = *estimator,
                                           .consistency = true});
  SeededGenerator gen(13);
  const char* colors[] = {"red", "red", "green", "blue"};
  constexpr int kAgents = 40'000;
  for (int i = 0; i < kAgents; ++i) {
    ASSERT_OK(accumulator.Add((*mechanism)->Randomize(RecordWith(1, colors[i % 4]), gen)));
  }
  EXPECT_EQ(accumulator.StrategyEstimate().size(),
            static_cast<Eigen::Index>((*mechanism)->strategy()->output_dimension()));
  const auto answer = std::get<WorkloadAnswer>(accumulator.Estimate(0.99));
  EXPECT_EQ(answer.num_reports, kAgents);
  EXPECT_EQ(answer.confidence, 0.99);
  EXPECT_GT(answer.band_z, 0);
  ASSERT_EQ(answer.answers.size(), 4u);
  const double truth[] = {0.5, 0.75, 1.0, 1.0};
  for (int t = 0; t < 4; ++t) {
    EXPECT_GE(answer.standard_errors[t], 0);
    // x ≤ 3 holds for everyone: its answer is exact up to rounding (se ≈ 0).
    EXPECT_NEAR(answer.answers[t], truth[t],
                answer.band_z * answer.standard_errors[t] + 1e-9)
        << t;
  }
  EXPECT_GT(answer.standard_errors[0], 0);
  ASSERT_TRUE(answer.consistent_answers.has_value());
  EXPECT_NEAR((*answer.consistent_answers)[3], 1.0, 1e-9);
}

TEST(TaskMechanism, OddRecordsStillYieldOneValidReport) {
  auto mechanism = TaskMechanism::Create(IncomeTask());
  ASSERT_OK(mechanism);
  auto histogram = TaskMechanism::Create(HistogramTaskFor(kNanosPerEpsilon, 1));
  ASSERT_OK(histogram);
  SeededGenerator gen(3);
  Record missing;
  Record odd = RecordWith(std::nan(""), "purple");
  Record huge = RecordWith(1e308, "red");
  for (const Record* r : {&missing, &odd, &huge}) {
    EXPECT_OK((*mechanism)->Validate((*mechanism)->Randomize(*r, gen)));
    EXPECT_OK((*histogram)->Validate((*histogram)->Randomize(*r, gen)));
  }
}

TEST(TaskMechanism, RejectsTheWrongKindOfReport) {
  auto mechanism = TaskMechanism::Create(IncomeTask());
  ASSERT_OK(mechanism);
  TaskAccumulator accumulator(*mechanism);
  const ReportPayload wrong = FrequencyReport{ItemReport{1}};
  EXPECT_THAT((*mechanism)->Validate(wrong),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(accumulator.Add(wrong), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_EQ(accumulator.num_reports(), 0);
}

// End to end through the task layer: the estimate of E[income] lands within
// 5 standard errors of the truth and in the query's own units.
TEST(TaskMechanism, EstimatesAQueryInItsOwnRange) {
  auto mechanism = TaskMechanism::Create(IncomeTask());
  ASSERT_OK(mechanism);
  TaskAccumulator accumulator(*mechanism);
  SeededGenerator gen(11);
  double truth = 0;
  constexpr int kAgents = 20'000;
  for (int i = 0; i < kAgents; ++i) {
    const double income = 10.0 * ((i * 7919) % kAgents) / kAgents;
    truth += income;
    ASSERT_OK(accumulator.Add((*mechanism)->Randomize(RecordWith(income, "red"), gen)));
  }
  truth /= kAgents;
  const auto estimate = std::get<ScalarEstimate>(accumulator.Estimate(0.95));
  EXPECT_EQ(estimate.num_reports, kAgents);
  EXPECT_NEAR(estimate.value, truth, 5 * estimate.standard_error);
  EXPECT_TRUE(estimate.interval.lower < estimate.value &&
              estimate.value < estimate.interval.upper);
  EXPECT_GT(estimate.value, 2.0);  // in income units, not shifted to [-5, 5]
}

TEST(TaskMechanism, EstimatesAHistogram) {
  auto mechanism = TaskMechanism::Create(HistogramTaskFor(kNanosPerEpsilon, 1));
  ASSERT_OK(mechanism);
  TaskAccumulator accumulator(*mechanism);
  SeededGenerator gen(12);
  const char* colors[] = {"red", "red", "green", "blue"};
  for (int i = 0; i < 40'000; ++i) {
    ASSERT_OK(accumulator.Add((*mechanism)->Randomize(RecordWith(1, colors[i % 4]), gen)));
  }
  const auto estimate = std::get<HistogramEstimate>(accumulator.Estimate(0.95));
  const double truth[] = {0.5, 0.25, 0.25, 0};
  for (int v = 0; v < 4; ++v) {
    EXPECT_NEAR(estimate.frequencies[v], truth[v], 5 * std::sqrt(estimate.variances[v]));
  }
}

}  // namespace
}  // namespace ldp
