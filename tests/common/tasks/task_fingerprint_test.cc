#include "common/tasks/task_fingerprint.h"

#include <functional>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

RecordSchema FingerprintSchema(int64_t age_upper = 99) {
  auto schema = RecordSchema::Create(
      {FieldSpec::Int("age", 0, age_upper),
       FieldSpec::Categorical("color", {"red", "green", "blue"})});
  EXPECT_OK(schema);
  return *schema;
}

Task MeanAgeTask(const RecordSchema& schema, double upper = 99) {
  auto query = Query::Create(expr::Field("age"), {0, upper}, schema);
  EXPECT_OK(query);
  return Task{
      .study_id = 1,
      .round_id = 1,
      .task_id = 10,
      .epsilon_nanos = kNanosPerEpsilon,
      .question = StatisticalQueryTask{
          .query = *query,
          .mechanism = {.kind = RealMechanismKind::kDuchi, .epsilon = 1}}};
}

Task ColorTask(const RecordSchema& schema) {
  auto encoding =
      DomainEncoding::Create(FieldEncoding{.field = "color"}, schema);
  EXPECT_OK(encoding);
  return Task{
      .study_id = 1,
      .round_id = 1,
      .task_id = 11,
      .epsilon_nanos = kNanosPerEpsilon,
      .question = HistogramTask{
          .encoding = *encoding,
          .oracle = {
              .kind = FrequencyOracleKind::kGeneralizedRandomizedResponse,
              .epsilon = 1}}};
}

Task ColorCdfTask(const RecordSchema& schema) {
  auto encoding =
      DomainEncoding::Create(FieldEncoding{.field = "color"}, schema);
  EXPECT_OK(encoding);
  StrategySpec strategy;
  strategy.kind = StrategyKind::kHierarchical;
  strategy.epsilon = 1;
  strategy.domain_size = 3;
  strategy.branching = 2;
  return Task{.study_id = 1,
              .round_id = 1,
              .task_id = 12,
              .epsilon_nanos = kNanosPerEpsilon,
              .question = WorkloadTask{.encoding = *encoding,
                                       .strategy = std::move(strategy)}};
}

TEST(TaskFingerprint, IsAHexSha256) {
  const std::string fingerprint =
      TaskFingerprint(MeanAgeTask(FingerprintSchema()), FingerprintSchema());
  EXPECT_EQ(fingerprint.size(), 64u);
  EXPECT_EQ(fingerprint.find_first_not_of("0123456789abcdef"),
            std::string::npos);
}

// Agents' saved memos are keyed by fingerprints: if the encoding changed,
// an upgraded agent would answer a question it already answered afresh,
// spending its ε twice. These values were computed before any speed work on
// the writer.
TEST(TaskFingerprint, KeepsItsValueAcrossVersions) {
  const RecordSchema schema = FingerprintSchema();
  EXPECT_EQ(TaskFingerprint(MeanAgeTask(schema), schema),
            "9e887ab04d69cf3b1f92e7a99034ca781e5277ef570b62945bfb692c48725028");
  EXPECT_EQ(TaskFingerprint(ColorTask(schema), schema),
            "17d43febde3d54ee491f4c0e76c2ec44d1878b1e2a6b9dc1ff0169be7ff667db");
  EXPECT_EQ(TaskFingerprint(ColorCdfTask(schema), schema),
            "fb85c0e6ea98d76ec5aba81b0de088049985930dc6eb12d1f8cf7260624bba27");
}

TEST(TaskFingerprint, IgnoresIdsAndDerivedFields) {
  const RecordSchema schema = FingerprintSchema();
  for (const Task& base :
       {MeanAgeTask(schema), ColorTask(schema), ColorCdfTask(schema)}) {
    Task other = base;
    other.task_id += 100;
    other.round_id += 5;
    other.study_id += 7;       // the server names studies as it likes
    other.epsilon_nanos += 1;  // the charge is not the randomizer
    if (auto* sq = std::get_if<StatisticalQueryTask>(&other.question)) {
      sq->mechanism.bound = 12345;  // TaskMechanism derives it from the range
    } else if (auto* w = std::get_if<WorkloadTask>(&other.question)) {
      w->strategy.domain_size = 77;  // likewise from the encoding
    } else {
      std::get<HistogramTask>(other.question).oracle.domain_size = 77;
    }
    EXPECT_EQ(TaskFingerprint(base, schema), TaskFingerprint(other, schema));
  }
}

