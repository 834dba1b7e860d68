// Workload questions through the study converter: every workload kind and
// strategy choice round-trips, sizes resolve against the encoding, and
// malformed workloads are refused with a message naming the problem.
#include "proto/convert/workload_convert.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "common/workload/strategies/workload.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "proto/convert/schema_convert.h"
#include "proto/convert/study_convert.h"
#include "tests/proto/convert/convert_testing.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using ::ldp::testing::kInvalid;
using ::ldp::testing::ParseText;
using ::ldp::testing::ProtoEquals;
using ::ldp::testing::StatusIs;
using ::testing::HasSubstr;

constexpr char kWorkloadSchema[] = R"pb(
  fields { name: "smoker" bool_field {} }
  fields { name: "vegan" bool_field {} }
  fields { name: "runner" bool_field {} }
  fields { name: "age" int_field { lower: 0 upper: 31 } }
  fields { name: "income" real_field { lower: 0 upper: 100 } }
  fields {
    name: "country"
    categorical_field { categories: "fr" categories: "de" }
  }
)pb";

RecordSchema Schema() {
  absl::StatusOr<RecordSchema> schema =
      RecordSchemaFromProto(ParseText<v1::RecordSchema>(kWorkloadSchema));
  EXPECT_TRUE(schema.ok()) << schema.status();
  return *schema;
}

absl::StatusOr<Question> Convert(const std::string& text) {
  return QuestionFromProto(ParseText<v1::Question>(text), Schema());
}

constexpr char kBits[] = R"pb(
  encoding {
    product {
      fields { field: "smoker" }
      fields { field: "vegan" }
      fields { field: "runner" }
    }
  })pb";

// The canonical form ToProto writes (sizes explicit) round-trips exactly.
TEST(WorkloadConvert, GoldenRoundTrips) {
  const std::string goldens[] = {
      R"pb(question_id: "cdf"
           workload {
             encoding { field { field: "age" } }
             workload { kind: PREFIX domain_size: 32 }
           }
           randomizer { epsilon_nanos: 1000000000 })pb",
      R"pb(question_id: "ranges"
           workload {
             encoding { field { field: "income" num_buckets: 16 } }
             workload { kind: ALL_RANGE domain_size: 16 }
             strategy { kind: HIERARCHICAL branching: 4 }
             consistency: true
           }
           randomizer {})pb",
      absl::StrCat(R"pb(question_id: "marginals" workload {)pb", kBits,
                   R"pb(workload { kind: MARGINALS num_bits: 3 order: 2 }
                        strategy { kind: FOURIER }
                      }
                      randomizer {})pb"),
      absl::StrCat(R"pb(question_id: "parities" workload {)pb", kBits,
                   R"pb(workload { kind: PARITIES num_bits: 3 order: 3 }
                      }
                      randomizer {})pb"),
      R"pb(question_id: "dense"
           workload {
             encoding { field { field: "country" } }
             workload {
               kind: CUSTOM
               domain_size: 2
               num_queries: 2
               dense: [ 1, 0, 0.5, 0.5 ]
               labels: [ "fr", "half" ]
             }
             strategy { kind: MATRIX }
           }
           randomizer {})pb",
      R"pb(question_id: "sparse"
           workload {
             encoding { field { field: "age" num_buckets: 4 } }
             workload {
               kind: CUSTOM
               domain_size: 4
               num_queries: 2
               sparse { row: 0 column: 3 value: 1 }
               sparse { row: 1 column: 0 value: -2 }
             }
           }
           randomizer {})pb",
  };
  for (const std::string& golden : goldens) {
    const auto proto = ParseText<v1::Question>(golden);
    absl::StatusOr<Question> question = QuestionFromProto(proto, Schema());
    ASSERT_OK(question);
    v1::Question back;
    ToProto(*question, &back);
    EXPECT_TRUE(ProtoEquals(back, proto)) << golden;
  }
}

