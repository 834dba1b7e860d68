// Longitudinal unary encoding: memoized permanent randomized response plus a
// fresh instantaneous one per report (Erlingsson, Pihur, Korolova, "RAPPOR",
// CCS 2014; Arcolezi, Couchot, Al Bouna, Xiao, "Improving the utility of
// locally differentially private protocols for longitudinal and
// multidimensional frequency estimates", 2022).
//
// Why: an agent asked the same question every day leaks T·ε after T fresh
// answers (the averaging attack). Here the agent perturbs its one-hot vector
// ONCE per value (the PRR, ε∞-LDP), stores it (Memoize), and every report is
// a fresh perturbation of that memo (RandomizeFromMemo). All reports of one
// value are post-processing of the PRR, so together they never leak more than
// ε∞; one report alone leaks only ε1 < ε∞.
//
// Layers (unary_layers.h has them and their closed forms): the PRR is a
// unary encoding at ε∞ (optimized or symmetric), the IRR a bit-by-bit
// response tuned so that one report, P = Pr[1 | value's bit], Q = Pr[1 |
// another bit], is a unary encoding at ε1: a pure protocol
// (f̂ = (C/n − Q)/(P − Q)) with epsilon() = ln[P(1 − Q) / (Q(1 − P))].
//
// Which layers: the default is the optimized PRR with symmetric IRR
// ("L-OSUE" in Arcolezi et al.), which has the lowest variance of the four
// combinations for every (ε∞, ε1) and accepts any ε1 < ε∞. RAPPOR's
// symmetric PRR is available through the options.
//
// Variance (fixed population): Var[f̂] = [f P(1−P) + (1−f) Q(1−Q)] /
// (n (P − Q)²), the pure-protocol formula. Arcolezi et al.'s
// σ(1−σ)/(n (p1 − q1)² (p2 − q2)²) with σ = Q + f(P − Q) is the variance when
// each agent's value is itself drawn i.i.d. from f; it exceeds ours by
// exactly f(1 − f)/n.
#ifndef LDP_COMMON_MECHANISMS_LONGITUDINAL_LONGITUDINAL_H_
#define LDP_COMMON_MECHANISMS_LONGITUDINAL_LONGITUDINAL_H_

#include <cstdint>
#include <memory>

#include "absl/random/bit_gen_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/estimation/pure_protocol.h"
#include "common/mechanisms/frequency/frequency_oracle.h"
#include "common/mechanisms/frequency/pure_frequency_oracle.h"
#include "common/mechanisms/frequency/unary_encoding.h"
#include "common/mechanisms/frequency/unary_layers.h"
#include "common/mechanisms/longitudinal/longitudinal_oracle.h"

namespace ldp {

struct LongitudinalUnaryEncodingOptions {
  double epsilon_permanent = 0;  // ε∞ in (0, kMaxEpsilon]
  double epsilon_report = 0;     // ε1 in (0, ε∞)
  uint32_t domain_size = 0;      // N in [2, kMaxDomainSize]
  UnaryEncodingVariant permanent = UnaryEncodingVariant::kOptimized;
  UnaryEncodingVariant instantaneous = UnaryEncodingVariant::kSymmetric;
};

class LongitudinalUnaryEncoding final : public PureFrequencyOracle,
                                        public LongitudinalOracle {
 public:
  static constexpr double kMaxEpsilon = UnaryEncoding::kMaxEpsilon;
  static constexpr uint32_t kMaxDomainSize = UnaryEncoding::kMaxDomainSize;

  static absl::StatusOr<std::unique_ptr<LongitudinalUnaryEncoding>> Create(
      const LongitudinalUnaryEncodingOptions& options);

  FrequencyOracleKind kind() const override {
    return FrequencyOracleKind::kLongitudinalUnaryEncoding;
  }
  uint32_t domain_size() const override { return domain_size_; }
  // Implemented ε1: the privacy loss of ONE report (fresh PRR, then IRR).
  double epsilon() const override { return layers_.epsilon(); }
  // Implemented ε∞: the loss of any number of reports from one memo.
  double epsilon_infinity() const override {
    return layers_.epsilon_infinity();
  }

  // One report without a memo: a fresh PRR followed by an IRR. Agents that
  // report repeatedly use Memoize + RandomizeFromMemo instead.
  FrequencyReport Randomize(uint32_t item, absl::BitGenRef gen) const override;
  // Exact (up to double rounding) Pr[Randomize(item) = report].
  double Probability(uint32_t item,
                     const FrequencyReport& report) const override;
  absl::Status Validate(const FrequencyReport& report) const override;
  std::unique_ptr<FrequencyAccumulator> NewAccumulator() const override;

  // The memo is a BitVectorReport of N bits (the PRR).
  FrequencyReport Memoize(uint32_t item, absl::BitGenRef gen) const override;
  absl::Status ValidateMemo(const FrequencyReport& memo) const override;
  // A memo of the wrong length or with padding bits set (not one Memoize
  // returned) is first truncated or zero-extended and masked; one that is
  // not a BitVectorReport counts as all zeros.
  FrequencyReport RandomizeFromMemo(const FrequencyReport& memo,
                                    absl::BitGenRef gen) const override;
  double MemoProbability(uint32_t item,
                         const FrequencyReport& memo) const override;
  double ProbabilityFromMemo(const FrequencyReport& memo,
                             const FrequencyReport& report) const override;

  // Implemented layer probabilities and the composed (P, Q) of one report.
  double p1() const { return layers_.permanent().p.value(); }
  double q1() const { return layers_.permanent().q.value(); }
  double p2() const { return layers_.instantaneous().p.value(); }
  double q2() const { return layers_.instantaneous().q.value(); }
  PureProtocol protocol() const override { return layers_.composed(); }

 private:
  LongitudinalUnaryEncoding(uint32_t domain_size, UnaryLayers layers)
      : domain_size_(domain_size), layers_(layers) {}

  uint32_t domain_size_;
  UnaryLayers layers_;
};

}  // namespace ldp

#endif  // LDP_COMMON_MECHANISMS_LONGITUDINAL_LONGITUDINAL_H_
