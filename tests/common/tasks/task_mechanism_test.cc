// TaskMechanism as the agent uses it: the charge rule, one valid report for
// every record, and validation of each report kind. Links ldp::tasks only,
// which carries no Eigen; the server's accumulators are tested
// in task_accumulator_test.cc.
#include "common/tasks/task_mechanism.h"

#include <cmath>
#include <string>

#include "gtest/gtest.h"
#include "tests/common/tasks/example_tasks.h"
#include "tests/testing/statistics.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using testing::Hierarchical;
using testing::HistogramTaskFor;
using testing::IncomeTask;
using testing::RecordWith;
using testing::SeededGenerator;
using testing::StatusIs;
using testing::WorkloadTaskFor;

TEST(TaskMechanism, RefusesARandomizerStrongerThanTheCharge) {
  EXPECT_OK(TaskMechanism::Create(HistogramTaskFor(kNanosPerEpsilon, 1.0)));
  EXPECT_THAT(
      TaskMechanism::Create(HistogramTaskFor(kNanosPerEpsilon / 2, 1.0)),
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
  ASSERT_NE((*mechanism)->strategy_randomizer(), nullptr);
  // TaskMechanism takes N from the encoding, whatever the spec said.
  EXPECT_EQ((*mechanism)->strategy_randomizer()->domain_size(), 4u);
  EXPECT_THAT(TaskMechanism::Create(
                  WorkloadTaskFor(kNanosPerEpsilon / 2, Hierarchical(1))),
              StatusIs(absl::StatusCode::kInvalidArgument));
  StrategySpec no_branching = Hierarchical(1);
  no_branching.branching = 1;
  EXPECT_THAT(
      TaskMechanism::Create(WorkloadTaskFor(kNanosPerEpsilon, no_branching)),
      StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(TaskMechanism::Create(WorkloadTaskFor(0, Hierarchical(1))),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

// RS+FD configured as its paper does (GRR at ε' = ln(d(e^ε − 1) + 1),
// charged ε) is refused: between two records that differ in both
// attributes the loss is ε'. Charged ε', it is accepted.
TEST(TaskMechanism, SamplingFakeDataIsChargedItsRecordLevelEpsilon) {
  StrategySpec fake;
  fake.kind = StrategyKind::kRandomSamplingFakeData;
  fake.attribute_sizes = {2, 2};  // color's 4 values as two attributes
  fake.epsilon = std::log(2 * (std::exp(1.0) - 1) + 1);
  EXPECT_THAT(TaskMechanism::Create(WorkloadTaskFor(kNanosPerEpsilon, fake)),
              StatusIs(absl::StatusCode::kInvalidArgument));
  const auto charged = static_cast<int64_t>(std::ceil(fake.epsilon * 1e9));
  auto mechanism = TaskMechanism::Create(WorkloadTaskFor(charged, fake));
  ASSERT_OK(mechanism);
  EXPECT_NEAR((*mechanism)->implemented_epsilon(), fake.epsilon, 1e-6);
}

TEST(TaskMechanism, WorkloadReportsValidateAndOthersDoNot) {
  auto mechanism =
      TaskMechanism::Create(WorkloadTaskFor(kNanosPerEpsilon, Hierarchical(1)));
  ASSERT_OK(mechanism);
  SeededGenerator gen(5);
  Record missing;
  for (const Record& r :
       {RecordWith(1, "blue"), RecordWith(1, "purple"), missing}) {
    const ReportPayload payload = (*mechanism)->Randomize(r, gen);
    ASSERT_TRUE(std::holds_alternative<WorkloadReport>(payload));
    EXPECT_OK((*mechanism)->Validate(payload));
  }
  const ReportPayload wrong = FrequencyReport{ItemReport{1}};
  EXPECT_THAT((*mechanism)->Validate(wrong),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT((*mechanism)->Validate(ScalarReport{.level = 0}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  // A group the strategy never samples.
  EXPECT_THAT(
      (*mechanism)
          ->Validate(WorkloadReport{.group = 1000, .inner = ItemReport{0}}),
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
  const ReportPayload wrong = FrequencyReport{ItemReport{1}};
  EXPECT_THAT((*mechanism)->Validate(wrong),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

// Exactly one randomizer is set, matching the question, for the server's
// accumulators to count with.
TEST(TaskMechanism, ExposesTheRandomizerItBuilt) {
  auto query = TaskMechanism::Create(IncomeTask());
  ASSERT_OK(query);
  EXPECT_NE((*query)->real_mechanism(), nullptr);
  EXPECT_EQ((*query)->oracle(), nullptr);
  EXPECT_EQ((*query)->strategy_randomizer(), nullptr);
  EXPECT_EQ((*query)->query_center(), 5.0);  // income in [0, 10]
  auto histogram = TaskMechanism::Create(HistogramTaskFor(kNanosPerEpsilon, 1));
  ASSERT_OK(histogram);
  EXPECT_NE((*histogram)->oracle(), nullptr);
  EXPECT_EQ((*histogram)->real_mechanism(), nullptr);
  EXPECT_EQ((*histogram)->strategy_randomizer(), nullptr);
  auto workload =
      TaskMechanism::Create(WorkloadTaskFor(kNanosPerEpsilon, Hierarchical(1)));
  ASSERT_OK(workload);
  EXPECT_EQ((*workload)->oracle(), nullptr);
  EXPECT_EQ((*workload)->real_mechanism(), nullptr);
  ASSERT_NE((*workload)->strategy_randomizer(), nullptr);
  EXPECT_EQ((*workload)->strategy_randomizer()->epsilon(),
            (*workload)->implemented_epsilon());
}

}  // namespace
}  // namespace ldp
