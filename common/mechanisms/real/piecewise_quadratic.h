// Maximum of a function that is a quadratic between consecutive knots.
//
// Why: a mechanism that randomized-rounds x onto a grid (real_input.h) has
// Var[Decode(R(x))] = (linear interpolation of the grid second moments) − x²,
// a different quadratic on every grid cell, whose maximum can sit strictly
// inside a cell. Three evaluations pin each quadratic down, so the exact
// worst-case variance costs O(grid size) evaluations, done once at Create.
#ifndef LDP_COMMON_MECHANISMS_REAL_PIECEWISE_QUADRATIC_H_
#define LDP_COMMON_MECHANISMS_REAL_PIECEWISE_QUADRATIC_H_

#include "absl/functional/function_ref.h"
#include "absl/types/span.h"

namespace ldp {

// max of f over [knots.front(), knots.back()]; `knots` must be ascending and
// non-empty, and f a quadratic (any sign of curvature) on each
// [knots[i], knots[i + 1]].
double MaxOfPiecewiseQuadratic(absl::FunctionRef<double(double)> f,
                               absl::Span<const double> knots);

}  // namespace ldp

#endif  // LDP_COMMON_MECHANISMS_REAL_PIECEWISE_QUADRATIC_H_
