// The γ₂ interval's text; see the header.
#include "tools/plan_command/gamma2_text.h"

#include <cmath>
#include <string>

#include "absl/strings/str_format.h"

namespace ldp {
namespace {

constexpr int kDigits = 10;

// x moved half a unit of the last printed digit towards `direction`, so
// that %.10g's round-to-nearest lands on the outward side of x. A
// certified lower bound printed rounded up would no longer be certified.
double Outward(double x, double direction) {
  if (x == 0 || !std::isfinite(x)) return x;
  const double unit =
      std::pow(10.0, std::floor(std::log10(std::fabs(x))) - (kDigits - 1));
  return x + direction * 0.5 * unit * (1 + 1e-9);
}

}  // namespace

std::string Gamma2IntervalText(double lower, double upper) {
  return absl::StrFormat(
      "gamma2(W) certified in [%.*g, %.*g] (dual lower bound, factorization "
      "found)",
      kDigits, Outward(lower, -1), kDigits, Outward(upper, +1));
}

}  // namespace ldp
