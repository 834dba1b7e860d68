// Hadamard response (Acharya, Sun, Zhang, "Hadamard Response: Estimating
// Distributions Privately, Efficiently, and with Little Communication",
// AISTATS 2019), in its one-block form and a general form with t Hadamard
// rows per item.
//
// Why: the report is one index of [K] (log₂ K bits), the client is O(1),
// and the server keeps K counters and decodes every item with one fast
// Walsh–Hadamard transform, so it scales to millions of reports.
//
// One block (t = 1, the paper's high-privacy form): K = 2^⌈log₂(N + 1)⌉ and
// item v owns the half C_v = {y : popcount((v + 1) & y) even} (row v + 1 of
// the Sylvester–Hadamard matrix). The client reports a uniform element of
// C_v with probability p = e^ε/(e^ε + 1) and a uniform element of the
// complement otherwise; distinct rows agree on exactly half the columns, so
// any other item's half is hit with probability exactly 1/2: a pure
// protocol with q = 1/2. Its variance stops improving for ε ≳ 2.
//
// General (t ≥ 1): item v owns t rows of H_K (K = 2^(t·r)) and C_v is the
// K/2^t columns where all of them are +1 (hadamard_subspaces.h). The client
// reports a uniform element of C_v with probability
// p = e^ε/(e^ε + 2^t − 1), else a uniform column outside it; two items'
// sets meet in K/4^t columns, so q = 2^-t exactly: local hashing's variance
// with g = 2^t buckets, which at t ≈ log₂(e^ε + 1) is within a few percent
// of the unary encodings' optimum at every ε. The paper's own general form
// splits the domain into disjoint blocks, whose sets do not meet at all, and
// pays about twice the optimum at large ε; these row spaces keep every pair
// of items balanced instead. The price is K ≈ N·2^t server counters.
#ifndef LDP_COMMON_MECHANISMS_FREQUENCY_HADAMARD_RESPONSE_H_
#define LDP_COMMON_MECHANISMS_FREQUENCY_HADAMARD_RESPONSE_H_

#include <cstdint>
#include <memory>

#include "absl/random/bit_gen_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/base/coin.h"
#include "common/estimation/pure_protocol.h"
#include "common/mechanisms/frequency/frequency_oracle.h"
#include "common/mechanisms/frequency/hadamard_subspaces.h"
#include "common/mechanisms/frequency/pure_frequency_oracle.h"

namespace ldp {

struct HadamardResponseOptions {
  double epsilon = 0;
  // N: items are 0 … N − 1; 2 ≤ N ≤ kMaxDomainSize.
  uint32_t domain_size = 0;
  // t in [1, 12]; 1 is the one-block form. K = 2^(t·r) must stay within
  // 2^25 (hadamard_subspaces.h).
  uint32_t rows_per_item = 1;
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
  uint32_t rows_per_item() const { return params_.rows_per_item; }

  // The t of least variance at ε for N items among those whose K is at
  // most kMaxChosenOutputSize (the server's counters stay within 8 MiB).
  static constexpr uint32_t kMaxChosenOutputSize = uint32_t{1} << 20;
  // The general form's K: more rows per item must not buy a small domain
  // the 2^25 counters the one-block form keeps only for 2^24 items (each
  // accumulator holds K int64 counters: 32 MiB here).
  static constexpr uint32_t kMaxGeneralOutputSize = uint32_t{1} << 22;
  static uint32_t BestRowsPerItem(double epsilon, uint32_t domain_size);
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
    uint32_t rows_per_item = 1;
    uint32_t output_size = 0;
    CoinProbability in_set = CoinProbability::Half();  // p
    double epsilon = 0;
    friend bool operator==(const Params&, const Params&) = default;
  };

 private:
  HadamardResponse(const Params& params, const HadamardSubspaces& subspaces)
      : params_(params), subspaces_(subspaces) {}

  Params params_;
  HadamardSubspaces subspaces_;
};

}  // namespace ldp

#endif  // LDP_COMMON_MECHANISMS_FREQUENCY_HADAMARD_RESPONSE_H_
