// Study specs shared by the server tests.
#ifndef LDP_TESTS_SERVER_CORE_TEST_STUDIES_H_
#define LDP_TESTS_SERVER_CORE_TEST_STUDIES_H_

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/queries/domain_encoding.h"
#include "common/queries/query_expression.h"
#include "common/queries/record_schema.h"
#include "common/tasks/study_spec.h"
#include "common/tasks/task.h"
#include "common/workload/strategies/strategy_planner.h"

namespace ldp::testing {

// x: a real in [-1, 1]; bucket: an int in [0, 63] (a 64-item histogram).
inline RecordSchema TestSchema() {
  return *RecordSchema::Create({FieldSpec::Real("x", -1, 1),
                                FieldSpec::Int("bucket", 0, 63),
                                FieldSpec::Real("y", 0, 10)});
}

inline Question MeanQuestion(std::string id, std::string field, double lower,
                             double upper,
                             RealMechanismKind kind = RealMechanismKind::kDuchi,
                             int64_t epsilon_nanos = 0,
                             int64_t target_reports = 0) {
  return Question{.id = std::move(id),
                  .kind =
                      StatisticalQueryQuestion{
                          .query = *Query::Create(
                              expr::Field(std::move(field)),
                              {.lower = lower, .upper = upper}, TestSchema()),
                          .mechanism = kind},
                  .epsilon_nanos = epsilon_nanos,
                  .target_reports = target_reports};
}

inline Question BucketHistogram(
    std::string id, std::optional<FrequencyOracleSpec> oracle = std::nullopt,
    std::optional<ConsistencyMethod> post_processing = std::nullopt) {
  return Question{.id = std::move(id),
                  .kind = HistogramQuestion{
                      .encoding = *DomainEncoding::Create(
                          FieldEncoding{.field = "bucket"}, TestSchema()),
                      .oracle = std::move(oracle),
                      .post_processing = post_processing}};
}

// The CDF (or another workload) of `bucket` (N = 64); the strategy is the
// planner's unless `strategy` names one.
inline Question BucketWorkload(
    std::string id, WorkloadKind kind = WorkloadKind::kPrefix,
    std::optional<StrategyChoice> strategy = std::nullopt,
    bool consistency = false) {
  return Question{.id = std::move(id),
                  .kind = WorkloadQuestion{
                      .encoding = *DomainEncoding::Create(
                          FieldEncoding{.field = "bucket"}, TestSchema()),
                      .workload = {.kind = kind, .domain_size = 64},
                      .strategy = strategy,
                      .consistency = consistency}};
}

// Strategy planning without the optimizers: fast enough for unit tests.
inline StrategyPlannerOptions StructuredStrategiesOnly() {
  return {.include_optimized_matrix = false, .include_factorization = false};
}

inline StudySpec MakeStudy(int64_t cap_nanos, std::vector<Question> questions) {
  return StudySpec{.display_name = "test study",
                   .schema = TestSchema(),
                   .epsilon_cap_nanos = cap_nanos,
                   .questions = std::move(questions)};
}

}  // namespace ldp::testing

#endif  // LDP_TESTS_SERVER_CORE_TEST_STUDIES_H_
