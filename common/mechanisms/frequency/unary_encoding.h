// Unary encodings: the agent one-hot encodes its item into N bits and
// reports every bit independently perturbed; bit v is 1 with probability p
// when v is the input and q otherwise.
//
//  - OUE, optimized unary encoding (Wang, Blocki, Li, Jha, USENIX Security
//    2017): p = 1/2, q = 1/(e^ε + 1). Its variance 4e^ε/(n(e^ε − 1)²) is the
//    best of the pure protocols, independent of N, at the price of N bits.
//  - SUE, symmetric unary encoding = basic one-time RAPPOR (Erlingsson,
//    Pihur, Korolova, CCS 2014): p = e^{ε/2}/(e^{ε/2} + 1), q = 1 − p.
//
// Coins: the implemented ratio p(1 − q)/(q(1 − p)) only shrinks when OUE's
// q is rounded UP (p = 1/2 is exact) and when SUE's p is rounded DOWN (q is
// its exact complement); epsilon() is ln of that ratio.
//
// Speed: the client fills each word with 64 bit-sliced coins (FlipCoins64)
// and then overwrites the true bit with its own coin, which is always drawn,
// so the number of draws never depends on the input. The server counts with
// a BitSlicedCounter instead of visiting set bits.
//
// The free functions and UnaryEncodingAccumulator below are shared by every
// oracle that reports one bit per item (longitudinal.h).
#ifndef LDP_COMMON_MECHANISMS_FREQUENCY_UNARY_ENCODING_H_
#define LDP_COMMON_MECHANISMS_FREQUENCY_UNARY_ENCODING_H_

#include <cstdint>
#include <memory>

#include "absl/random/bit_gen_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/base/coin.h"
#include "common/estimation/pure_protocol.h"
#include "common/mechanisms/frequency/bit_sliced_counter.h"
#include "common/mechanisms/frequency/frequency_oracle.h"
#include "common/mechanisms/frequency/pure_frequency_oracle.h"

namespace ldp {

enum class UnaryEncodingVariant {
  kOptimized,  // OUE
  kSymmetric,  // SUE / basic one-time RAPPOR
};

struct UnaryEncodingOptions {
  double epsilon = 0;        // in (0, kMaxEpsilon]
  uint32_t domain_size = 0;  // N in [2, kMaxDomainSize]
  UnaryEncodingVariant variant = UnaryEncodingVariant::kOptimized;
};

class UnaryEncoding : public PureFrequencyOracle {
 public:
  // Beyond ε = 20 OUE's q is below ~10 · 2^-32 and the 32-bit coins cannot
  // represent it faithfully.
  static constexpr double kMaxEpsilon = 20;
  // A report is N bits: 128 KiB at this bound.
  static constexpr uint32_t kMaxDomainSize = uint32_t{1} << 20;

  static absl::StatusOr<std::unique_ptr<UnaryEncoding>> Create(
      const UnaryEncodingOptions& options);

  FrequencyOracleKind kind() const override;
  uint32_t domain_size() const override { return domain_size_; }
  double epsilon() const override { return epsilon_; }

  FrequencyReport Randomize(uint32_t item, absl::BitGenRef gen) const override;
  // Exact up to double rounding; underflows to 0 for very large N.
  double Probability(uint32_t item,
                     const FrequencyReport& report) const override;
  absl::Status Validate(const FrequencyReport& report) const override;
  std::unique_ptr<FrequencyAccumulator> NewAccumulator() const override;
  PureProtocol protocol() const override {
    return PureProtocol{.p = p_.value(), .q = q_.value()};
  }

  UnaryEncodingVariant variant() const { return variant_; }
  // Implemented Pr[bit v = 1 | input v] and Pr[bit v = 1 | input ≠ v].
  double p() const { return p_.value(); }
  double q() const { return q_.value(); }

 private:
  UnaryEncoding(uint32_t domain_size, UnaryEncodingVariant variant,
                CoinProbability p, CoinProbability q, double epsilon);

  uint32_t domain_size_;
  UnaryEncodingVariant variant_;
  CoinProbability p_;
  CoinProbability q_;
  double epsilon_;
};

// ceil(num_bits / 64): the number of words of an N-bit report.
inline uint32_t UnaryReportWords(uint32_t num_bits) {
  return (num_bits + 63) / 64;
}

// The bits of an N-bit report's last word that may be 1.
inline uint64_t UnaryReportLastWordMask(uint32_t num_bits) {
  const uint32_t used = num_bits % 64;
  return used == 0 ? ~uint64_t{0} : (uint64_t{1} << used) - 1;
}

// One-hot `item` (< num_bits) perturbed bit by bit: bit `item` is 1 with
// probability p, every other bit with probability q. Padding bits are zero;
// the report's num_bits is num_bits.
BitVectorReport RandomizeUnary(uint32_t item, uint32_t num_bits,
                               CoinProbability p, CoinProbability q,
                               absl::BitGenRef gen);

// InvalidArgument unless `report` is a BitVectorReport of exactly num_bits
// bits: its num_bits is num_bits (or 0, a legacy stored report), it has the
// right number of words and its padding bits are zero. `kind` names the
// oracle in the message.
absl::Status ValidateUnaryReport(const FrequencyReport& report,
                                 uint32_t num_bits, FrequencyOracleKind kind);
absl::Status ValidateUnaryReport(const BitVectorReport& report,
                                 uint32_t num_bits, FrequencyOracleKind kind);

// Pr[report] when bit `item` is 1 w.p. p and every other bit w.p. q,
// independently. `report` must be valid for num_bits.
double UnaryReportProbability(const BitVectorReport& report, uint32_t item,
                              uint32_t num_bits, double p, double q);

// The server side of every one-bit-per-item oracle: support counts are the
// column sums of the reports. Accumulators merge when kind, domain size and
// (p, q) agree.
class UnaryEncodingAccumulator : public FrequencyAccumulator {
 public:
  UnaryEncodingAccumulator(FrequencyOracleKind kind, uint32_t domain_size,
                           PureProtocol protocol, double epsilon);

  absl::Status Add(const FrequencyReport& report) override;
  absl::Status Merge(const FrequencyAccumulator& other) override;
  int64_t num_reports() const override { return num_reports_; }
  HistogramEstimate Estimate() const override;
  // counts: the column sums (domain_size values, each ≤ num_reports).
  AccumulatorState State() const override;
  absl::Status MergeState(const AccumulatorState& state) override;

 private:
  FrequencyOracleKind kind_;
  uint32_t domain_size_;
  PureProtocol protocol_;
  double epsilon_;
  BitSlicedCounter counter_;
  int64_t num_reports_ = 0;
};

}  // namespace ldp

#endif  // LDP_COMMON_MECHANISMS_FREQUENCY_UNARY_ENCODING_H_
