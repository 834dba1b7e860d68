// Query construction: expression builders and the type checker that makes
// every later evaluation total. (Evaluation is in query_evaluator.cc.)
#include "common/queries/query_expression.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"

namespace ldp {
namespace {

constexpr const char* kOpNames[] = {
    "field", "constant", "category_is", "bit_at", "masked_parity",
    "==",    "!=",       "<",           "<=",     ">",
    ">=",    "and",      "or",          "+",      "-",
    "*",     "/",        "min",         "max",    "not",
    "abs",   "negate",   "logistic",    "clamp",  "if_then_else"};
static_assert(std::size(kOpNames) ==
              static_cast<size_t>(QueryOp::kIfThenElse) + 1);

const char* OpText(QueryOp op) {
  const auto i = static_cast<size_t>(op);
  return i < std::size(kOpNames) ? kOpNames[i] : "unknown op";
}

// How many operands each op takes.
int Arity(QueryOp op) {
  switch (op) {
    case QueryOp::kField:
    case QueryOp::kConstant:
    case QueryOp::kCategoryIs:
    case QueryOp::kBitAt:
    case QueryOp::kMaskedParity:
      return 0;
    case QueryOp::kNot:
    case QueryOp::kAbs:
    case QueryOp::kNegate:
    case QueryOp::kLogistic:
    case QueryOp::kClamp:
      return 1;
    case QueryOp::kIfThenElse:
      return 3;
    default:
      return 2;
  }
}

struct TreeSize {
  int nodes = 0;
  int depth = 0;
};

// Iterative, so a hostile tree far deeper than the limit cannot overflow
// the stack before the limit is checked.
TreeSize MeasureTree(const QueryNode& root) {
  TreeSize size;
  std::vector<std::pair<const QueryNode*, int>> stack = {{&root, 1}};
  while (!stack.empty()) {
    const auto [node, depth] = stack.back();
    stack.pop_back();
    ++size.nodes;
    size.depth = std::max(size.depth, depth);
    for (const QueryNode& child : node->children) {
      stack.emplace_back(&child, depth + 1);
    }
  }
  return size;
}

absl::Status ValidateSize(const QueryNode& root) {
  const TreeSize size = MeasureTree(root);
  if (size.depth > kMaxQueryDepth) {
    return absl::InvalidArgumentError(absl::StrCat(
        "query depth ", size.depth, " exceeds the limit of ", kMaxQueryDepth));
  }
  if (size.nodes > kMaxQueryNodes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "query has ", size.nodes, " nodes; the limit is ", kMaxQueryNodes));
  }
  return absl::OkStatus();
}

absl::Status ValidateRange(const QueryRange& r, const char* what,
                           bool allow_empty_width) {
  const bool ordered =
      allow_empty_width ? r.lower <= r.upper : r.lower < r.upper;
  if (!std::isfinite(r.lower) || !std::isfinite(r.upper) || !ordered) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " must be finite with lower ", allow_empty_width ? "<=" : "<",
        " upper, got [", r.lower, ", ", r.upper, "]"));
  }
  return absl::OkStatus();
}

const char* KindName(FieldKind kind) {
  switch (kind) {
    case FieldKind::kBool:
      return "bool";
    case FieldKind::kInt:
      return "int";
    case FieldKind::kCategorical:
      return "categorical";
    case FieldKind::kReal:
      return "real";
    case FieldKind::kBitVector:
      return "bit-vector";
  }
  return "unknown";
}

