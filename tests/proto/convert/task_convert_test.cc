#include "proto/convert/task_convert.h"

#include <string>

#include "absl/random/bit_gen_ref.h"
#include "absl/strings/str_cat.h"
#include "common/tasks/task_mechanism.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "proto/convert/schema_convert.h"
#include "tests/proto/convert/convert_testing.h"
#include "tests/testing/statistics.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using ::ldp::testing::kInvalid;
using ::ldp::testing::kSchemaText;
using ::ldp::testing::ParseText;
using ::ldp::testing::ProtoEquals;
using ::ldp::testing::SeededGenerator;
using ::ldp::testing::StatusIs;
using ::testing::HasSubstr;

// The parts, followed by the golden schema.
template <typename... Parts>
std::string WithSchema(const Parts&... parts) {
  return absl::StrCat(parts..., " schema {", kSchemaText, "}");
}

const std::string kHistogramTask = WithSchema(R"pb(
  study_id: 7
  round_id: 8
  task_id: 9
  encoding {
    product {
      fields { field: "smoker" }
      fields { field: "country" }
    }
  }
  randomizer {
    epsilon_nanos: 1000000000
    domain_size: 6
    olh { num_buckets: 4 }
  }
  epsilon_nanos: 1000000000
  deadline { seconds: 1700000000 nanos: 5 }
)pb");

const std::string kQueryTask = WithSchema(R"pb(
  study_id: 1
  round_id: 2
  task_id: 3
  query {
    root { field: "income" }
    output_range { lower: -10 upper: 100 }
  }
  randomizer {
    epsilon_nanos: 500000000
    piecewise { num_cells: 32 }
  }
  epsilon_nanos: 500000000
)pb");

// A workload task: the encoding and a strategy (a hierarchical tree over
// the 121 ages, padded to 4^4).
const std::string kWorkloadTask = WithSchema(R"pb(
  study_id: 4
  round_id: 5
  task_id: 6
  encoding { field { field: "age" } }
  randomizer {
    epsilon_nanos: 1000000000
    domain_size: 121
    strategy { kind: HIERARCHICAL branching: 4 }
  }
  epsilon_nanos: 1000000000
)pb");

TEST(TaskConvert, GoldenRoundTrips) {
  for (const std::string& text : {kHistogramTask, kQueryTask, kWorkloadTask}) {
    const auto proto = ParseText<v1::Task>(text);
    absl::StatusOr<TaskEnvelope> envelope = TaskFromProto(proto);
    ASSERT_OK(envelope) << text;
    v1::Task back;
    TaskToProto(*envelope, &back);
    EXPECT_TRUE(ProtoEquals(back, proto));
  }
}

