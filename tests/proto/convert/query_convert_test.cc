#include "proto/convert/query_convert.h"

#include <cmath>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "proto/convert/schema_convert.h"
#include "tests/proto/convert/convert_testing.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using ::ldp::testing::kInvalid;
using ::ldp::testing::kSchemaText;
using ::ldp::testing::ParseText;
using ::ldp::testing::ProtoEquals;
using ::ldp::testing::SharedSchema;
using ::ldp::testing::StatusIs;
using ::testing::HasSubstr;

// Every node kind at least once (but LOGISTIC, which has its own test so
// these golden values stay readable).
constexpr char kGoldenQuery[] = R"pb(
  root {
    if_then_else {
      condition {
        logical {
          op: AND
          left { category_is { field: "country" category: "fr" } }
          right {
            comparison {
              op: GE
              left { field: "age" }
              right { constant: 18 }
            }
          }
        }
      }
      then {
        arithmetic {
          op: ADD
          left {
            clamp {
              operand { field: "income" }
              range { lower: 0 upper: 50 }
            }
          }
          right {
            arithmetic {
              op: MULTIPLY
              left { bit_at { field: "features" index: 4 } }
              right {
                masked_parity {
                  field: "features"
                  mask { packed: "\x13" bit_length: 5 }
                }
              }
            }
          }
        }
      }
      otherwise {
        unary {
          op: NEGATE
          operand {
            unary {
              op: ABS
              operand {
                unary {
                  op: NOT
                  operand { field: "smoker" }
                }
              }
            }
          }
        }
      }
    }
  }
  output_range { lower: -1 upper: 51 }
)pb";

TEST(QueryConvert, GoldenRoundTrip) {
  const auto proto = ParseText<v1::Query>(kGoldenQuery);
  absl::StatusOr<Query> query = QueryFromProto(proto, SharedSchema());
  ASSERT_OK(query);
  v1::Query back;
  ToProto(*query, &back);
  EXPECT_TRUE(ProtoEquals(back, proto));
}

TEST(QueryConvert, GoldenEvaluatesAsWritten) {
  absl::StatusOr<Query> query =
      QueryFromProto(ParseText<v1::Query>(kGoldenQuery), SharedSchema());
  ASSERT_OK(query);
  Record adult;
  adult.values = {{"country", std::string("fr")},
                  {"age", int64_t{40}},
                  {"income", 70.0},
                  {"features", std::vector<bool>{1, 1, 0, 0, 1}}};
  // clamp(70) + bit4 · parity(11001 · 11001 masked by 10011) = 50 + 1·1.
  EXPECT_EQ(query->Evaluate(adult), 51);
  Record child = adult;
  child.values["age"] = int64_t{10};
  child.values["smoker"] = false;
  EXPECT_EQ(query->Evaluate(child), -1);  // −|NOT false|
}

TEST(QueryConvert, DomainRoundTripKeepsTheTree) {
  using namespace ::ldp::expr;  // NOLINT(build/namespaces)
  absl::StatusOr<Query> query =
      Query::Create(Max(Div(Field("income"), Constant(2.5)),
                        Min(Sub(Field("age"), Constant(1)),
                            Or(Ne(Field("country"), Constant(1)),
                               Lt(Field("age"), Constant(3))))),
                    {.lower = -5, .upper = 100}, SharedSchema());
  ASSERT_OK(query);
  v1::Query proto;
  ToProto(*query, &proto);
  absl::StatusOr<Query> back = QueryFromProto(proto, SharedSchema());
  ASSERT_OK(back);
  EXPECT_EQ(back->root(), query->root());
  EXPECT_EQ(back->output_range(), query->output_range());
}

TEST(QueryConvert, LogisticTravelsBothWays) {
  const auto proto = ParseText<v1::Query>(R"pb(
    root {
      unary {
        op: LOGISTIC
        operand {
          arithmetic {
            op: MULTIPLY
            left { constant: 0.1 }
            right { field: "income" }
          }
        }
      }
    }
    output_range { lower: 0 upper: 1 }
  )pb");
  absl::StatusOr<Query> query = QueryFromProto(proto, SharedSchema());
  ASSERT_OK(query);
  EXPECT_EQ(query->root().op, QueryOp::kLogistic);
  Record record;
  record.values["income"] = 20.0;
  EXPECT_NEAR(query->Evaluate(record), 1 / (1 + std::exp(-2.0)), 1e-15);
  v1::Query back;
  ToProto(*query, &back);
  EXPECT_TRUE(ProtoEquals(back, proto));
}

// left (op) right on constants 1 and 2, evaluated.
double EvaluateOp(const std::string& message, const std::string& op) {
  const std::string text =
      absl::StrCat("root { ", message, " { op: ", op,
                   " left { constant: 1 } right { constant: 2 } } }"
                   " output_range { lower: -10 upper: 10 }");
  absl::StatusOr<Query> query =
      QueryFromProto(ParseText<v1::Query>(text), SharedSchema());
  EXPECT_OK(query);
  return query.ok() ? query->Evaluate(Record{}) : -99;
}