// The field `node` reads, which must exist and (for every op but kField,
// which reads any scalar field) be of kind `wanted`.
absl::StatusOr<const FieldSpec*> FindField(const QueryNode& node,
                                           const RecordSchema& schema,
                                           FieldKind wanted) {
  const FieldSpec* spec = schema.Find(node.field);
  if (spec == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        OpText(node.op), " refers to unknown field \"", node.field, "\""));
  }
  if (node.op == QueryOp::kField && spec->kind == FieldKind::kBitVector) {
    return absl::InvalidArgumentError(absl::StrCat(
        "field \"", node.field,
        "\" is a bit vector; read it with bit_at or masked_parity"));
  }
  if (node.op != QueryOp::kField && spec->kind != wanted) {
    return absl::InvalidArgumentError(absl::StrCat(
        OpText(node.op), " needs a ", KindName(wanted), " field, but \"",
        node.field, "\" is ", KindName(spec->kind)));
  }
  return spec;
}

absl::Status CheckLeaf(const QueryNode& node, const RecordSchema& schema) {
  switch (node.op) {
    case QueryOp::kField:
      return FindField(node, schema, FieldKind::kBool).status();
    case QueryOp::kConstant:
      if (std::isfinite(node.constant)) return absl::OkStatus();
      return absl::InvalidArgumentError("constants must be finite");
    case QueryOp::kCategoryIs: {
      ASSIGN_OR_RETURN(const FieldSpec* f,
                       FindField(node, schema, FieldKind::kCategorical));
      if (std::find(f->categories.begin(), f->categories.end(),
                    node.category) != f->categories.end()) {
        return absl::OkStatus();
      }
      return absl::InvalidArgumentError(absl::StrCat(
          "field \"", f->name, "\" has no category \"", node.category, "\""));
    }
    case QueryOp::kBitAt: {
      ASSIGN_OR_RETURN(const FieldSpec* f,
                       FindField(node, schema, FieldKind::kBitVector));
      if (node.bit_index < f->bit_length) return absl::OkStatus();
      return absl::InvalidArgumentError(
          absl::StrCat("bit index ", node.bit_index, " is out of range for \"",
                       f->name, "\" of ", f->bit_length, " bits"));
    }
    case QueryOp::kMaskedParity: {
      ASSIGN_OR_RETURN(const FieldSpec* f,
                       FindField(node, schema, FieldKind::kBitVector));
      if (node.mask.size() == f->bit_length) return absl::OkStatus();
      return absl::InvalidArgumentError(
          absl::StrCat("parity mask has ", node.mask.size(), " bits but \"",
                       f->name, "\" has ", f->bit_length));
    }
    default:
      return absl::OkStatus();
  }
}

// Recursion is safe here: ValidateSize bounded the depth first.
absl::Status CheckNode(const QueryNode& node, const RecordSchema& schema) {
  const int arity = Arity(node.op);
  if (static_cast<int>(node.children.size()) != arity) {
    return absl::InvalidArgumentError(absl::StrCat(OpText(node.op), " takes ",
                                                   arity, " operand(s), got ",
                                                   node.children.size()));
  }
  if (arity == 0) return CheckLeaf(node, schema);
  if (node.op == QueryOp::kClamp) {
    RETURN_IF_ERROR(ValidateRange(node.range, "clamp range",
                                  /*allow_empty_width=*/true));
  }
  for (const QueryNode& child : node.children) {
    RETURN_IF_ERROR(CheckNode(child, schema));
  }
  return absl::OkStatus();
}

QueryNode Binary(QueryOp op, QueryNode a, QueryNode b) {
  QueryNode node{.op = op};
  node.children.push_back(std::move(a));
  node.children.push_back(std::move(b));
  return node;
}

QueryNode Unary(QueryOp op, QueryNode a) {
  QueryNode node{.op = op};
  node.children.push_back(std::move(a));
  return node;
}

}  // namespace

std::string_view QueryOpName(QueryOp op) { return OpText(op); }

absl::StatusOr<Query> Query::Create(QueryNode root, QueryRange output_range,
                                    const RecordSchema& schema) {
  RETURN_IF_ERROR(ValidateRange(output_range, "query output range",
                                /*allow_empty_width=*/false));
  RETURN_IF_ERROR(ValidateSize(root));
  RETURN_IF_ERROR(CheckNode(root, schema));
  return Query(std::move(root), output_range, schema);
}

