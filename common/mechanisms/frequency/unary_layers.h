// Two chained bit-by-bit randomized responses over a bit vector: a permanent
// layer (PRR) the agent memoizes and an instantaneous layer (IRR) drawn fresh
// for every report. L-UE (longitudinal.h) runs them on a one-hot vector,
// RAPPOR (rappor.h) on a Bloom filter (Erlingsson, Pihur, Korolova, CCS 2014;
// Arcolezi, Couchot, Al Bouna, Xiao, 2022).
//
// Layers (bit i of the input is x_i, of the memo B_i, of the report Y_i):
//   PRR  Pr[B_i = 1] = p1 if x_i = 1, q1 otherwise: symmetric (SUE)
//        p1 = e^{ε∞/2}/(e^{ε∞/2} + 1), q1 = 1 − p1, or optimized (OUE)
//        p1 = 1/2, q1 = 1/(e^{ε∞} + 1).
//   IRR  Pr[Y_i = 1 | B_i = 1] = p2, Pr[Y_i = 1 | B_i = 0] = q2: optimized
//        (p2 = 1/2, solve for q2) or symmetric (q2 = 1 − p2, solve for p2).
// One report is again bit-by-bit with
//   P = p1 p2 + (1 − p1) q2,   Q = q1 p2 + (1 − q1) q2,
// a pure protocol per bit. The ε here is the *unary* loss: the log of the
// largest ratio between two inputs that differ in one 1-bit moved elsewhere,
// ln[P(1 − Q) / (Q(1 − P))]. An encoding whose inputs differ in h such
// moves (RAPPOR's h hashes) solves the layers at ε/h.
//
// The free IRR parameter solves P(1 − Q)/(Q(1 − P)) = e^{ε1}. For the
// optimized IRR with a symmetric PRR (a = p1) this is the quadratic
//   a(1−a)(E−1) x² + ½[(1 − 2a²) − E(4a − 2a² − 1)] x
//     + ¼[a(1+a) − E(1−a)(2−a)] = 0,   E = e^{ε1}, x = q2 ∈ (0, ½),
// solvable only for ε1 < ln[a(1+a)/((1−a)(2−a))] (< ε∞). For the optimized
// PRR with symmetric IRR (Arcolezi et al.'s L-OSUE) P = 1/2 and
//   p2 = (1 − q1 − Q)/(1 − 2 q1),   Q = 1/(e^{ε1} + 1),
// i.e. one report is exactly OUE at ε1, for every ε1 < ε∞. The code does
// not evaluate these closed forms: it binary-searches the 2^-32 coin grid for
// the IRR coin that gets closest to e^{ε1} from below, the same root rounded
// in the direction that never increases the privacy loss.
#ifndef LDP_COMMON_MECHANISMS_FREQUENCY_UNARY_LAYERS_H_
#define LDP_COMMON_MECHANISMS_FREQUENCY_UNARY_LAYERS_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/random/bit_gen_ref.h"
#include "absl/status/statusor.h"
#include "common/base/coin.h"
#include "common/estimation/pure_protocol.h"
#include "common/mechanisms/frequency/unary_encoding.h"

namespace ldp {

// One bit-by-bit layer: Pr[1 out | 1 in] = p, Pr[1 out | 0 in] = q.
struct BitCoins {
  CoinProbability p;
  CoinProbability q;
  friend bool operator==(const BitCoins&, const BitCoins&) = default;
};

// ln[p(1 − q) / (q(1 − p))]: the unary loss of one bit-by-bit layer.
double UnaryEpsilon(double p, double q);

class UnaryLayers {
 public:
  // InvalidArgument (messages start with `mechanism`) unless ε∞ is finite
  // in (0, max_epsilon], ε1 finite in (0, ε∞), the variants are known, and
  // ε1 is reachable with this PRR and large enough to carry a signal at
  // 2^-32 coin resolution.
  static absl::StatusOr<UnaryLayers> Solve(std::string_view mechanism,
                                           UnaryEncodingVariant permanent,
                                           UnaryEncodingVariant instantaneous,
                                           double epsilon_permanent,
                                           double epsilon_report,
                                           double max_epsilon);

  BitCoins permanent() const { return permanent_; }
  BitCoins instantaneous() const { return instantaneous_; }
  // One report's bit: {P, Q}.
  PureProtocol composed() const { return composed_; }
  double epsilon_infinity() const { return epsilon_infinity_; }
  double epsilon() const { return epsilon_; }

  // One 64-bit word of a report drawn from one word of the memo (every bit
  // through the IRR; the caller masks padding).
  uint64_t DrawReportWord(uint64_t memo, absl::BitGenRef gen) const;
  // Pr[report | memo] for equally long word vectors whose first `num_bits`
  // bits count (padding is zero in both).
  double ReportProbability(const std::vector<uint64_t>& memo,
                           const std::vector<uint64_t>& report,
                           uint32_t num_bits) const;

  friend bool operator==(const UnaryLayers&, const UnaryLayers&) = default;

 private:
  UnaryLayers(BitCoins permanent, BitCoins instantaneous, double epsilon,
              double epsilon_infinity);

  BitCoins permanent_;
  BitCoins instantaneous_;
  PureProtocol composed_;
  double epsilon_;
  double epsilon_infinity_;
};

}  // namespace ldp

#endif  // LDP_COMMON_MECHANISMS_FREQUENCY_UNARY_LAYERS_H_
