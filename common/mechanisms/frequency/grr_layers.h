// Two chained generalized randomized responses over one alphabet [k]: a
// permanent layer the agent memoizes and an instantaneous layer drawn fresh
// for every report. L-GRR (longitudinal_grr.h) runs them on the item,
// L-OLH (longitudinal_local_hashing.h) on the item's hashed bucket
// (Arcolezi, Couchot, Al Bouna, Xiao, "Improving the utility of locally
// differentially private protocols for longitudinal and multidimensional
// frequency estimates", 2022).
//
// Layers (memo B, report Y, input symbol x):
//   PRR  Pr[B = x] = p1 = e^{ε∞}/(e^{ε∞} + k − 1), else uniform other:
//        q1 = (1 − p1)/(k − 1) each;
//   IRR  Pr[Y = B] = p2, else uniform other: q2 = (1 − p2)/(k − 1) each.
// One report is again GRR over [k]:
//   P = Pr[Y = x] = p1 p2 + (1 − p1) q2,   Q = Pr[Y = y ≠ x] = q1 p2 + (1 − q1)
//   q2,
// with P + (k − 1) Q = 1: one report is exactly GRR over [k] at ε1 = ln(P/Q),
// whatever ε∞ (the permanent layer costs accuracy only through p2), and
//   p2 = [E(1 − q1) − (1 − p1)] / [(k − 1)p1 − (1 − p1) − E((k − 1)q1 − (1 −
//   q1))], E = e^{ε1},
// solves P/Q = e^{ε1} for any ε1 < ε∞ (P/Q grows with p2 from 1 at p2 = 1/k
// to p1/q1 = e^{ε∞} at p2 = 1). The code does not evaluate that closed form
// for the coins: it binary-searches the 2^-32 grid for the largest p2 whose
// implemented ε1 is at most the requested one, the same root rounded in the
// direction that never increases the privacy loss. Both coins are rounded
// down, as GRR's is (generalized_randomized_response.h).
#ifndef LDP_COMMON_MECHANISMS_FREQUENCY_GRR_LAYERS_H_
#define LDP_COMMON_MECHANISMS_FREQUENCY_GRR_LAYERS_H_

#include <cstdint>
#include <string_view>

#include "absl/random/bit_gen_ref.h"
#include "absl/status/statusor.h"
#include "common/base/coin.h"
#include "common/estimation/pure_protocol.h"

namespace ldp {

class GrrLayers {
 public:
  // InvalidArgument (messages start with `mechanism`) unless ε∞ is finite
  // in (0, max_epsilon], ε1 finite in (0, ε∞), and both are large enough to
  // carry a signal at 2^-32 coin resolution. k ≥ 2 is the caller's to check.
  static absl::StatusOr<GrrLayers> Solve(std::string_view mechanism,
                                         uint32_t alphabet,
                                         double epsilon_permanent,
                                         double epsilon_report,
                                         double max_epsilon);

  // The epsilon checks of Solve alone.
  static absl::Status ValidateEpsilons(std::string_view mechanism,
                                       double epsilon_permanent,
                                       double epsilon_report,
                                       double max_epsilon);

  uint32_t alphabet() const { return alphabet_; }
  CoinProbability keep_permanent() const { return keep_permanent_; }  // p1
  CoinProbability keep_report() const { return keep_report_; }        // p2
  // One report over [k]: {P, Q}.
  PureProtocol composed() const { return composed_; }
  double epsilon_infinity() const { return epsilon_infinity_; }  // ln(p1/q1)
  double epsilon() const { return epsilon_; }                    // ln(P/Q)

  // The memo for symbol x < k, and a report drawn from memo b < k.
  uint32_t DrawPermanent(uint32_t symbol, absl::BitGenRef gen) const;
  uint32_t DrawReport(uint32_t memo, absl::BitGenRef gen) const;
  // Pr[B = memo | x], Pr[Y = report | B = memo], Pr[Y = report | x].
  double PermanentProbability(uint32_t symbol, uint32_t memo) const;
  double ReportProbability(uint32_t memo, uint32_t report) const;
  double Probability(uint32_t symbol, uint32_t report) const;

  friend bool operator==(const GrrLayers&, const GrrLayers&) = default;

 private:
  GrrLayers(uint32_t alphabet, CoinProbability keep_permanent,
            CoinProbability keep_report);

  uint32_t alphabet_;
  CoinProbability keep_permanent_;
  CoinProbability keep_report_;
  PureProtocol composed_;
  double epsilon_infinity_;
  double epsilon_;
};

}  // namespace ldp

#endif  // LDP_COMMON_MECHANISMS_FREQUENCY_GRR_LAYERS_H_
