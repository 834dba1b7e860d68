// The contract every local randomizer for a bounded real value meets (mean
// and statistical-query answers, φ(x) ∈ [-b, b]).
//
// Reports are integers (`ScalarReport::level`) on a public lattice; the
// mechanism maps a level to the real it stands for. No report carries a
// double, and no randomizer transforms a uniform double into noise
// (Mironov 2012): inputs are rounded to the mechanism's grid first (by
// unbiased randomized rounding, which is pre-processing and so cannot hurt
// ε), then randomized with integer coins (coin.h). That makes every
// mechanism transparent: `Probability` is the exact pmf, so tests check the
// e^ε ratio bound by enumeration.
//
// Mechanism objects are immutable and thread-safe.
#ifndef LDP_COMMON_MECHANISMS_REAL_REAL_MECHANISM_H_
#define LDP_COMMON_MECHANISMS_REAL_REAL_MECHANISM_H_

#include <cstdint>
#include <string_view>

#include "absl/random/bit_gen_ref.h"
#include "absl/status/status.h"

namespace ldp {

struct ScalarReport {
  int64_t level = 0;
  friend bool operator==(const ScalarReport&, const ScalarReport&) = default;
};

enum class RealMechanismKind {
  kDiscreteLaplace,  // local Laplace on a lattice (Canonne–Kamath–Steinke)
  kDuchi,            // Duchi–Jordan–Wainwright one-bit (= 1BitMean)
  kPiecewise,        // Wang et al. ICDE 2019, on a grid
  kHybrid,           // piecewise w.p. α, Duchi otherwise
};

std::string_view RealMechanismKindName(RealMechanismKind kind);

class RealMechanism {
 public:
  virtual ~RealMechanism() = default;

  virtual RealMechanismKind kind() const = 0;
  // Implemented ε (≤ the ε the mechanism was created for).
  virtual double epsilon() const = 0;
  // Inputs live in [-bound, bound].
  virtual double bound() const = 0;

  // Randomizes x. x is clamped to [-bound, bound] and NaN becomes 0, so every
  // call yields exactly one well-formed report (DESIGN invariant 8).
  virtual ScalarReport Randomize(double x, absl::BitGenRef gen) const = 0;

  // Exact Pr[R(x) = report], including the randomized rounding of x.
  virtual double Probability(double x, const ScalarReport& report) const = 0;

  // InvalidArgument unless `report` is a level this mechanism can output
  // (for unbounded noise: within a documented window far beyond any honest
  // report, which bounds a forged report's influence).
  virtual absl::Status Validate(const ScalarReport& report) const = 0;

  // The unbiased estimate of x one report carries: E[Decode(R(x))] = x for
  // x in [-bound, bound].
  virtual double Decode(const ScalarReport& report) const = 0;

  // The largest |Decode(report)| over the reports Validate accepts: the
  // range the server's fixed-point sums (mean_accumulator.h) must cover.
  virtual double DecodeBound() const = 0;

  // Var[Decode(R(x))] and its maximum over [-bound, bound].
  virtual double Variance(double x) const = 0;
  virtual double WorstCaseVariance() const = 0;
};

}  // namespace ldp

#endif  // LDP_COMMON_MECHANISMS_REAL_REAL_MECHANISM_H_
