// A query's value range and kind; see the header.
#include "planning/query_values.h"

namespace ldp {
namespace {

// Query nodes whose value is 0 or 1 (comparisons, logic, indicators).
bool IsIndicator(const Query& query) {
  switch (query.root().op) {
    case QueryOp::kCategoryIs:
    case QueryOp::kBitAt:
    case QueryOp::kMaskedParity:
    case QueryOp::kEqual:
    case QueryOp::kNotEqual:
    case QueryOp::kLess:
    case QueryOp::kLessEqual:
    case QueryOp::kGreater:
    case QueryOp::kGreaterEqual:
    case QueryOp::kAnd:
    case QueryOp::kOr:
    case QueryOp::kNot:
      return true;
    case QueryOp::kField: {
      const FieldSpec* field = query.schema().Find(query.root().field);
      return field != nullptr && field->kind == FieldKind::kBool;
    }
    default:
      return false;
  }
}

}  // namespace

QueryValues ValuesOf(const Query& query) {
  const QueryRange r = query.output_range();
  return {.lower = r.lower,
          .upper = r.upper,
          .center = (r.lower + r.upper) / 2,
          .indicator = IsIndicator(query)};
}

}  // namespace ldp