TEST(QueryConvert, EveryOperatorMeansWhatItsNameSays) {
  EXPECT_EQ(EvaluateOp("comparison", "EQ"), 0);
  EXPECT_EQ(EvaluateOp("comparison", "NE"), 1);
  EXPECT_EQ(EvaluateOp("comparison", "LT"), 1);
  EXPECT_EQ(EvaluateOp("comparison", "LE"), 1);
  EXPECT_EQ(EvaluateOp("comparison", "GT"), 0);
  EXPECT_EQ(EvaluateOp("comparison", "GE"), 0);
  EXPECT_EQ(EvaluateOp("logical", "AND"), 1);
  EXPECT_EQ(EvaluateOp("logical", "OR"), 1);
  EXPECT_EQ(EvaluateOp("arithmetic", "ADD"), 3);
  EXPECT_EQ(EvaluateOp("arithmetic", "SUBTRACT"), -1);
  EXPECT_EQ(EvaluateOp("arithmetic", "MULTIPLY"), 2);
  EXPECT_EQ(EvaluateOp("arithmetic", "DIVIDE"), 0.5);
  EXPECT_EQ(EvaluateOp("arithmetic", "MIN"), 1);
  EXPECT_EQ(EvaluateOp("arithmetic", "MAX"), 2);
}

TEST(QueryConvert, RejectsMalformedTrees) {
  struct Case {
    const char* name;
    std::string text;
    const char* message;
  };
  auto in_range = [](absl::string_view root) {
    return absl::StrCat(root, " output_range { lower: 0 upper: 1 }");
  };
  const Case cases[] = {
      {"no root", in_range(""), "query.root is missing"},
      {"no range", "root { constant: 1 }", "output_range is missing"},
      {"empty node", in_range("root {}"), "root: expression node has no"},
      {"unspecified op",
       in_range("root { comparison { left { constant: 1 } right { constant: 1 "
                "} } }"),
       "root.comparison: operator 0"},
      {"unknown op",
       in_range("root { arithmetic { op: 99 left { constant: 1 } "
                "right { constant: 1 } } }"),
       "operator 99"},
      {"missing operand",
       in_range("root { logical { op: OR left { constant: 1 } } }"),
       "root.logical.right is missing"},
      {"missing unary operand", in_range("root { unary { op: NOT } }"),
       "root.unary.operand is missing"},
      {"nested empty node",
       in_range("root { unary { op: ABS operand { unary { op: NOT operand {} } "
                "} } }"),
       "root.unary.operand.unary.operand: expression node"},
      {"clamp without range",
       in_range("root { clamp { operand { constant: 1 } } }"),
       "root.clamp.range is missing"},
      {"if without otherwise",
       in_range("root { if_then_else { condition { constant: 1 } "
                "then { constant: 1 } } }"),
       "otherwise is missing"},
      {"bad mask", in_range(R"pb(root {
                                   masked_parity {
                                     field: "features"
                                     mask { packed: "\x13\x00" bit_length: 5 }
                                   }
                                 })pb"),
       "root.masked_parity.mask"},
      {"unknown field", in_range("root { field: \"height\" }"),
       "invalid query"},
      {"wrong field kind",
       in_range("root { bit_at { field: \"age\" index: 0 } }"),
       "invalid query"},
      {"NaN constant", in_range("root { constant: nan }"), "invalid query"},
      {"empty range", "root { constant: 1 } output_range { lower: 1 upper: 1 }",
       "invalid query"},
      {"infinite range",
       "root { constant: 1 } output_range { lower: 0 upper: inf }",
       "invalid query"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<Query> query =
        QueryFromProto(ParseText<v1::Query>(c.text), SharedSchema());
    EXPECT_THAT(query, StatusIs(kInvalid)) << c.name;
    EXPECT_THAT(query.status().message(), HasSubstr(c.message)) << c.name;
  }
}

// NOT(NOT(...(constant)...)) with `depth` nodes in a chain.
v1::Query Chain(int depth) {
  v1::Query proto;
  proto.mutable_output_range()->set_upper(1);
  v1::Expression* e = proto.mutable_root();
  for (int i = 1; i < depth; ++i) {
    e->mutable_unary()->set_op(v1::Unary::NOT);
    e = e->mutable_unary()->mutable_operand();
  }
  e->set_constant(0);
  return proto;
}

TEST(QueryConvert, EnforcesTheDepthLimitWithoutDeepRecursion) {
  EXPECT_OK(QueryFromProto(Chain(kMaxQueryDepth), SharedSchema()));
  absl::StatusOr<Query> deep =
      QueryFromProto(Chain(kMaxQueryDepth + 1), SharedSchema());
  EXPECT_THAT(deep, StatusIs(kInvalid));
  EXPECT_THAT(deep.status().message(), HasSubstr("deeper than 32"));
  // A hostile, far deeper message is refused at the limit, not walked.
  EXPECT_THAT(QueryFromProto(Chain(5000), SharedSchema()), StatusIs(kInvalid));
}

// A complete binary tree of additions with `levels` levels.
void FillTree(v1::Expression* e, int levels) {
  if (levels == 1) {
    e->set_constant(0);
    return;
  }
  e->mutable_arithmetic()->set_op(v1::Arithmetic::ADD);
  FillTree(e->mutable_arithmetic()->mutable_left(), levels - 1);
  FillTree(e->mutable_arithmetic()->mutable_right(), levels - 1);
}

TEST(QueryConvert, EnforcesTheNodeLimit) {
  v1::Query proto;
  proto.mutable_output_range()->set_upper(1);
  FillTree(proto.mutable_root(), 10);  // 1023 nodes
  EXPECT_OK(QueryFromProto(proto, SharedSchema()));
  FillTree(proto.mutable_root(), 11);  // 2047 nodes, depth 11
  absl::StatusOr<Query> big = QueryFromProto(proto, SharedSchema());
  EXPECT_THAT(big, StatusIs(kInvalid));
  EXPECT_THAT(big.status().message(), HasSubstr("more than 1024 nodes"));
}

}  // namespace
}  // namespace ldp
