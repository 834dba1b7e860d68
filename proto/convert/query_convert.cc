// Query expression trees between ldp.v1 and query_expression.h; see the
// header.
#include "proto/convert/query_convert.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "proto/convert/bit_vector_convert.h"

namespace ldp {
namespace {

// Walks a wire tree, counting nodes and depth so that limits trip before the
// recursion goes deeper than kMaxQueryDepth.
class TreeReader {
 public:
  absl::StatusOr<QueryNode> Read(const v1::Expression& e,
                                 const std::string& path, int depth);

 private:
  absl::StatusOr<QueryNode> Binary(QueryOp op, bool has_left,
                                   const v1::Expression& left, bool has_right,
                                   const v1::Expression& right,
                                   const std::string& path, int depth);
  absl::StatusOr<QueryNode> Operand(bool present, const v1::Expression& e,
                                    const std::string& path, int depth);
  absl::StatusOr<QueryNode> BinaryNode(const v1::Expression& e,
                                       const std::string& path, int depth);
  absl::StatusOr<QueryNode> IfThenElseNode(const v1::IfThenElse& c,
                                           const std::string& p, int depth);
  absl::StatusOr<QueryNode> Interior(const v1::Expression& e,
                                     const std::string& path, int depth);

  int nodes_ = 0;
};

absl::Status OpError(const std::string& path, int op) {
  return absl::InvalidArgumentError(absl::StrCat(
      path, ": operator ", op, " is unspecified or unknown; set op"));
}

absl::StatusOr<QueryOp> ComparisonOp(v1::Comparison::Op op) {
  switch (op) {
    case v1::Comparison::EQ:
      return QueryOp::kEqual;
    case v1::Comparison::NE:
      return QueryOp::kNotEqual;
    case v1::Comparison::LT:
      return QueryOp::kLess;
    case v1::Comparison::LE:
      return QueryOp::kLessEqual;
    case v1::Comparison::GT:
      return QueryOp::kGreater;
    case v1::Comparison::GE:
      return QueryOp::kGreaterEqual;
    default:
      return absl::InvalidArgumentError("");
  }
}

absl::StatusOr<QueryOp> LogicalOp(v1::Logical::Op op) {
  switch (op) {
    case v1::Logical::AND:
      return QueryOp::kAnd;
    case v1::Logical::OR:
      return QueryOp::kOr;
    default:
      return absl::InvalidArgumentError("");
  }
}

absl::StatusOr<QueryOp> ArithmeticOp(v1::Arithmetic::Op op) {
  switch (op) {
    case v1::Arithmetic::ADD:
      return QueryOp::kAdd;
    case v1::Arithmetic::SUBTRACT:
      return QueryOp::kSubtract;
    case v1::Arithmetic::MULTIPLY:
      return QueryOp::kMultiply;
    case v1::Arithmetic::DIVIDE:
      return QueryOp::kDivide;
    case v1::Arithmetic::MIN:
      return QueryOp::kMin;
    case v1::Arithmetic::MAX:
      return QueryOp::kMax;
    default:
      return absl::InvalidArgumentError("");
  }
}

absl::StatusOr<QueryOp> UnaryOp(v1::Unary::Op op) {
  switch (op) {
    case v1::Unary::NOT:
      return QueryOp::kNot;
    case v1::Unary::ABS:
      return QueryOp::kAbs;
    case v1::Unary::NEGATE:
      return QueryOp::kNegate;
    case v1::Unary::LOGISTIC:
      return QueryOp::kLogistic;
    default:
      return absl::InvalidArgumentError("");
  }
}

absl::StatusOr<QueryNode> TreeReader::Operand(bool present,
                                              const v1::Expression& e,
                                              const std::string& path,
                                              int depth) {
  if (!present) {
    return absl::InvalidArgumentError(absl::StrCat(path, " is missing"));
  }
  return Read(e, path, depth);
}

absl::StatusOr<QueryNode> TreeReader::Binary(
    QueryOp op, bool has_left, const v1::Expression& left, bool has_right,
    const v1::Expression& right, const std::string& path, int depth) {
  QueryNode node{.op = op};
  ASSIGN_OR_RETURN(QueryNode l,
                   Operand(has_left, left, path + ".left", depth + 1));
  ASSIGN_OR_RETURN(QueryNode r,
                   Operand(has_right, right, path + ".right", depth + 1));
  node.children.push_back(std::move(l));
  node.children.push_back(std::move(r));
  return node;
}

absl::StatusOr<QueryNode> TreeReader::Read(const v1::Expression& e,
                                           const std::string& path, int depth) {
  if (depth > kMaxQueryDepth) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": the query is deeper than ", kMaxQueryDepth, " levels"));
  }
  if (++nodes_ > kMaxQueryNodes) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": the query has more than ", kMaxQueryNodes, " nodes"));
  }
  switch (e.node_case()) {
    case v1::Expression::kField:
      return QueryNode{.op = QueryOp::kField, .field = e.field()};
    case v1::Expression::kConstant:
      return QueryNode{.op = QueryOp::kConstant, .constant = e.constant()};
    case v1::Expression::kCategoryIs:
      return QueryNode{.op = QueryOp::kCategoryIs,
                       .field = e.category_is().field(),
                       .category = e.category_is().category()};
    case v1::Expression::kBitAt:
      return QueryNode{.op = QueryOp::kBitAt,
                       .field = e.bit_at().field(),
                       .bit_index = e.bit_at().index()};
    case v1::Expression::kMaskedParity: {
      ASSIGN_OR_RETURN(std::vector<bool> mask,
                       BitsFromProto(e.masked_parity().mask(),
                                     path + ".masked_parity.mask"));
      return QueryNode{.op = QueryOp::kMaskedParity,
                       .field = e.masked_parity().field(),
                       .mask = std::move(mask)};
    }
    case v1::Expression::NODE_NOT_SET:
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": expression node has no alternative set"));
    default:
      return Interior(e, path, depth);
  }
}

