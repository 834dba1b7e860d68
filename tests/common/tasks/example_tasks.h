// Example tasks over one small schema, shared by the agent-side test of
// TaskMechanism (task_mechanism_test.cc) and the server-side test of its
// accumulator (task_accumulator_test.cc).
#ifndef LDP_TESTS_COMMON_TASKS_EXAMPLE_TASKS_H_
#define LDP_TESTS_COMMON_TASKS_EXAMPLE_TASKS_H_

#include <string>
#include <utility>

#include "common/queries/domain_encoding.h"
#include "common/queries/query_expression.h"
#include "common/queries/record_schema.h"
#include "common/tasks/task.h"
#include "tests/testing/status_matchers.h"

namespace ldp::testing {

inline RecordSchema Schema() {
  auto schema = RecordSchema::Create(
      {FieldSpec::Real("income", 0, 10),
       FieldSpec::Categorical("color", {"red", "green", "blue", "other"})});
  EXPECT_OK(schema);
  return *schema;
}

inline Task HistogramTaskFor(int64_t epsilon_nanos, double oracle_epsilon) {
  auto encoding =
      DomainEncoding::Create(FieldEncoding{.field = "color"}, Schema());
  EXPECT_OK(encoding);
  return Task{
      .task_id = 7,
      .epsilon_nanos = epsilon_nanos,
      .question = HistogramTask{
          .encoding = *encoding,
          .oracle = {
              .kind = FrequencyOracleKind::kGeneralizedRandomizedResponse,
              .epsilon = oracle_epsilon}}};
}

inline Task IncomeTask() {
  auto query = Query::Create(expr::Field("income"), {0, 10}, Schema());
  EXPECT_OK(query);
  return Task{
      .task_id = 8,
      .epsilon_nanos = kNanosPerEpsilon,
      .question = StatisticalQueryTask{
          .query = *query,
          .mechanism = {.kind = RealMechanismKind::kHybrid, .epsilon = 1}}};
}

// The CDF of `color` (N = 4) through a workload strategy at εₜ.
inline Task WorkloadTaskFor(int64_t epsilon_nanos, StrategySpec strategy) {
  auto encoding =
      DomainEncoding::Create(FieldEncoding{.field = "color"}, Schema());
  EXPECT_OK(encoding);
  return Task{.task_id = 9,
              .epsilon_nanos = epsilon_nanos,
              .question = WorkloadTask{.encoding = *encoding,
                                       .strategy = std::move(strategy)}};
}

inline StrategySpec Hierarchical(double epsilon) {
  StrategySpec spec;
  spec.kind = StrategyKind::kHierarchical;
  spec.epsilon = epsilon;
  spec.branching = 2;
  return spec;
}

inline Record RecordWith(double income, std::string color) {
  Record record;
  record.values["income"] = income;
  record.values["color"] = std::move(color);
  return record;
}

}  // namespace ldp::testing

#endif  // LDP_TESTS_COMMON_TASKS_EXAMPLE_TASKS_H_
