// What a statistical query's answers can be, as far as variance goes: the
// range its mechanism is built for and whether it only takes 0 and 1. The
// forecast and its simulation judge a query by the same values.
#ifndef LDP_PLANNING_QUERY_VALUES_H_
#define LDP_PLANNING_QUERY_VALUES_H_

#include "common/queries/query_expression.h"

namespace ldp {

// What a statistical query's answers can be, as far as variance goes.
struct QueryValues {
  double lower = 0, upper = 0;  // the range the mechanism is built for
  double center = 0;
  bool indicator = false;  // φ ∈ {0, 1} (clamped into the range)
};

QueryValues ValuesOf(const Query& query);

}  // namespace ldp

#endif  // LDP_PLANNING_QUERY_VALUES_H_