TEST(WorkloadConvert, ResolvesSizesFromTheEncoding) {
  absl::StatusOr<Question> cdf = Convert(R"pb(
    question_id: "cdf"
    workload {
      encoding { field { field: "age" } }
      workload { kind: PREFIX }
    })pb");
  ASSERT_OK(cdf);
  const auto& w = std::get<WorkloadQuestion>(cdf->kind);
  EXPECT_EQ(w.workload.kind, WorkloadKind::kPrefix);
  EXPECT_EQ(w.workload.domain_size, 32u);
  EXPECT_EQ(w.encoding.domain_size(), 32u);
  EXPECT_FALSE(w.strategy.has_value());
  EXPECT_FALSE(w.consistency);

  absl::StatusOr<Question> marginals =
      Convert(absl::StrCat(R"pb(question_id: "m" workload {)pb", kBits,
                           R"pb(workload { kind: MARGINALS order: 2 }
           strategy { kind: HIERARCHICAL }
           consistency: true
         })pb"));
  ASSERT_OK(marginals);
  const auto& m = std::get<WorkloadQuestion>(marginals->kind);
  EXPECT_EQ(m.workload.num_bits, 3u);
  EXPECT_EQ(m.workload.order, 2u);
  EXPECT_EQ(m.workload.domain_size, 0u);
  EXPECT_EQ(m.encoding.domain_size(), 8u);
  ASSERT_TRUE(m.strategy.has_value());
  EXPECT_EQ(m.strategy->kind, StrategyKind::kHierarchical);
  EXPECT_EQ(m.strategy->branching, 0u);
  EXPECT_TRUE(m.consistency);
  // The sized workload is a valid library workload with 3·4 queries.
  absl::StatusOr<Workload> workload = Workload::Create(m.workload);
  ASSERT_OK(workload);
  EXPECT_EQ(workload->num_queries(), 12u);
}

// ATTRIBUTE_MARGINALS takes each field's size and item names from the
// encoding, round-trips without them, and takes the attribute strategies.
TEST(WorkloadConvert, AttributeMarginalsReadTheFields) {
  const std::string text =
      R"pb(question_id: "habits"
           workload {
             encoding {
               product {
                 fields { field: "country" }
                 fields { field: "age" num_buckets: 4 }
                 fields { field: "smoker" }
               }
             }
             workload { kind: ATTRIBUTE_MARGINALS domain_size: 16 }
             strategy { kind: ATTRIBUTE_SAMPLING }
           }
           randomizer {})pb";
  absl::StatusOr<Question> question = Convert(text);
  ASSERT_OK(question);
  const auto& w = std::get<WorkloadQuestion>(question->kind);
  EXPECT_EQ(w.workload.kind, WorkloadKind::kAttributeMarginals);
  EXPECT_EQ(w.workload.attribute_sizes, (std::vector<uint32_t>{2, 4, 2}));
  ASSERT_EQ(w.workload.labels.size(), 8u);
  EXPECT_THAT(w.workload.labels[1], HasSubstr("de"));
  EXPECT_THAT(w.workload.labels[7], HasSubstr("smoker"));
  ASSERT_TRUE(w.strategy.has_value());
  EXPECT_EQ(w.strategy->kind, StrategyKind::kAttributeSampling);
  absl::StatusOr<Workload> workload = Workload::Create(w.workload);
  ASSERT_OK(workload);
  EXPECT_EQ(workload->num_queries(), 8u);
  v1::Question back;
  ToProto(*question, &back);
  EXPECT_TRUE(ProtoEquals(back, ParseText<v1::Question>(text)));
  EXPECT_THAT(Convert(R"pb(question_id: "q"
                           workload {
                             encoding { field { field: "country" } }
                             workload { kind: ATTRIBUTE_MARGINALS num_bits: 1 }
                           })pb"),
              StatusIs(kInvalid));
}

