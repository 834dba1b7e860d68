#include "common/queries/query_expression.h"

#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/test_values.h"

namespace ldp {
namespace {

using ::ldp::testing::StatusIs;
using ::testing::HasSubstr;
using namespace ::ldp::expr;  // NOLINT: builders read as a small language

using ::ldp::testing::kInvalid;
constexpr QueryRange kWide = {.lower = -1e9, .upper = 1e9};

RecordSchema ExpressionSchema() {
  absl::StatusOr<RecordSchema> schema = RecordSchema::Create(
      {FieldSpec::Bool("smoker"), FieldSpec::Int("age", 0, 120),
       FieldSpec::Categorical("country", {"fr", "de", "it"}),
       FieldSpec::Real("income", -50, 50), FieldSpec::BitVector("bits", 5)});
  EXPECT_OK(schema);
  return *schema;
}

Record Person() {
  Record r;
  r.values["smoker"] = true;
  r.values["age"] = int64_t{37};
  r.values["country"] = std::string("it");
  r.values["income"] = 12.5;
  r.values["bits"] = std::vector<bool>{true, false, true, true, false};
  return r;
}

// Evaluates `node` on Person() with a wide output range.
double Eval(QueryNode node, const Record& record = Person()) {
  absl::StatusOr<Query> q =
      Query::Create(std::move(node), kWide, ExpressionSchema());
  EXPECT_OK(q);
  return q.ok() ? q->Evaluate(record) : std::nan("");
}

absl::Status CreateStatus(QueryNode node, QueryRange range = kWide) {
  return Query::Create(std::move(node), range, ExpressionSchema()).status();
}

// inf − inf: the only way to make a NaN from finite constants.
QueryNode NaNNode() {
  return Sub(Mul(Constant(1e300), Constant(1e300)),
             Mul(Constant(1e300), Constant(1e300)));
}

TEST(Query, ReadsScalarFieldsAsNumbers) {
  EXPECT_EQ(Eval(Field("smoker")), 1);
  EXPECT_EQ(Eval(Field("age")), 37);
  EXPECT_EQ(Eval(Field("country")), 2);  // index of "it"
  EXPECT_EQ(Eval(Field("income")), 12.5);
  EXPECT_EQ(Eval(Constant(-3.25)), -3.25);
}

TEST(Query, ComparisonOperators) {
  using Builder = std::function<QueryNode(QueryNode, QueryNode)>;
  const struct {
    Builder op;
    double lt, eq, gt;  // results for 1 ? 2, 2 ? 2, 3 ? 2
  } kCases[] = {{Eq, 0, 1, 0}, {Ne, 1, 0, 1}, {Lt, 1, 0, 0},
                {Le, 1, 1, 0}, {Gt, 0, 0, 1}, {Ge, 0, 1, 1}};
  for (const auto& c : kCases) {
    EXPECT_EQ(Eval(c.op(Constant(1), Constant(2))), c.lt);
    EXPECT_EQ(Eval(c.op(Constant(2), Constant(2))), c.eq);
    EXPECT_EQ(Eval(c.op(Constant(3), Constant(2))), c.gt);
  }
  EXPECT_EQ(Eval(Lt(Field("age"), Constant(40))), 1);
  // Comparisons with NaN are false, except !=.
  EXPECT_EQ(Eval(Eq(NaNNode(), NaNNode())), 0);
  EXPECT_EQ(Eval(Ne(NaNNode(), Constant(0))), 1);
}

TEST(Query, LogicalOperatorsTreatNonzeroAsTrueAndNaNAsFalse) {
  for (double a : {0.0, 1.0, -0.5, 7.0}) {
    for (double b : {0.0, 1.0, 2.0}) {
      EXPECT_EQ(Eval(And(Constant(a), Constant(b))), (a != 0 && b != 0));
      EXPECT_EQ(Eval(Or(Constant(a), Constant(b))), (a != 0 || b != 0));
    }
    EXPECT_EQ(Eval(Not(Constant(a))), a == 0);
  }
  EXPECT_EQ(Eval(Not(NaNNode())), 1);
  EXPECT_EQ(Eval(Or(NaNNode(), Constant(0))), 0);
  EXPECT_EQ(Eval(IfThenElse(NaNNode(), Constant(1), Constant(2))), 2);
}

TEST(Query, ArithmeticOperators) {
  EXPECT_EQ(Eval(Add(Constant(2), Field("age"))), 39);
  EXPECT_EQ(Eval(Sub(Constant(2), Field("age"))), -35);
  EXPECT_EQ(Eval(Mul(Constant(2), Field("income"))), 25);
  EXPECT_EQ(Eval(Div(Field("income"), Constant(5))), 2.5);
  EXPECT_EQ(Eval(Min(Constant(2), Constant(-1))), -1);
  EXPECT_EQ(Eval(Max(Constant(2), Constant(-1))), 2);
  EXPECT_EQ(Eval(Abs(Constant(-4.5))), 4.5);
  EXPECT_EQ(Eval(Abs(Constant(4.5))), 4.5);
  EXPECT_EQ(Eval(Neg(Field("age"))), -37);
  EXPECT_EQ(Eval(Clamp(Field("age"), 0, 30)), 30);
  EXPECT_EQ(Eval(Clamp(Field("age"), 40, 50)), 40);
  EXPECT_EQ(Eval(Clamp(Field("age"), 0, 100)), 37);
  // Min and max ignore a NaN operand.
  EXPECT_EQ(Eval(Min(NaNNode(), Constant(3))), 3);
  EXPECT_EQ(Eval(Max(Constant(3), NaNNode())), 3);
}

TEST(Query, LogisticIsTheSigmoidWithoutOverflow) {
  EXPECT_EQ(Eval(Logistic(Constant(0))), 0.5);
  for (double x : {-30.0, -2.5, -0.1, 0.1, 1.0, 4.0, 30.0}) {
    EXPECT_NEAR(Eval(Logistic(Constant(x))), 1 / (1 + std::exp(-x)), 1e-15);
    // σ(−x) = 1 − σ(x).
    EXPECT_NEAR(Eval(Logistic(Constant(-x))), 1 - Eval(Logistic(Constant(x))),
                1e-15);
  }
  // Far tails: a naive 1/(1 + e^−x) overflows e^−x at x = −1000 (giving 0
  // only by luck) and loses σ(−700)'s relative precision; here it is exact.
  EXPECT_EQ(Eval(Logistic(Constant(1000))), 1);
  EXPECT_EQ(Eval(Logistic(Constant(-1000))), 0);
  EXPECT_NEAR(Eval(Logistic(Constant(-700))) / std::exp(-700.0), 1, 1e-12);
  // ∞ (from overflowing arithmetic) saturates; NaN stays NaN, and the query
  // then answers its range's midpoint.
  EXPECT_EQ(Eval(Logistic(Mul(Constant(1e300), Constant(1e300)))), 1);
  absl::StatusOr<Query> q = Query::Create(
      Logistic(NaNNode()), {.lower = 0, .upper = 1}, ExpressionSchema());
  ASSERT_OK(q);
  EXPECT_EQ(q->Evaluate(Person()), 0.5);
  // (σ(θ·x) − y)·x: the per-record logistic-loss gradient it exists for.
  EXPECT_NEAR(Eval(Mul(Sub(Logistic(Mul(Constant(0.1), Field("income"))),
                           Field("smoker")),
                       Field("income"))),
              (1 / (1 + std::exp(-1.25)) - 1) * 12.5, 1e-12);
  EXPECT_THAT(CreateStatus(QueryNode{.op = QueryOp::kLogistic}),
              StatusIs(kInvalid));
}

TEST(Query, DivisionByZeroIsZero) {
  EXPECT_EQ(Eval(Div(Constant(5), Constant(0))), 0);
  EXPECT_EQ(Eval(Div(Constant(-5), Constant(0))), 0);
  EXPECT_EQ(Eval(Div(Constant(0), Constant(0))), 0);
  EXPECT_EQ(Eval(Div(Constant(5), Sub(Field("age"), Constant(37)))), 0);
}

TEST(Query, IfThenElseSelectsABranch) {
  EXPECT_EQ(Eval(IfThenElse(Field("smoker"), Constant(10), Constant(20))), 10);
  EXPECT_EQ(Eval(IfThenElse(Gt(Field("age"), Constant(60)), Constant(10),
                            Constant(20))),
            20);
}

TEST(Query, CategoryIsAndBitAt) {
  EXPECT_EQ(Eval(CategoryIs("country", "it")), 1);
  EXPECT_EQ(Eval(CategoryIs("country", "fr")), 0);
  const std::vector<double> expected = {1, 0, 1, 1, 0};
  for (uint32_t i = 0; i < 5; ++i) {
    EXPECT_EQ(Eval(BitAt("bits", i)), expected[i]) << i;
  }
}

TEST(Query, MaskedParityIsTheInnerProductModTwo) {
  const std::vector<bool> mask = {true, true, false, true, false};
  const absl::StatusOr<Query> q =
      Query::Create(MaskedParity("bits", mask), {0, 1}, ExpressionSchema());
  ASSERT_OK(q);
  for (int x = 0; x < 32; ++x) {
    Record r;
    std::vector<bool> bits(5);
    int inner = 0;
    for (int i = 0; i < 5; ++i) {
      bits[i] = (x >> i) & 1;
      inner += bits[i] && mask[i];
    }
    r.values["bits"] = bits;
    EXPECT_EQ(q->Evaluate(r), inner % 2) << x;
  }
}

TEST(Query, ResultIsClampedIntoTheOutputRangeAndNaNBecomesTheMidpoint) {
  const RecordSchema schema = ExpressionSchema();
  const QueryRange range = {.lower = -2, .upper = 6};
  auto eval = [&](QueryNode node) {
    absl::StatusOr<Query> q = Query::Create(std::move(node), range, schema);
    EXPECT_OK(q);
    return q->Evaluate(Person());
  };
  EXPECT_EQ(eval(Field("age")), 6);
  EXPECT_EQ(eval(Neg(Field("age"))), -2);
  EXPECT_EQ(eval(Mul(Constant(1e300), Constant(1e300))), 6);    // +inf
  EXPECT_EQ(eval(Mul(Constant(-1e300), Constant(1e300))), -2);  // -inf
  EXPECT_EQ(eval(NaNNode()), 2);
  EXPECT_EQ(eval(Constant(3.5)), 3.5);
}

TEST(Query, EvaluatesAnUnsanitizedRecordLikeItsSanitizedVersion) {
  const RecordSchema schema = ExpressionSchema();
  Record odd;
  odd.values["age"] = int64_t{-40};
  odd.values["income"] = std::nan("");
  odd.values["country"] = std::string("nowhere");
  odd.values["bits"] = std::vector<bool>{true};
  odd.values["smoker"] = std::string("yes");
  const Record sanitized = Sanitize(odd, schema);
  for (QueryNode node :
       {Field("age"), Field("income"), Field("country"), Field("smoker"),
        BitAt("bits", 4), CategoryIs("country", "fr"),
        MaskedParity("bits", std::vector<bool>(5, true))}) {
    const absl::StatusOr<Query> q = Query::Create(node, kWide, schema);
    ASSERT_OK(q);
    EXPECT_EQ(q->Evaluate(odd), q->Evaluate(sanitized));
    EXPECT_EQ(q->Evaluate(Record{}), q->Evaluate(Sanitize(Record{}, schema)));
  }
  EXPECT_EQ(Eval(Field("income"), odd), -50);  // NaN → the lower bound
}

TEST(Query, OwnsACopyOfItsSchema) {
  std::optional<Query> q;
  {
    const RecordSchema schema = ExpressionSchema();
    absl::StatusOr<Query> created = Query::Create(Field("age"), kWide, schema);
    ASSERT_OK(created);
    q = *created;
  }
  EXPECT_EQ(q->Evaluate(Person()), 37);
  EXPECT_EQ(q->schema(), ExpressionSchema());
  EXPECT_EQ(q->output_range(), kWide);
  EXPECT_EQ(q->root(), Field("age"));
}

QueryNode Chain(int depth) {
  QueryNode node = Field("age");
  for (int d = 1; d < depth; ++d) node = Neg(std::move(node));
  return node;
}

QueryNode FullTree(int depth) {
  if (depth == 1) return Constant(1);
  return Add(FullTree(depth - 1), FullTree(depth - 1));
}

TEST(Query, EnforcesTheDepthLimit) {
  EXPECT_OK(CreateStatus(Chain(kMaxQueryDepth)));
  const absl::Status too_deep = CreateStatus(Chain(40));
  EXPECT_THAT(too_deep, StatusIs(kInvalid));
  EXPECT_THAT(too_deep.message(),
              HasSubstr("query depth 40 exceeds the limit of 32"));
  // Far deeper than the limit: rejected without deep recursion.
  EXPECT_THAT(CreateStatus(Chain(5000)), StatusIs(kInvalid));
}

TEST(Query, EnforcesTheNodeLimit) {
  const QueryNode full = FullTree(10);  // 1023 nodes
  EXPECT_OK(CreateStatus(Neg(full)));   // 1024
  const absl::Status too_many = CreateStatus(Neg(Neg(full)));
  EXPECT_THAT(too_many, StatusIs(kInvalid));
  EXPECT_THAT(too_many.message(), HasSubstr("1025 nodes; the limit is 1024"));
}

TEST(Query, RejectsFieldErrors) {
  const std::vector<std::pair<QueryNode, std::string>> cases = {
      {Field("height"), "unknown field \"height\""},
      {Field("bits"), "bit vector"},
      {CategoryIs("age", "fr"), "needs a categorical field"},
      {CategoryIs("country", "es"), "no category \"es\""},
      {BitAt("age", 0), "needs a bit-vector field"},
      {BitAt("bits", 5), "bit index 5 is out of range"},
      {MaskedParity("country", {true}), "needs a bit-vector field"},
      {MaskedParity("bits", {true, false}), "mask has 2 bits"},
      {Add(Constant(1), Field("nope")), "unknown field \"nope\""},
  };
  for (const auto& [node, message] : cases) {
    const absl::Status status = CreateStatus(node);
    EXPECT_THAT(status, StatusIs(kInvalid)) << message;
    EXPECT_THAT(status.message(), HasSubstr(message));
  }
}

TEST(Query, RejectsMalformedNodes) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_THAT(CreateStatus(Constant(inf)), StatusIs(kInvalid));
  EXPECT_THAT(CreateStatus(Constant(std::nan(""))), StatusIs(kInvalid));
  EXPECT_THAT(CreateStatus(Clamp(Field("age"), 5, 1)), StatusIs(kInvalid));
  EXPECT_THAT(CreateStatus(Clamp(Field("age"), 0, inf)), StatusIs(kInvalid));
  EXPECT_OK(CreateStatus(Clamp(Field("age"), 3, 3)));
  QueryNode short_add = Add(Constant(1), Constant(2));
  short_add.children.pop_back();
  const absl::Status arity = CreateStatus(short_add);
  EXPECT_THAT(arity, StatusIs(kInvalid));
  EXPECT_THAT(arity.message(), HasSubstr("+ takes 2 operand(s), got 1"));
  QueryNode leaf_with_child = Constant(1);
  leaf_with_child.children.push_back(Constant(2));
  EXPECT_THAT(CreateStatus(leaf_with_child), StatusIs(kInvalid));
  QueryNode bad_if = IfThenElse(Constant(1), Constant(2), Constant(3));
  bad_if.children.pop_back();
  EXPECT_THAT(CreateStatus(bad_if), StatusIs(kInvalid));
}

TEST(Query, RejectsBadOutputRanges) {
  const double inf = std::numeric_limits<double>::infinity();
  for (const QueryRange range :
       {QueryRange{1, 1}, QueryRange{2, 1}, QueryRange{-inf, 0},
        QueryRange{0, inf}, QueryRange{std::nan(""), 1}}) {
    const absl::Status status = CreateStatus(Field("age"), range);
    EXPECT_THAT(status, StatusIs(kInvalid));
    EXPECT_THAT(status.message(), HasSubstr("output range"));
  }
}

TEST(QueryOpName, NamesEveryOp) {
  EXPECT_EQ(QueryOpName(QueryOp::kField), "field");
  EXPECT_EQ(QueryOpName(QueryOp::kDivide), "/");
  EXPECT_EQ(QueryOpName(QueryOp::kLogistic), "logistic");
  EXPECT_EQ(QueryOpName(QueryOp::kIfThenElse), "if_then_else");
}

}  // namespace
}  // namespace ldp
