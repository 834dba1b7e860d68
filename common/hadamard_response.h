// Hadamard response (Acharya, Sun, Zhang, "Hadamard Response: Estimating
// Distributions Privately, Efficiently, and with Little Communication",
// AISTATS 2019), in its one-block form.
//
// Why: the report is one index of [K] (⌈log₂ K⌉ bits), the client is O(1),
// and the server keeps K counters and decodes every item with one fast
// Walsh–Hadamard transform, so it scales to millions of reports. Its variance
// stops improving for ε ≳ 2 (where unary encodings or local hashing win).
//
// K = 2^⌈log₂(N + 1)⌉. Item v owns the half
//   C_v = {y ∈ [K] : popcount((v + 1) & y) even}
// (row v + 1 of the Sylvester–Hadamard matrix; row 0, all ones, is unused).
// The client reports a uniform element of C_v with probability p ≈
// e^ε/(e^ε + 1) and a uniform element of the complement otherwise. Distinct
// rows agree on exactly half the columns, so any other item's half is hit
// with probability exactly 1/2: a pure protocol with p and q = 1/2.
#ifndef LDP_COMMON_HADAMARD_RESPONSE_H_
#define LDP_COMMON_HADAMARD_RESPONSE_H_

#include <cstdint>
#include <memory>

#include "absl/random/bit_gen_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/coin.h"
#include "common/frequency_oracle.h"
#include "common/pure_frequency_oracle.h"
#include "common/pure_protocol.h"

namespace ldp {

struct HadamardResponseOptions {
  double epsilon = 0;
  // N: items are 0 … N − 1; 2 ≤ N ≤ kMaxDomainSize.
  uint32_t domain_size = 0;
};

class HadamardResponse final : public PureFrequencyOracle {
 public:
  // The server keeps K ≤ 2N int64 counters; larger domains belong in a
  // sketch (count_mean_sketch.h).
  static constexpr uint32_t kMaxDomainSize = uint32_t{1} << 24;

  static absl::StatusOr<std::unique_ptr<HadamardResponse>> Create(
      const HadamardResponseOptions& options);

  FrequencyOracleKind kind() const override {
    return FrequencyOracleKind::kHadamardResponse;
  }
  uint32_t domain_size() const override { return params_.domain_size; }
  double epsilon() const override { return params_.epsilon; }
  // K: reports are ItemReport{y} with y < K.
  uint32_t output_size() const { return params_.output_size; }
  // The implemented pure-protocol parameters (p from the coin, q = 1/2).
  PureProtocol protocol() const override;

  FrequencyReport Randomize(uint32_t item, absl::BitGenRef gen) const override;
  double Probability(uint32_t item,
                     const FrequencyReport& report) const override;
  absl::Status Validate(const FrequencyReport& report) const override;
  std::unique_ptr<FrequencyAccumulator> NewAccumulator() const override;

  // Everything that defines the oracle; accumulators keep a copy so that they
  // outlive it and can check a Merge partner.
  struct Params {
    uint32_t domain_size = 0;
    uint32_t output_size = 0;
    CoinProbability in_half = CoinProbability::Half();  // p
    double epsilon = 0;
    friend bool operator==(const Params&, const Params&) = default;
  };

 private:
  explicit HadamardResponse(const Params& params) : params_(params) {}

  Params params_;
};

}  // namespace ldp

#endif  // LDP_COMMON_HADAMARD_RESPONSE_H_
