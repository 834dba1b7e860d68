// Exact maximum of a piecewise quadratic; see piecewise_quadratic.h.
#include "common/mechanisms/real/piecewise_quadratic.h"

#include <algorithm>

namespace ldp {
namespace {

// max over u ∈ [0, 1] of g(u) = a u² + b u + c, given g(0), g(1/2), g(1).
double MaxOnUnitInterval(double at0, double at_half, double at1) {
  const double a = 2 * (at0 + at1 - 2 * at_half);
  const double b = at1 - at0 - a;
  double best = std::max(at0, at1);
  if (a < 0) {
    const double vertex = -b / (2 * a);
    if (vertex > 0 && vertex < 1) best = std::max(best, at0 - b * b / (4 * a));
  }
  return best;
}

}  // namespace

double MaxOfPiecewiseQuadratic(absl::FunctionRef<double(double)> f,
                               absl::Span<const double> knots) {
  double left_value = f(knots.front());
  double best = left_value;
  for (size_t i = 1; i < knots.size(); ++i) {
    const double left = knots[i - 1];
    const double right = knots[i];
    const double right_value = f(right);
    best = std::max(best,
                    MaxOnUnitInterval(left_value, f(left + (right - left) / 2),
                                      right_value));
    left_value = right_value;
  }
  return best;
}

}  // namespace ldp
