// The conditional divergence D_c(ε); see the header. The sum runs from the
// cutoff k down, with b_c(a − 1) = b_c(a)·a/(c − a + 1), and stops once a
// geometric bound on everything below is under 1e-12 of the sum so far.
#include "common/amplification/clone_divergence.h"

#include <algorithm>
#include <cfloat>
#include <cmath>

namespace ldp {
namespace {

// Where the sum stops: the rest is bounded and added, so this only trades
// tightness (1e-12 relative) for speed.
constexpr double kRelativeCut = 1e-12;

// ln b_c(k), the Bin(c, 1/2) pmf, in log space so c up to 1e10 works.
double LogHalfBinomial(double c, double k) {
  return std::lgamma(c + 1) - std::lgamma(k + 1) - std::lgamma(c - k + 1) -
         c * std::log(2.0);
}

}  // namespace

CloneDivergence::CloneDivergence(double epsilon0, double epsilon) {
  // With α = e^ε0/(1 + e^ε0) and 1 − α = 1/(1 + e^ε0):
  // A = (e^ε0 − e^ε)/(1 + e^ε0) = e^ε·expm1(ε0 − ε)/(1 + e^ε0),
  // B = (e^(ε0+ε) − 1)/(1 + e^ε0) = expm1(ε0 + ε)/(1 + e^ε0).
  const double denominator = 1 + std::exp(epsilon0);
  a_coefficient_ =
      std::exp(epsilon) * std::expm1(epsilon0 - epsilon) / denominator;
  b_coefficient_ = std::expm1(epsilon0 + epsilon) / denominator;
}

bool CloneDivergence::PositiveTerm(int64_t clones, int64_t a) const {
  return a_coefficient_ * static_cast<double>(clones - a + 1) >
         b_coefficient_ * static_cast<double>(a);
}

int64_t CloneDivergence::LastPositiveTerm(int64_t clones) const {
  // Positive iff a < T·(c + 1)/(1 + T), T = A/B; start there and fix the
  // rounding by testing the sign itself.
  const double t = a_coefficient_ / b_coefficient_;
  const double guess =
      std::floor(t * static_cast<double>(clones + 1) / (1 + t));
  int64_t k = std::clamp<int64_t>(static_cast<int64_t>(guess), -1, clones);
  while (k >= 0 && !PositiveTerm(clones, k)) --k;
  while (k < clones && PositiveTerm(clones, k + 1)) ++k;
  return k;
}

double CloneDivergence::UpperBound(int64_t clones) const {
  if (!(a_coefficient_ > 0)) return 0;  // ε ≥ ε0: P_c ≤ e^ε·Q_c everywhere
  const int64_t k = LastPositiveTerm(clones);
  if (k < 0) return kCloneDivergenceFloor;
  const double c = static_cast<double>(clones);
  double b = std::exp(LogHalfBinomial(c, static_cast<double>(k)));
  double sum = 0;  // Σ b_c(a)·(A − B·a/(c − a + 1)) over a = k, k − 1, ...
  double mass = 0;  // Σ b_c(a) over the same a
  int64_t steps = 0;
  for (int64_t a = k; a >= 0; --a) {
    const double ratio = static_cast<double>(a) / (c - a + 1);  // b(a−1)/b(a)
    sum += b * (a_coefficient_ - b_coefficient_ * ratio);
    mass += b;
    ++steps;
    b *= ratio;
    if (a == 0) break;
    // The ratios shrink as a falls, so Σ_{j<a} b(j) ≤ b(a−1)/(1 − r(a−1));
    // each of those terms is at most A·b(j).
    const double next_ratio = static_cast<double>(a - 1) / (c - a + 2);
    const double rest = a_coefficient_ * b / (1 - next_ratio);
    if (rest <= kRelativeCut * sum) {
      sum += rest;
      break;
    }
  }
  const double relative_error = 16 * DBL_EPSILON * (c + 2) * std::log(c + 2) +
                                4 * DBL_EPSILON * static_cast<double>(steps);
  // Each term's A − B·r is off by at most a few ulps of A.
  const double absolute_error = 8 * DBL_EPSILON * a_coefficient_ * mass;
  return sum * (1 + relative_error) + absolute_error + kCloneDivergenceFloor;
}

}  // namespace ldp
