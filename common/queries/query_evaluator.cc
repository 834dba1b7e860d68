// Query evaluation. Total by construction: the tree was type-checked by
// Query::Create, fields are read through SanitizeValue, division by zero is
// defined, and the result is forced into the declared range, so there is no
// error path a record's content could trigger (DESIGN invariant 8).
#include <algorithm>
#include <cmath>
#include <variant>

#include "common/queries/query_expression.h"

namespace ldp {
namespace {

bool Truthy(double x) { return !std::isnan(x) && x != 0; }
double FromBool(bool b) { return b ? 1.0 : 0.0; }

// Numeric reading of a sanitized scalar field.
double FieldNumber(const FieldSpec& spec, const FieldValue& value) {
  if (const bool* b = std::get_if<bool>(&value)) return FromBool(*b);
  if (const int64_t* i = std::get_if<int64_t>(&value)) {
    return static_cast<double>(*i);
  }
  if (const double* d = std::get_if<double>(&value)) return *d;
  if (const std::string* c = std::get_if<std::string>(&value)) {
    return static_cast<double>(CategoryIndex(spec, *c));
  }
  return 0;  // bit vectors are rejected by the type checker
}

double Parity(const std::vector<bool>& bits, const std::vector<bool>& mask) {
  bool parity = false;
  const size_t n = std::min(bits.size(), mask.size());
  for (size_t i = 0; i < n; ++i) parity ^= bits[i] && mask[i];
  return FromBool(parity);
}

double ApplyBinary(QueryOp op, double a, double b) {
  switch (op) {
    case QueryOp::kEqual:
      return FromBool(a == b);
    case QueryOp::kNotEqual:
      return FromBool(a != b);
    case QueryOp::kLess:
      return FromBool(a < b);
    case QueryOp::kLessEqual:
      return FromBool(a <= b);
    case QueryOp::kGreater:
      return FromBool(a > b);
    case QueryOp::kGreaterEqual:
      return FromBool(a >= b);
    case QueryOp::kAnd:
      return FromBool(Truthy(a) && Truthy(b));
    case QueryOp::kOr:
      return FromBool(Truthy(a) || Truthy(b));
    case QueryOp::kAdd:
      return a + b;
    case QueryOp::kSubtract:
      return a - b;
    case QueryOp::kMultiply:
      return a * b;
    case QueryOp::kDivide:
      return b == 0 ? 0.0 : a / b;
    case QueryOp::kMin:
      return std::fmin(a, b);
    case QueryOp::kMax:
      return std::fmax(a, b);
    default:
      return 0;
  }
}

// σ(x) without overflow: e^−|x| ≤ 1 is the only exponential taken, so
// σ(±∞) is exactly 1 or 0 and tiny tails keep their relative precision.
double Logistic(double x) {
  if (std::isnan(x)) return x;
  const double e = std::exp(-std::fabs(x));
  return x >= 0 ? 1 / (1 + e) : e / (1 + e);
}

double ApplyUnary(const QueryNode& node, double a) {
  switch (node.op) {
    case QueryOp::kNot:
      return FromBool(!Truthy(a));
    case QueryOp::kAbs:
      return std::fabs(a);
    case QueryOp::kNegate:
      return -a;
    case QueryOp::kLogistic:
      return Logistic(a);
    case QueryOp::kClamp:
      return std::isnan(a) ? a
                           : std::clamp(a, node.range.lower, node.range.upper);
    default:
      return 0;
  }
}

}  // namespace

double Query::Evaluate(const Record& sanitized) const {
  const double x = EvaluateNode(parts_->root, sanitized);
  const QueryRange& r = parts_->output_range;
  if (std::isnan(x)) return r.lower / 2 + r.upper / 2;
  return std::clamp(x, r.lower, r.upper);
}

FieldValue Query::ReadField(const FieldSpec& spec, const Record& record) {
  const auto it = record.values.find(spec.name);
  return SanitizeValue(spec, it == record.values.end() ? nullptr : &it->second);
}

double Query::EvaluateLeaf(const QueryNode& node, const Record& record) const {
  if (node.op == QueryOp::kConstant) return node.constant;
  // Create checked that the field exists.
  const FieldSpec& spec = *parts_->schema.Find(node.field);
  const FieldValue value = ReadField(spec, record);
  switch (node.op) {
    case QueryOp::kField:
      return FieldNumber(spec, value);
    case QueryOp::kCategoryIs: {
      // By index: a string comparison would stop at the first differing
      // byte, and its time would tell how close the record's category is.
      const auto* category = std::get_if<std::string>(&value);
      return FromBool(category != nullptr &&
                      CategoryIndex(spec, *category) ==
                          CategoryIndex(spec, node.category));
    }
    case QueryOp::kBitAt: {
      const auto* bits = std::get_if<std::vector<bool>>(&value);
      return FromBool(bits != nullptr && node.bit_index < bits->size() &&
                      (*bits)[node.bit_index]);
    }
    case QueryOp::kMaskedParity: {
      const auto* bits = std::get_if<std::vector<bool>>(&value);
      return bits == nullptr ? 0.0 : Parity(*bits, node.mask);
    }
    default:
      return 0;
  }
}

// Recursion depth is bounded by kMaxQueryDepth (checked at Create).
double Query::EvaluateNode(const QueryNode& node, const Record& record) const {
  switch (node.children.size()) {
    case 0:
      return EvaluateLeaf(node, record);
    case 1:
      return ApplyUnary(node, EvaluateNode(node.children[0], record));
    case 2:
      return ApplyBinary(node.op, EvaluateNode(node.children[0], record),
                         EvaluateNode(node.children[1], record));
    default: {
      // Both branches are evaluated so the work done does not reveal
      // which one the record selects.
      const bool condition = Truthy(EvaluateNode(node.children[0], record));
      const double then = EvaluateNode(node.children[1], record);
      const double otherwise = EvaluateNode(node.children[2], record);
      return condition ? then : otherwise;
    }
  }
}

}  // namespace ldp