absl::StatusOr<QueryNode> TreeReader::BinaryNode(const v1::Expression& e,
                                                 const std::string& path,
                                                 int depth) {
  if (e.has_comparison()) {
    const v1::Comparison& c = e.comparison();
    const std::string p = path + ".comparison";
    absl::StatusOr<QueryOp> op = ComparisonOp(c.op());
    if (!op.ok()) return OpError(p, c.op());
    return Binary(*op, c.has_left(), c.left(), c.has_right(), c.right(), p,
                  depth);
  }
  if (e.has_logical()) {
    const v1::Logical& c = e.logical();
    const std::string p = path + ".logical";
    absl::StatusOr<QueryOp> op = LogicalOp(c.op());
    if (!op.ok()) return OpError(p, c.op());
    return Binary(*op, c.has_left(), c.left(), c.has_right(), c.right(), p,
                  depth);
  }
  const v1::Arithmetic& c = e.arithmetic();
  const std::string p = path + ".arithmetic";
  absl::StatusOr<QueryOp> op = ArithmeticOp(c.op());
  if (!op.ok()) return OpError(p, c.op());
  return Binary(*op, c.has_left(), c.left(), c.has_right(), c.right(), p,
                depth);
}

absl::StatusOr<QueryNode> TreeReader::IfThenElseNode(const v1::IfThenElse& c,
                                                     const std::string& p,
                                                     int depth) {
  ASSIGN_OR_RETURN(QueryNode cond, Operand(c.has_condition(), c.condition(),
                                           p + ".condition", depth + 1));
  ASSIGN_OR_RETURN(QueryNode then,
                   Operand(c.has_then(), c.then(), p + ".then", depth + 1));
  ASSIGN_OR_RETURN(
      QueryNode otherwise,
      Operand(c.has_otherwise(), c.otherwise(), p + ".otherwise", depth + 1));
  QueryNode node{.op = QueryOp::kIfThenElse};
  node.children = {std::move(cond), std::move(then), std::move(otherwise)};
  return node;
}

absl::StatusOr<QueryNode> TreeReader::Interior(const v1::Expression& e,
                                               const std::string& path,
                                               int depth) {
  switch (e.node_case()) {
    case v1::Expression::kComparison:
    case v1::Expression::kLogical:
    case v1::Expression::kArithmetic:
      return BinaryNode(e, path, depth);
    case v1::Expression::kUnary: {
      const v1::Unary& u = e.unary();
      const std::string p = path + ".unary";
      absl::StatusOr<QueryOp> op = UnaryOp(u.op());
      if (!op.ok()) return OpError(p, u.op());
      ASSIGN_OR_RETURN(QueryNode operand, Operand(u.has_operand(), u.operand(),
                                                  p + ".operand", depth + 1));
      QueryNode node{.op = *op};
      node.children.push_back(std::move(operand));
      return node;
    }
    case v1::Expression::kClamp: {
      const v1::Clamp& c = e.clamp();
      const std::string p = path + ".clamp";
      if (!c.has_range()) {
        return absl::InvalidArgumentError(absl::StrCat(p, ".range is missing"));
      }
      ASSIGN_OR_RETURN(QueryNode operand, Operand(c.has_operand(), c.operand(),
                                                  p + ".operand", depth + 1));
      QueryNode node{
          .op = QueryOp::kClamp,
          .range = {.lower = c.range().lower(), .upper = c.range().upper()}};
      node.children.push_back(std::move(operand));
      return node;
    }
    case v1::Expression::kIfThenElse:
      return IfThenElseNode(e.if_then_else(), path + ".if_then_else", depth);
    default:
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": unknown expression node ", e.node_case()));
  }
}

void NodeToProto(const QueryNode& node, v1::Expression* e);

template <typename Message>
void SetOperands(const QueryNode& node, Message* m) {
  NodeToProto(node.children.at(0), m->mutable_left());
  NodeToProto(node.children.at(1), m->mutable_right());
}

