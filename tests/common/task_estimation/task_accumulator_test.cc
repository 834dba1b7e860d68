// TaskAccumulator, the server's side of a task: it counts only valid
// reports of the task's kind and estimates each kind in its own units, a
// workload through the strategy built around the task's randomizer.
#include "common/task_estimation/task_accumulator.h"

#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "common/workload/strategies/strategy.h"
#include "common/workload/strategies/workload.h"
#include "common/workload/strategies/workload_estimator.h"
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

TEST(TaskAccumulator, CountsOnlyValidWorkloadReports) {
  auto mechanism =
      TaskMechanism::Create(WorkloadTaskFor(kNanosPerEpsilon, Hierarchical(1)));
  ASSERT_OK(mechanism);
  TaskAccumulator accumulator(*mechanism);
  const ReportPayload wrong = FrequencyReport{ItemReport{1}};
  EXPECT_THAT(accumulator.Add(wrong),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(accumulator.Add(ScalarReport{.level = 0}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  // A group the strategy never samples.
  EXPECT_THAT(
      accumulator.Add(WorkloadReport{.group = 1000, .inner = ItemReport{0}}),
      StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_EQ(accumulator.num_reports(), 0);
  // Without an estimator the estimate says how many reports, and no more.
  const auto empty = std::get<WorkloadAnswer>(accumulator.Estimate(0.9));
  EXPECT_EQ(empty.num_reports, 0);
  EXPECT_TRUE(empty.answers.empty());
  // Valid reports count.
  SeededGenerator gen(5);
  ASSERT_OK(
      accumulator.Add((*mechanism)->Randomize(RecordWith(1, "blue"), gen)));
  EXPECT_EQ(accumulator.num_reports(), 1);
}

// The strategy the server builds shares the task's randomizer: one object
// draws, checks and decodes.
TEST(TaskAccumulator, TaskStrategyWrapsTheTasksRandomizer) {
  auto mechanism =
      TaskMechanism::Create(WorkloadTaskFor(kNanosPerEpsilon, Hierarchical(1)));
  ASSERT_OK(mechanism);
  absl::StatusOr<std::shared_ptr<const StrategyMechanism>> strategy =
      TaskStrategy(**mechanism);
  ASSERT_OK(strategy);
  EXPECT_EQ((*strategy)->randomizer(), (*mechanism)->strategy_randomizer());
  EXPECT_EQ((*strategy)->domain_size(), 4u);
  auto histogram = TaskMechanism::Create(HistogramTaskFor(kNanosPerEpsilon, 1));
  ASSERT_OK(histogram);
  EXPECT_THAT(TaskStrategy(**histogram),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

// End to end through the task layer: the CDF of colors, answered through
// the task's strategy and the estimator the server would attach, lands in
// its simultaneous band.
TEST(TaskAccumulator, EstimatesAWorkload) {
  auto mechanism =
      TaskMechanism::Create(WorkloadTaskFor(kNanosPerEpsilon, Hierarchical(1)));
  ASSERT_OK(mechanism);
  absl::StatusOr<Workload> cdf =
      Workload::Create({.kind = WorkloadKind::kPrefix, .domain_size = 4});
  ASSERT_OK(cdf);
  absl::StatusOr<std::shared_ptr<const StrategyMechanism>> strategy =
      TaskStrategy(**mechanism);
  ASSERT_OK(strategy);
  absl::StatusOr<std::shared_ptr<const WorkloadEstimator>> estimator =
      WorkloadEstimator::Create(*cdf, *strategy);
  ASSERT_OK(estimator);
  TaskAccumulator accumulator(
      *mechanism,
      {.estimator = *estimator, .consistency = true, .strategy = *strategy});
  SeededGenerator gen(13);
  const char* colors[] = {"red", "red", "green", "blue"};
  constexpr int kAgents = 40'000;
  for (int i = 0; i < kAgents; ++i) {
    ASSERT_OK(accumulator.Add(
        (*mechanism)->Randomize(RecordWith(1, colors[i % 4]), gen)));
  }
  EXPECT_EQ(accumulator.StrategyEstimate().size(),
            static_cast<size_t>((*strategy)->output_dimension()));
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

// Without a strategy in its WorkloadEstimation the accumulator builds its
// own around the task's randomizer, and estimates alike.
TEST(TaskAccumulator, BuildsItsOwnStrategyWhenNoneIsGiven) {
  auto mechanism =
      TaskMechanism::Create(WorkloadTaskFor(kNanosPerEpsilon, Hierarchical(1)));
  ASSERT_OK(mechanism);
  absl::StatusOr<Workload> cdf =
      Workload::Create({.kind = WorkloadKind::kPrefix, .domain_size = 4});
  ASSERT_OK(cdf);
  absl::StatusOr<std::shared_ptr<const StrategyMechanism>> strategy =
      TaskStrategy(**mechanism);
  ASSERT_OK(strategy);
  absl::StatusOr<std::shared_ptr<const WorkloadEstimator>> estimator =
      WorkloadEstimator::Create(*cdf, *strategy);
  ASSERT_OK(estimator);
  TaskAccumulator given(*mechanism,
                        {.estimator = *estimator, .strategy = *strategy});
  TaskAccumulator own(*mechanism, {.estimator = *estimator});
  SeededGenerator gen(14);
  const char* colors[] = {"red", "green", "blue", "other"};
  for (int i = 0; i < 2'000; ++i) {
    const ReportPayload report =
        (*mechanism)->Randomize(RecordWith(1, colors[i % 4]), gen);
    ASSERT_OK(given.Add(report));
    ASSERT_OK(own.Add(report));
  }
  EXPECT_EQ(own.StrategyEstimate(), given.StrategyEstimate());
  EXPECT_EQ(std::get<WorkloadAnswer>(own.Estimate(0.9)).answers,
            std::get<WorkloadAnswer>(given.Estimate(0.9)).answers);
}

TEST(TaskAccumulator, RejectsTheWrongKindOfReport) {
  auto mechanism = TaskMechanism::Create(IncomeTask());
  ASSERT_OK(mechanism);
  TaskAccumulator accumulator(*mechanism);
  const ReportPayload wrong = FrequencyReport{ItemReport{1}};
  EXPECT_THAT(accumulator.Add(wrong),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_EQ(accumulator.num_reports(), 0);
  auto histogram = TaskMechanism::Create(HistogramTaskFor(kNanosPerEpsilon, 1));
  ASSERT_OK(histogram);
  TaskAccumulator counts(*histogram);
  EXPECT_THAT(counts.Add(ScalarReport{.level = 0}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_EQ(counts.num_reports(), 0);
  EXPECT_TRUE(counts.StrategyEstimate().empty());
}

// End to end through the task layer: the estimate of E[income] lands within
// 5 standard errors of the truth and in the query's own units.
TEST(TaskAccumulator, EstimatesAQueryInItsOwnRange) {
  auto mechanism = TaskMechanism::Create(IncomeTask());
  ASSERT_OK(mechanism);
  TaskAccumulator accumulator(*mechanism);
  SeededGenerator gen(11);
  double truth = 0;
  constexpr int kAgents = 20'000;
  for (int i = 0; i < kAgents; ++i) {
    const double income = 10.0 * ((i * 7919) % kAgents) / kAgents;
    truth += income;
    ASSERT_OK(accumulator.Add(
        (*mechanism)->Randomize(RecordWith(income, "red"), gen)));
  }
  truth /= kAgents;
  const auto estimate = std::get<ScalarEstimate>(accumulator.Estimate(0.95));
  EXPECT_EQ(estimate.num_reports, kAgents);
  EXPECT_NEAR(estimate.value, truth, 5 * estimate.standard_error);
  EXPECT_TRUE(estimate.interval.lower < estimate.value &&
              estimate.value < estimate.interval.upper);
  EXPECT_GT(estimate.value, 2.0);  // in income units, not shifted to [-5, 5]
}

TEST(TaskAccumulator, EstimatesAHistogram) {
  auto mechanism = TaskMechanism::Create(HistogramTaskFor(kNanosPerEpsilon, 1));
  ASSERT_OK(mechanism);
  TaskAccumulator accumulator(*mechanism);
  SeededGenerator gen(12);
  const char* colors[] = {"red", "red", "green", "blue"};
  for (int i = 0; i < 40'000; ++i) {
    ASSERT_OK(accumulator.Add(
        (*mechanism)->Randomize(RecordWith(1, colors[i % 4]), gen)));
  }
  const auto estimate = std::get<HistogramEstimate>(accumulator.Estimate(0.95));
  const double truth[] = {0.5, 0.25, 0.25, 0};
  for (int v = 0; v < 4; ++v) {
    EXPECT_NEAR(estimate.frequencies[v], truth[v],
                5 * std::sqrt(estimate.variances[v]));
  }
}

// Per-shard statistics of each kind of task (histogram, mean, workload)
// stored and merged later: the shards' states merged into an empty
// accumulator estimate what one accumulator of every report does, and a
// state of another kind of task is refused and changes nothing.
TEST(TaskAccumulator, ShardStatesMergeIntoOneEstimate) {
  const Task tasks[] = {HistogramTaskFor(kNanosPerEpsilon, 1), IncomeTask(),
                        WorkloadTaskFor(kNanosPerEpsilon, Hierarchical(1))};
  std::vector<std::shared_ptr<const TaskMechanism>> mechanisms;
  std::vector<AccumulatorState> states;
  for (const Task& task : tasks) {
    SCOPED_TRACE(task.task_id);
    auto mechanism = TaskMechanism::Create(task);
    ASSERT_OK(mechanism);
    TaskAccumulator all(*mechanism), left(*mechanism), right(*mechanism);
    SeededGenerator gen(15);
    const char* colors[] = {"red", "green", "blue", "red"};
    for (int i = 0; i < 900; ++i) {
      const ReportPayload report =
          (*mechanism)->Randomize(RecordWith(i % 10, colors[i % 4]), gen);
      ASSERT_OK(all.Add(report));
      ASSERT_OK((i % 3 == 0 ? left : right).Add(report));
    }
    TaskAccumulator copy(*mechanism), merged(*mechanism);
    ASSERT_OK(copy.MergeState(all.State()));
    EXPECT_TRUE(copy.State() == all.State());
    ASSERT_OK(merged.MergeState(left.State()));
    ASSERT_OK(merged.MergeState(right.State()));
    EXPECT_EQ(merged.num_reports(), 900);
    EXPECT_EQ(merged.StrategyEstimate(), all.StrategyEstimate());
    const TaskEstimate want = all.Estimate(0.9);
    const TaskEstimate got = merged.Estimate(0.9);
    ASSERT_EQ(got.index(), want.index());
    if (const auto* h = std::get_if<HistogramEstimate>(&want)) {
      EXPECT_EQ(std::get<HistogramEstimate>(got).frequencies, h->frequencies);
    } else if (const auto* x = std::get_if<ScalarEstimate>(&want)) {
      // Sums of doubles, grouped otherwise: equal up to rounding.
      EXPECT_DOUBLE_EQ(std::get<ScalarEstimate>(got).value, x->value);
    } else {
      EXPECT_EQ(std::get<WorkloadAnswer>(got).num_reports, 900);
    }
    mechanisms.push_back(*std::move(mechanism));
    states.push_back(all.State());
  }
  for (size_t t = 0; t < mechanisms.size(); ++t) {
    TaskAccumulator accumulator(mechanisms[t]);
    ASSERT_OK(accumulator.MergeState(states[t]));
    for (size_t other = 0; other < states.size(); ++other) {
      if (other == t) continue;
      EXPECT_THAT(accumulator.MergeState(states[other]),
                  StatusIs(absl::StatusCode::kInvalidArgument))
          << "task #" << t << " given the state of task #" << other;
      EXPECT_TRUE(accumulator.State() == states[t]);
    }
  }
}

}  // namespace
}  // namespace ldp