TEST(TaskFingerprint, ChangesWithAnythingThatChangesTheReport) {
  const RecordSchema schema = FingerprintSchema();
  const Task sq = MeanAgeTask(schema);
  const Task histogram = ColorTask(schema);
  std::vector<std::pair<std::string, std::string>> variants;
  auto add = [&](const char* name, const Task& task, const RecordSchema& s) {
    variants.emplace_back(name, TaskFingerprint(task, s));
  };
  add("base sq", sq, schema);
  add("base histogram", histogram, schema);
  Task t = sq;
  std::get<StatisticalQueryTask>(t.question).mechanism.epsilon = 0.5;
  add("mechanism epsilon", t, schema);
  t = sq;
  std::get<StatisticalQueryTask>(t.question).mechanism.kind =
      RealMechanismKind::kHybrid;
  add("mechanism kind", t, schema);
  add("output range", MeanAgeTask(schema, 50), schema);
  add("schema bounds", MeanAgeTask(FingerprintSchema(120)),
      FingerprintSchema(120));
  add("same task, other schema", sq, FingerprintSchema(120));
  t = histogram;
  std::get<HistogramTask>(t.question).oracle.kind =
      FrequencyOracleKind::kOptimizedUnaryEncoding;
  add("oracle kind", t, schema);
  t = histogram;
  std::get<HistogramTask>(t.question).oracle.rows_per_item = 6;
  add("hadamard rows per item", t, schema);
  t = histogram;
  std::get<HistogramTask>(t.question).oracle.kind =
      FrequencyOracleKind::kDBitFlip;
  std::get<HistogramTask>(t.question).oracle.sampled_buckets = 2;
  add("dBitFlipPM, 2 sampled buckets", t, schema);
  std::get<HistogramTask>(t.question).oracle.sampled_buckets = 3;
  add("dBitFlipPM, 3 sampled buckets", t, schema);
  t = histogram;
  std::get<HistogramTask>(t.question).oracle.kind =
      FrequencyOracleKind::kRappor;
  std::get<HistogramTask>(t.question).oracle.epsilon_permanent = 3;
  add("RAPPOR, default cohorts", t, schema);
  std::get<HistogramTask>(t.question).oracle.num_cohorts = 9;
  add("RAPPOR, 9 cohorts", t, schema);
  t = histogram;
  auto age = DomainEncoding::Create(
      FieldEncoding{.field = "age", .num_buckets = 10}, schema);
  ASSERT_OK(age);
  std::get<HistogramTask>(t.question).encoding = *age;
  add("encoding", t, schema);
  // Workload tasks: every strategy field that shapes the report counts, and
  // a workload task never collides with a histogram of the same encoding.
  const Task cdf = ColorCdfTask(schema);
  add("base workload", cdf, schema);
  const std::vector<std::pair<const char*, std::function<void(StrategySpec&)>>>
      strategy_changes = {
          {"strategy kind",
           [](StrategySpec& s) { s.kind = StrategyKind::kHaar; }},
          {"strategy epsilon", [](StrategySpec& s) { s.epsilon = 0.5; }},
          {"branching", [](StrategySpec& s) { s.branching = 3; }},
          {"bits", [](StrategySpec& s) { s.num_bits = 2; }},
          {"order", [](StrategySpec& s) { s.order = 1; }},
          {"weights", [](StrategySpec& s) { s.level_weights = {1.0}; }},
          {"rows", [](StrategySpec& s) { s.rows = 2; }},
          {"matrix", [](StrategySpec& s) { s.matrix = {0.0}; }},
          {"matrix value", [](StrategySpec& s) { s.matrix = {-0.0}; }},
      };
  for (const auto& [name, change] : strategy_changes) {
    t = cdf;
    change(std::get<WorkloadTask>(t.question).strategy);
    add(name, t, schema);
  }
  for (size_t i = 0; i < variants.size(); ++i) {
    for (size_t j = i + 1; j < variants.size(); ++j) {
      EXPECT_NE(variants[i].second, variants[j].second)
          << variants[i].first << " vs " << variants[j].first;
    }
  }
}

}  // namespace
}  // namespace ldp