// The wire enum of a two-operand op; false for other ops.
bool BinaryToProto(const QueryNode& node, v1::Expression* e) {
  using C = v1::Comparison;
  using A = v1::Arithmetic;
  auto comparison = [&](C::Op op) {
    e->mutable_comparison()->set_op(op);
    SetOperands(node, e->mutable_comparison());
  };
  auto arithmetic = [&](A::Op op) {
    e->mutable_arithmetic()->set_op(op);
    SetOperands(node, e->mutable_arithmetic());
  };
  auto logical = [&](v1::Logical::Op op) {
    e->mutable_logical()->set_op(op);
    SetOperands(node, e->mutable_logical());
  };
  switch (node.op) {
    case QueryOp::kEqual:
      comparison(C::EQ);
      return true;
    case QueryOp::kNotEqual:
      comparison(C::NE);
      return true;
    case QueryOp::kLess:
      comparison(C::LT);
      return true;
    case QueryOp::kLessEqual:
      comparison(C::LE);
      return true;
    case QueryOp::kGreater:
      comparison(C::GT);
      return true;
    case QueryOp::kGreaterEqual:
      comparison(C::GE);
      return true;
    case QueryOp::kAnd:
      logical(v1::Logical::AND);
      return true;
    case QueryOp::kOr:
      logical(v1::Logical::OR);
      return true;
    case QueryOp::kAdd:
      arithmetic(A::ADD);
      return true;
    case QueryOp::kSubtract:
      arithmetic(A::SUBTRACT);
      return true;
    case QueryOp::kMultiply:
      arithmetic(A::MULTIPLY);
      return true;
    case QueryOp::kDivide:
      arithmetic(A::DIVIDE);
      return true;
    case QueryOp::kMin:
      arithmetic(A::MIN);
      return true;
    case QueryOp::kMax:
      arithmetic(A::MAX);
      return true;
    default:
      return false;
  }
}

void UnaryToProto(const QueryNode& node, v1::Unary::Op op, v1::Expression* e) {
  e->mutable_unary()->set_op(op);
  NodeToProto(node.children.at(0), e->mutable_unary()->mutable_operand());
}

void NodeToProto(const QueryNode& node, v1::Expression* e) {
  if (BinaryToProto(node, e)) return;
  switch (node.op) {
    case QueryOp::kField:
      e->set_field(node.field);
      return;
    case QueryOp::kConstant:
      e->set_constant(node.constant);
      return;
    case QueryOp::kCategoryIs:
      e->mutable_category_is()->set_field(node.field);
      e->mutable_category_is()->set_category(node.category);
      return;
    case QueryOp::kBitAt:
      e->mutable_bit_at()->set_field(node.field);
      e->mutable_bit_at()->set_index(node.bit_index);
      return;
    case QueryOp::kMaskedParity:
      e->mutable_masked_parity()->set_field(node.field);
      BitsToProto(node.mask, e->mutable_masked_parity()->mutable_mask());
      return;
    case QueryOp::kNot:
      UnaryToProto(node, v1::Unary::NOT, e);
      return;
    case QueryOp::kAbs:
      UnaryToProto(node, v1::Unary::ABS, e);
      return;
    case QueryOp::kNegate:
      UnaryToProto(node, v1::Unary::NEGATE, e);
      return;
    case QueryOp::kLogistic:
      UnaryToProto(node, v1::Unary::LOGISTIC, e);
      return;
    case QueryOp::kClamp: {
      v1::Clamp* c = e->mutable_clamp();
      NodeToProto(node.children.at(0), c->mutable_operand());
      c->mutable_range()->set_lower(node.range.lower);
      c->mutable_range()->set_upper(node.range.upper);
      return;
    }
    case QueryOp::kIfThenElse: {
      v1::IfThenElse* c = e->mutable_if_then_else();
      NodeToProto(node.children.at(0), c->mutable_condition());
      NodeToProto(node.children.at(1), c->mutable_then());
      NodeToProto(node.children.at(2), c->mutable_otherwise());
      return;
    }
    default:
      return;  // every binary op was handled above
  }
}

}  // namespace

absl::StatusOr<Query> QueryFromProto(const v1::Query& proto,
                                     const RecordSchema& schema) {
  if (!proto.has_root()) {
    return absl::InvalidArgumentError("query.root is missing");
  }
  if (!proto.has_output_range()) {
    return absl::InvalidArgumentError(
        "query.output_range is missing; declare the finite range [lower, "
        "upper] the query's value lies in");
  }
  TreeReader reader;
  ASSIGN_OR_RETURN(QueryNode root, reader.Read(proto.root(), "root", 1));
  const QueryRange range{.lower = proto.output_range().lower(),
                         .upper = proto.output_range().upper()};
  absl::StatusOr<Query> query = Query::Create(std::move(root), range, schema);
  if (!query.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid query: ", query.status().message()));
  }
  return query;
}

void ToProto(const Query& query, v1::Query* proto) {
  proto->Clear();
  NodeToProto(query.root(), proto->mutable_root());
  proto->mutable_output_range()->set_lower(query.output_range().lower);
  proto->mutable_output_range()->set_upper(query.output_range().upper);
}

}  // namespace ldp
