#include "common/task_mechanism.h"

#include <cmath>
#include <string>

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