TEST(TaskConvert, ReadsEveryPart) {
  absl::StatusOr<TaskEnvelope> envelope =
      TaskFromProto(ParseText<v1::Task>(kHistogramTask));
  ASSERT_OK(envelope);
  const Task& task = envelope->task;
  EXPECT_EQ(task.study_id, 7u);
  EXPECT_EQ(task.round_id, 8u);
  EXPECT_EQ(task.task_id, 9u);
  EXPECT_EQ(task.epsilon_nanos, 1'000'000'000);
  EXPECT_EQ(envelope->schema.fields().size(), 5u);
  EXPECT_EQ(envelope->deadline,
            absl::FromUnixSeconds(1'700'000'000) + absl::Nanoseconds(5));
  const auto& h = std::get<HistogramTask>(task.question);
  EXPECT_EQ(h.encoding.domain_size(), 6u);
  EXPECT_EQ(h.oracle.kind, FrequencyOracleKind::kOptimizedLocalHashing);
  EXPECT_EQ(h.oracle.epsilon, 1.0);
  EXPECT_EQ(h.oracle.num_buckets, 4u);

  absl::StatusOr<TaskEnvelope> sq =
      TaskFromProto(ParseText<v1::Task>(kQueryTask));
  ASSERT_OK(sq);
  EXPECT_FALSE(sq->deadline.has_value());
  const auto& q = std::get<StatisticalQueryTask>(sq->task.question);
  EXPECT_EQ(q.mechanism.kind, RealMechanismKind::kPiecewise);
  EXPECT_EQ(q.mechanism.epsilon, 0.5);
  EXPECT_EQ(q.mechanism.bound, 55);  // half of [-10, 100]
  EXPECT_EQ(q.mechanism.num_cells, 32);

  absl::StatusOr<TaskEnvelope> workload =
      TaskFromProto(ParseText<v1::Task>(kWorkloadTask));
  ASSERT_OK(workload);
  const auto& w = std::get<WorkloadTask>(workload->task.question);
  EXPECT_EQ(w.encoding.domain_size(), 121u);
  EXPECT_EQ(w.strategy.kind, StrategyKind::kHierarchical);
  EXPECT_EQ(w.strategy.branching, 4u);
  EXPECT_EQ(w.strategy.epsilon, 1.0);
  EXPECT_EQ(w.strategy.domain_size, 121u);
}

// Every strategy field survives the wire (an optimized matrix travels as
// its values).
TEST(TaskConvert, StrategyFieldsRoundTrip) {
  const auto proto = ParseText<v1::Task>(WithSchema(R"pb(
    encoding { field { field: "smoker" } }
    randomizer {
      epsilon_nanos: 2000000000
      domain_size: 2
      strategy {
        kind: MATRIX
        rows: 3
        matrix: [ 0.5, 0.25, 0.25, 0.5, 0.25, 0.25 ]
      }
    }
    epsilon_nanos: 2000000000
  )pb"));
  absl::StatusOr<TaskEnvelope> envelope = TaskFromProto(proto);
  ASSERT_OK(envelope);
  const auto& w = std::get<WorkloadTask>(envelope->task.question);
  EXPECT_EQ(w.strategy.kind, StrategyKind::kMatrix);
  EXPECT_EQ(w.strategy.rows, 3u);
  EXPECT_EQ(w.strategy.matrix.size(), 6u);
  v1::Task back;
  TaskToProto(*envelope, &back);
  EXPECT_TRUE(ProtoEquals(back, proto));
}

// Agent (from the wire) and server (in memory) build the same randomizer: the
// same coins give the same report, and each side accepts the other's.
TEST(TaskConvert, BothSidesBuildTheSameMechanism) {
  for (const std::string& text : {kHistogramTask, kQueryTask, kWorkloadTask}) {
    absl::StatusOr<TaskEnvelope> server =
        TaskFromProto(ParseText<v1::Task>(text));
    ASSERT_OK(server);
    v1::Task wire;
    TaskToProto(server->task, server->schema, &wire);
    absl::StatusOr<TaskEnvelope> agent = TaskFromProto(wire);
    ASSERT_OK(agent);
    auto server_mechanism = TaskMechanism::Create(server->task);
    auto agent_mechanism = TaskMechanism::Create(agent->task);
    ASSERT_OK(server_mechanism);
    ASSERT_OK(agent_mechanism);
    Record record;
    record.values = {
        {"country", std::string("it")}, {"income", 42.0}, {"age", int64_t{64}}};
    for (int seed = 0; seed < 50; ++seed) {
      SeededGenerator g1(seed), g2(seed);
      const ReportPayload a = (*agent_mechanism)->Randomize(record, g1);
      const ReportPayload b = (*server_mechanism)->Randomize(record, g2);
      EXPECT_EQ(a, b);
      EXPECT_OK((*server_mechanism)->Validate(a));
    }
  }
}

TEST(TaskConvert, ServerSideEpsilonMismatchReachesTheAgentAndIsRefused) {
  absl::StatusOr<TaskEnvelope> envelope =
      TaskFromProto(ParseText<v1::Task>(kHistogramTask));
  ASSERT_OK(envelope);
  std::get<HistogramTask>(envelope->task.question).oracle.epsilon = 2.0;
  v1::Task wire;
  TaskToProto(envelope->task, envelope->schema, &wire);
  EXPECT_EQ(wire.randomizer().epsilon_nanos(), 2'000'000'000u);
  absl::StatusOr<TaskEnvelope> agent = TaskFromProto(wire);
  EXPECT_THAT(agent, StatusIs(kInvalid));
  EXPECT_THAT(agent.status().message(), HasSubstr("must be equal"));
}

TEST(TaskConvert, BytesRoundTripDeterministically) {
  absl::StatusOr<TaskEnvelope> envelope =
      TaskFromProto(ParseText<v1::Task>(kQueryTask));
  ASSERT_OK(envelope);
  const std::string bytes = TaskToBytes(envelope->task, envelope->schema);
  EXPECT_EQ(bytes, TaskToBytes(envelope->task, envelope->schema));
  absl::StatusOr<TaskEnvelope> back = TaskFromBytes(bytes);
  ASSERT_OK(back);
  EXPECT_EQ(TaskToBytes(back->task, back->schema), bytes);
  EXPECT_THAT(TaskFromBytes("\xff\xff\xff"), StatusIs(kInvalid));
}

TEST(TaskConvert, RejectsMalformedTasks) {
  struct Case {
    const char* name;
    std::string text;
    const char* message;
  };
  const std::string olh =
      " randomizer { epsilon_nanos: 1000 domain_size: 2 olh {} }"
      " epsilon_nanos: 1000";
  const std::string encoding = R"pb(encoding { field { field: "smoker" } })pb";
  const std::string query =
      R"pb(query {
             root { field: "age" }
             output_range { lower: 0 upper: 120 }
           })pb";
  const Case cases[] = {
      {"no schema", absl::StrCat(encoding, olh), "task.schema is missing"},
      {"no randomizer", WithSchema(encoding, " epsilon_nanos: 1000"),
       "task.randomizer is missing"},
      {"no question", WithSchema(olh), "task has no question"},
      {"zero charge",
       WithSchema(encoding, " randomizer { domain_size: 2 olh {} }"),
       "task.epsilon_nanos must be in"},
      {"charge mismatch",
       WithSchema(encoding,
                  " randomizer { epsilon_nanos: 999 domain_size: 2 olh {} }"
                  " epsilon_nanos: 1000"),
       "must be equal"},
      {"query with oracle", WithSchema(query, olh), "real-valued randomizer"},
      {"encoding with real mechanism",
       WithSchema(encoding,
                  " randomizer { epsilon_nanos: 1000 duchi {} }"
                  " epsilon_nanos: 1000"),
       "frequency-oracle randomizer"},
      {"domain size mismatch",
       WithSchema(encoding,
                  " randomizer { epsilon_nanos: 1000 domain_size: 3 oue {} }"
                  " epsilon_nanos: 1000"),
       "domain has 2 items"},
      {"domain size unstated",
       WithSchema(encoding,
                  " randomizer { epsilon_nanos: 1000 oue {} }"
                  " epsilon_nanos: 1000"),
       "domain has 2 items"},
      {"query unknown field", WithSchema(R"pb(query {
                         root { field: "height" }
                         output_range { lower: 0 upper: 1 }
                       }
                       randomizer {
                         epsilon_nanos: 1000
                         duchi {}
                       }
                       epsilon_nanos: 1000)pb"),
       "invalid query"},
      {"query with strategy",
       WithSchema(query,
                  " randomizer { epsilon_nanos: 1000 strategy { kind: HAAR } }"
                  " epsilon_nanos: 1000"),
       "real-valued randomizer"},
      {"strategy without kind",
       WithSchema(encoding,
                  " randomizer { epsilon_nanos: 1000 domain_size: 2 "
                  "strategy {} } epsilon_nanos: 1000"),
       "strategy kind must be"},
      {"strategy domain size mismatch",
       WithSchema(encoding,
                  " randomizer { epsilon_nanos: 1000 domain_size: 3 "
                  "strategy { kind: IDENTITY } } epsilon_nanos: 1000"),
       "domain has 2 items"},
      {"strategy with a NaN weight",
       WithSchema(encoding,
                  " randomizer { epsilon_nanos: 1000 domain_size: 2 strategy "
                  "{ kind: FOURIER level_weights: nan } } epsilon_nanos: 1000"),
       "level_weights must be finite"},
      {"bad deadline", WithSchema(encoding, olh, " deadline { nanos: -1 }"),
       "timestamp nanos"},
      {"bad schema",
       absl::StrCat(encoding, olh, " ",
                    R"pb(schema { fields { name: "smoker" } })pb"),
       "no kind set"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<TaskEnvelope> task =
        TaskFromProto(ParseText<v1::Task>(c.text));
    EXPECT_THAT(task, StatusIs(kInvalid)) << c.name;
    EXPECT_THAT(task.status().message(), HasSubstr(c.message)) << c.name;
  }
}

}  // namespace
}  // namespace ldp
