// Query expressions nested to a chosen depth (|...|x|...|), for the tests of
// the depth limits: kMaxQueryDepth (32) in the converters, and protobuf's
// 100-message recursion limit, which a ~48-level expression reaches.
#ifndef LDP_TESTS_TESTING_DEEP_EXPRESSION_H_
#define LDP_TESTS_TESTING_DEEP_EXPRESSION_H_

#include <string>
#include <utility>

#include "proto/ldp/v1/types.pb.h"

namespace ldp::testing {

// abs(abs(...abs(field)...)) with `depth` levels (a lone field is depth 1).
inline v1::Expression DeepExpression(int depth, const std::string& field) {
  v1::Expression expression;
  expression.set_field(field);
  for (int level = 1; level < depth; ++level) {
    v1::Expression outer;
    outer.mutable_unary()->set_op(v1::Unary::ABS);
    *outer.mutable_unary()->mutable_operand() = std::move(expression);
    expression = std::move(outer);
  }
  return expression;
}

}  // namespace ldp::testing

#endif  // LDP_TESTS_TESTING_DEEP_EXPRESSION_H_