TEST(WorkloadConvert, RefusesMalformedWorkloads) {
  struct Case {
    const char* name;
    std::string workload;  // the WorkloadQuestion's body
    const char* randomizer;
    const char* message;
  };
  const std::string age = R"pb(encoding { field { field: "age" } })pb";
  const Case cases[] = {
      {"no encoding", "workload { kind: PREFIX }", "",
       "workload.encoding is missing"},
      {"no workload", age, "", "workload.workload is missing"},
      {"no kind", age + " workload {}", "", "workload.kind must be"},
      {"domain mismatch", age + " workload { kind: PREFIX domain_size: 31 }",
       "", "encoding's domain has 32 items"},
      {"bits on a range", age + " workload { kind: ALL_RANGE num_bits: 5 }", "",
       "num_bits is for MARGINALS and PARITIES only"},
      {"order on a prefix", age + " workload { kind: PREFIX order: 2 }", "",
       "order is for MARGINALS and PARITIES only"},
      {"too large a domain",
       R"pb(encoding { field { field: "income" num_buckets: 5000 } }
            workload { kind: HISTOGRAM })pb",
       "", "at most 4096"},
      {"marginals of an int", age + " workload { kind: MARGINALS order: 1 }",
       "", "\"age\" is not a bool field"},
      {"marginals over a query encoding",
       R"pb(encoding {
              query_value {
                query {
                  root { field: "age" }
                  output_range { lower: 0 upper: 31 }
                }
                domain_size: 32
              }
            }
            workload { kind: PARITIES order: 1 })pb",
       "", "product of bool fields"},
      {"order above d",
       absl::StrCat(kBits, " workload { kind: MARGINALS order: 4 }"), "",
       "workload:"},
      {"bits mismatch",
       absl::StrCat(kBits, " workload { kind: PARITIES num_bits: 4 order: 1 }"),
       "", "encoding has 3 bool fields"},
      {"custom data on a prefix",
       age + " workload { kind: PREFIX num_queries: 1 }", "",
       "CUSTOM workloads only"},
      {"dense and sparse",
       R"pb(encoding { field { field: "country" } }
            workload {
              kind: CUSTOM
              num_queries: 1
              dense: [ 1, 0 ]
              sparse { row: 0 column: 0 value: 1 }
            })pb",
       "", "either dense or sparse"},
      {"dense of the wrong size",
       R"pb(encoding { field { field: "country" } }
            workload { kind: CUSTOM num_queries: 2 dense: [ 1, 0, 1 ] })pb",
       "", "workload:"},
      {"all-zero custom",
       R"pb(encoding { field { field: "country" } }
            workload { kind: CUSTOM num_queries: 1 dense: [ 0, 0 ] })pb",
       "", "workload:"},
      {"sparse out of range",
       R"pb(encoding { field { field: "country" } }
            workload {
              kind: CUSTOM
              num_queries: 1
              sparse { row: 0 column: 2 value: 1 }
            })pb",
       "", "workload:"},
      {"unspecified strategy", age + " workload { kind: PREFIX } strategy {}",
       "", "strategy kind must be"},
      {"branching on haar",
       age + " workload { kind: PREFIX } strategy { kind: HAAR branching: 2 }",
       "", "branching is for HIERARCHICAL"},
      {"branching 1",
       age + " workload { kind: PREFIX } strategy { kind: HIERARCHICAL "
             "branching: 1 }",
       "", "branching must be 0"},
      {"randomizer mechanism", age + " workload { kind: PREFIX }",
       "randomizer { oue {} }", "leave the randomizer's mechanism unset"},
      {"randomizer domain", age + " workload { kind: PREFIX }",
       "randomizer { domain_size: 7 }", "randomizer.domain_size is 7"},
  };
  for (const Case& c : cases) {
    const std::string text = absl::StrCat("question_id: \"w\" workload { ",
                                          c.workload, " } ", c.randomizer);
    absl::StatusOr<Question> question = Convert(text);
    EXPECT_THAT(question, StatusIs(kInvalid)) << c.name;
    EXPECT_THAT(question.status().message(), HasSubstr(c.message)) << c.name;
    EXPECT_THAT(question.status().message(), HasSubstr("question \"w\""))
        << c.name;
  }
}

TEST(WorkloadConvert, KindsMapBothWays) {
  for (WorkloadKind kind : {WorkloadKind::kHistogram, WorkloadKind::kPrefix,
                            WorkloadKind::kAllRange, WorkloadKind::kMarginals,
                            WorkloadKind::kParities, WorkloadKind::kCustom,
                            WorkloadKind::kAttributeMarginals}) {
    absl::StatusOr<WorkloadKind> back =
        WorkloadKindFromProto(WorkloadKindToProto(kind));
    ASSERT_OK(back);
    EXPECT_EQ(*back, kind);
  }
  EXPECT_THAT(WorkloadKindFromProto(0), StatusIs(kInvalid));
  EXPECT_THAT(WorkloadKindFromProto(99), StatusIs(kInvalid));
}

}  // namespace
}  // namespace ldp
