// Statistical queries φ: record → [lower, upper] that an agent evaluates on
// its own record.
//
// Questions travel to agents as data, not code, so the agent can check them
// and evaluate them locally (DESIGN invariants 1 and 4). A query is an
// expression tree over the record's fields with a declared output range; the
// randomizer is calibrated to that range (an SQ in the sense of
// Kasiviswanathan, Lee, Nissim, Raskhodnikova & Smith, "What Can We Learn
// Privately?", §5.1.1). Bit-vector fields support the bit and masked-parity
// nodes needed to learn MASKED-PARITY (same paper, §5.3).
//
// `Query::Create` type-checks the tree against a schema and enforces size
// limits, so every failure happens there. `Evaluate` cannot fail: every
// record, however odd, yields one finite value in the output range
// (invariant 8). Values are doubles; booleans are 0 and 1.
//
// Example:
//   using namespace ldp::expr;  // in a .cc or test only
//   auto q = Query::Create(
//       IfThenElse(CategoryIs("smoker", "yes"),
//                  Clamp(Field("cigarettes_per_day"), 0, 40), Constant(0)),
//       {.lower = 0, .upper = 40}, schema);
#ifndef LDP_COMMON_QUERIES_QUERY_EXPRESSION_H_
#define LDP_COMMON_QUERIES_QUERY_EXPRESSION_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "common/queries/record_schema.h"

namespace ldp {

inline constexpr int kMaxQueryDepth = 32;  // a lone leaf has depth 1
inline constexpr int kMaxQueryNodes = 1024;

// An inclusive range [lower, upper] of finite values.
struct QueryRange {
  double lower = 0;
  double upper = 0;
  friend bool operator==(const QueryRange&, const QueryRange&) = default;
};

// Node kinds, with their operands (children) and semantics. "True" means
// neither 0 nor NaN; logical and comparison results are 0 or 1.
enum class QueryOp {
  // Leaves.
  kField,         // a bool/int/real field; a categorical's category index
  kConstant,      // `constant`, finite
  kCategoryIs,    // 1 if categorical `field` holds `category`
  kBitAt,         // bit `bit_index` of bit-vector `field`
  kMaskedParity,  // ⟨field, mask⟩ mod 2 for bit-vector `field`
  // Two operands.
  kEqual,
  kNotEqual,
  kLess,
  kLessEqual,
  kGreater,
  kGreaterEqual,
  kAnd,
  kOr,
  kAdd,
  kSubtract,
  kMultiply,
  kDivide,  // x ÷ 0 = 0
  kMin,     // a NaN operand is ignored
  kMax,
  // One operand.
  kNot,
  kAbs,
  kNegate,
  kLogistic,  // σ(x) = 1/(1 + e^−x), in [0, 1]; σ(NaN) = NaN
  kClamp,     // into `range` (finite, lower ≤ upper)
  // Three operands: condition, then, otherwise.
  kIfThenElse,
};

std::string_view QueryOpName(QueryOp op);

// One node of an expression tree; only the members its `op` names are used.
// Build trees with the helpers in `ldp::expr` below.
struct QueryNode {
  QueryOp op = QueryOp::kConstant;
  std::vector<QueryNode> children{};
  std::string field{};
  double constant = 0;
  std::string category{};
  uint32_t bit_index = 0;
  std::vector<bool> mask{};
  QueryRange range{};
  friend bool operator==(const QueryNode&, const QueryNode&) = default;
};

// A type-checked query. Immutable, copyable, thread-safe; it keeps a copy
// of the schema it was checked against.
class Query {
 public:
  // InvalidArgument unless `root` is well formed for `schema` (fields exist
  // and have the kind the node needs, categories exist, bit indices and
  // mask lengths fit, constants finite, operand counts right), has depth
  // ≤ kMaxQueryDepth and ≤ kMaxQueryNodes nodes, and `output_range` is
  // finite with lower < upper.
  static absl::StatusOr<Query> Create(QueryNode root, QueryRange output_range,
                                      const RecordSchema& schema);

  // φ(record), finite and within output_range(). A NaN (from ∞ − ∞ and the
  // like; it propagates through arithmetic) becomes the range's midpoint.
  // Fields are read through `SanitizeValue`, so an unsanitized record is
  // evaluated exactly as its sanitized version.
  double Evaluate(const Record& sanitized) const;

  const QueryNode& root() const { return parts_->root; }
  QueryRange output_range() const { return parts_->output_range; }
  const RecordSchema& schema() const { return parts_->schema; }

  // Copies share the immutable tree and schema: a query travels in every
  // task an agent or the load test handles. No move operations: a move is
  // this copy, so a moved-from query stays usable.
  Query(const Query&) = default;
  Query& operator=(const Query&) = default;

 private:
  struct Parts {
    QueryNode root;
    QueryRange output_range;
    RecordSchema schema;
  };

  Query(QueryNode root, QueryRange output_range, RecordSchema schema)
      : parts_(std::make_shared<const Parts>(
            Parts{std::move(root), output_range, std::move(schema)})) {}

  double EvaluateNode(const QueryNode& node, const Record& record) const;
  double EvaluateLeaf(const QueryNode& node, const Record& record) const;
  // The record's value of `spec`'s field, sanitized (looked up once per leaf).
  static FieldValue ReadField(const FieldSpec& spec, const Record& record);

  std::shared_ptr<const Parts> parts_;
};

// Expression builders: `Lt(Field("age"), Constant(30))`.
namespace expr {

QueryNode Field(std::string name);
QueryNode Constant(double value);
QueryNode CategoryIs(std::string field, std::string category);
QueryNode BitAt(std::string field, uint32_t index);
QueryNode MaskedParity(std::string field, std::vector<bool> mask);
QueryNode Eq(QueryNode a, QueryNode b);
QueryNode Ne(QueryNode a, QueryNode b);
QueryNode Lt(QueryNode a, QueryNode b);
QueryNode Le(QueryNode a, QueryNode b);
QueryNode Gt(QueryNode a, QueryNode b);
QueryNode Ge(QueryNode a, QueryNode b);
QueryNode And(QueryNode a, QueryNode b);
QueryNode Or(QueryNode a, QueryNode b);
QueryNode Add(QueryNode a, QueryNode b);
QueryNode Sub(QueryNode a, QueryNode b);
QueryNode Mul(QueryNode a, QueryNode b);
QueryNode Div(QueryNode a, QueryNode b);
QueryNode Min(QueryNode a, QueryNode b);
QueryNode Max(QueryNode a, QueryNode b);
QueryNode Not(QueryNode a);
QueryNode Abs(QueryNode a);
QueryNode Neg(QueryNode a);
QueryNode Logistic(QueryNode a);
QueryNode Clamp(QueryNode a, double lower, double upper);
QueryNode IfThenElse(QueryNode condition, QueryNode then, QueryNode otherwise);

}  // namespace expr
}  // namespace ldp

#endif  // LDP_COMMON_QUERIES_QUERY_EXPRESSION_H_
