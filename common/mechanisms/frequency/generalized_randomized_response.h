// Generalized randomized response (GRR, k-RR, direct encoding): report the
// true item with probability p = e^ε/(e^ε + N − 1), otherwise a uniformly
// random *other* item (Kairouz, Bonawitz, Ramage, ICML 2016; Wang, Blocki,
// Li, Jha, USENIX Security 2017). With N = 2 it is Warner's randomized
// response (JASA 1965).
//
// Why it is here: one item per report, so it is the cheapest oracle on the
// wire and on the server, and the most accurate one for small domains
// (N < 3e^ε + 2); its variance grows linearly in N beyond that.
//
// Coins: p is rounded DOWN to a multiple of 2^-32 (coin.h), which can only
// lower the ratio p'(N − 1)/(1 − p'); epsilon() = ln(p'(N − 1)/(1 − p')) is
// that implemented ε. Rounding costs ≈ 2^-32/p' in ε, negligible for
// moderate N (≈ 1e-7 at N = 1024, ε = 1) but growing with N.
#ifndef LDP_COMMON_MECHANISMS_FREQUENCY_GENERALIZED_RANDOMIZED_RESPONSE_H_
#define LDP_COMMON_MECHANISMS_FREQUENCY_GENERALIZED_RANDOMIZED_RESPONSE_H_

#include <cstdint>
#include <memory>
#include <string_view>

#include "absl/random/bit_gen_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/base/coin.h"
#include "common/estimation/pure_protocol.h"
#include "common/mechanisms/frequency/frequency_oracle.h"
#include "common/mechanisms/frequency/pure_frequency_oracle.h"

namespace ldp {

struct GeneralizedRandomizedResponseOptions {
  double epsilon = 0;        // in (0, kMaxEpsilon]
  uint32_t domain_size = 0;  // N in [2, kMaxDomainSize]
};

class GeneralizedRandomizedResponse : public PureFrequencyOracle {
 public:
  // Beyond ε = 20 the flip probability is below ~10 · 2^-32 and the 32-bit
  // coins cannot represent it faithfully.
  static constexpr double kMaxEpsilon = 20;
  // Bounds the server's count vector (8 bytes per item).
  static constexpr uint32_t kMaxDomainSize = uint32_t{1} << 24;

  static absl::StatusOr<std::unique_ptr<GeneralizedRandomizedResponse>> Create(
      const GeneralizedRandomizedResponseOptions& options);

  FrequencyOracleKind kind() const override {
    return FrequencyOracleKind::kGeneralizedRandomizedResponse;
  }
  uint32_t domain_size() const override { return domain_size_; }
  double epsilon() const override { return epsilon_; }

  FrequencyReport Randomize(uint32_t item, absl::BitGenRef gen) const override;
  double Probability(uint32_t item,
                     const FrequencyReport& report) const override;
  absl::Status Validate(const FrequencyReport& report) const override;
  std::unique_ptr<FrequencyAccumulator> NewAccumulator() const override;
  PureProtocol protocol() const override { return protocol_; }

  // Implemented Pr[report = input] (p') and Pr[report = one given other
  // item] ((1 − p')/(N − 1)).
  double keep_probability() const { return keep_.value(); }
  double other_probability() const { return protocol_.q; }

 private:
  GeneralizedRandomizedResponse(uint32_t domain_size, CoinProbability keep,
                                double epsilon);

  uint32_t domain_size_;
  CoinProbability keep_;
  PureProtocol protocol_;
  double epsilon_;
};

// One GRR step over [alphabet]: `symbol` with probability `keep`, else a
// uniform other symbol. Draws the same coin and the same uniform value
// whatever the outcome, so neither the draw count nor the work tells whether
// the output is the input (DESIGN invariant 8). Shared by GRR, local hashing
// and the longitudinal layers (grr_layers.h).
uint32_t RandomizeGrrSymbol(uint32_t symbol, uint32_t alphabet,
                            CoinProbability keep, absl::BitGenRef gen);

// ln(p (alphabet − 1)/(1 − p)) for the keep coin p = keep_numerator / 2^32:
// the privacy loss of one GRR step over [alphabet], from the integers.
double GrrStepEpsilon(uint64_t keep_numerator, uint32_t alphabet);

// InvalidArgument unless `report` is an ItemReport below `domain_size`; the
// message names `mechanism`.
absl::Status ValidateItemReport(const FrequencyReport& report,
                                uint32_t domain_size,
                                std::string_view mechanism);

// The decoder of an oracle whose report is one item supporting itself, with
// Pr = protocol.p at the input and protocol.q at each other item (GRR,
// L-GRR): item counts and the pure-protocol estimator. Merges only with an
// accumulator of the same domain size, protocol and ε.
std::unique_ptr<FrequencyAccumulator> NewItemSupportAccumulator(
    std::string_view mechanism, uint32_t domain_size, PureProtocol protocol,
    double epsilon);

}  // namespace ldp

#endif  // LDP_COMMON_MECHANISMS_FREQUENCY_GENERALIZED_RANDOMIZED_RESPONSE_H_