namespace expr {

QueryNode Field(std::string name) {
  return {.op = QueryOp::kField, .field = std::move(name)};
}
QueryNode Constant(double value) {
  return {.op = QueryOp::kConstant, .constant = value};
}
QueryNode CategoryIs(std::string field, std::string category) {
  return {.op = QueryOp::kCategoryIs,
          .field = std::move(field),
          .category = std::move(category)};
}
QueryNode BitAt(std::string field, uint32_t index) {
  return {.op = QueryOp::kBitAt, .field = std::move(field), .bit_index = index};
}
QueryNode MaskedParity(std::string field, std::vector<bool> mask) {
  return {.op = QueryOp::kMaskedParity,
          .field = std::move(field),
          .mask = std::move(mask)};
}
QueryNode Eq(QueryNode a, QueryNode b) {
  return Binary(QueryOp::kEqual, std::move(a), std::move(b));
}
QueryNode Ne(QueryNode a, QueryNode b) {
  return Binary(QueryOp::kNotEqual, std::move(a), std::move(b));
}
QueryNode Lt(QueryNode a, QueryNode b) {
  return Binary(QueryOp::kLess, std::move(a), std::move(b));
}
QueryNode Le(QueryNode a, QueryNode b) {
  return Binary(QueryOp::kLessEqual, std::move(a), std::move(b));
}
QueryNode Gt(QueryNode a, QueryNode b) {
  return Binary(QueryOp::kGreater, std::move(a), std::move(b));
}
QueryNode Ge(QueryNode a, QueryNode b) {
  return Binary(QueryOp::kGreaterEqual, std::move(a), std::move(b));
}
QueryNode And(QueryNode a, QueryNode b) {
  return Binary(QueryOp::kAnd, std::move(a), std::move(b));
}
QueryNode Or(QueryNode a, QueryNode b) {
  return Binary(QueryOp::kOr, std::move(a), std::move(b));
}
QueryNode Add(QueryNode a, QueryNode b) {
  return Binary(QueryOp::kAdd, std::move(a), std::move(b));
}
QueryNode Sub(QueryNode a, QueryNode b) {
  return Binary(QueryOp::kSubtract, std::move(a), std::move(b));
}
QueryNode Mul(QueryNode a, QueryNode b) {
  return Binary(QueryOp::kMultiply, std::move(a), std::move(b));
}
QueryNode Div(QueryNode a, QueryNode b) {
  return Binary(QueryOp::kDivide, std::move(a), std::move(b));
}
QueryNode Min(QueryNode a, QueryNode b) {
  return Binary(QueryOp::kMin, std::move(a), std::move(b));
}
QueryNode Max(QueryNode a, QueryNode b) {
  return Binary(QueryOp::kMax, std::move(a), std::move(b));
}
QueryNode Not(QueryNode a) { return Unary(QueryOp::kNot, std::move(a)); }
QueryNode Abs(QueryNode a) { return Unary(QueryOp::kAbs, std::move(a)); }
QueryNode Neg(QueryNode a) { return Unary(QueryOp::kNegate, std::move(a)); }
QueryNode Logistic(QueryNode a) {
  return Unary(QueryOp::kLogistic, std::move(a));
}
QueryNode Clamp(QueryNode a, double lower, double upper) {
  QueryNode node = Unary(QueryOp::kClamp, std::move(a));
  node.range = {.lower = lower, .upper = upper};
  return node;
}
QueryNode IfThenElse(QueryNode condition, QueryNode then, QueryNode otherwise) {
  QueryNode node{.op = QueryOp::kIfThenElse};
  node.children.push_back(std::move(condition));
  node.children.push_back(std::move(then));
  node.children.push_back(std::move(otherwise));
  return node;
}

}  // namespace expr
}  // namespace ldp
