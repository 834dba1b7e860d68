// dBitFlipPM: Microsoft's telemetry frequency oracle with permanent output
// (Ding, Kulkarni, Yekhanin, "Collecting Telemetry Data Privately", NeurIPS
// 2017).
//
// Why: a report is d ≤ 32 bits and a seed whatever N is, and the agent
// memoizes the whole report per value, so a value reported every day costs
// ε once (ε1 = ε∞). Its variance is SUE's at d = N and grows about as N/d
// below that: the price of a report that stays 32 bits for any domain.
//
// Client, on a value v of [N] (bucketed upstream by the domain encoding):
//   - draw a public 64-bit seed (a full draw, independent of v); the d
//     distinct sampled buckets S = (s_0 … s_{d−1}) are a function of
//     (seed, N, d) that both sides compute: Floyd's algorithm over a
//     SplitMix64 stream (z_k = SplitMix64(seed, k), k = 1, 2, …; see
//     pairwise_hash.h): for j = N − d … N − 1, t = ⌊z·(j + 1)/2^64⌋; append
//     t if t ∉ S, else j. Appending order is bit order.
//   - bit i = 1 with probability p if s_i = v, else q = 1 − p.
// Pr[v ∈ S] = d/N up to the multiply-shift's ≤ N/2^64 bias. That bias only
// touches the estimator's accuracy: the seed is public and independent of v,
// so every likelihood ratio is taken given the seed, and privacy holds for
// any S.
//
// Privacy: given S, two items differ in at most two bits (each ratio p/q),
// so for d ≥ 2, p = e^{ε/2}/(e^{ε/2} + 1), the paper's choice. For d = 1 only
// one bit exists and p = e^ε/(e^ε + 1), which improves on the paper's ε/2.
// p is rounded DOWN to the 2^-32 coin grid, q is its exact complement, and
// epsilon() = (d ≥ 2 ? 2 : 1)·ln(p/q) ≤ the requested ε.
//
// Estimator: over n reports let m_v count those whose S contains v and c_v
// those of them whose bit for v is 1. Then
//   f̂_v = (N/(n·d))·(c_v − q·m_v)/(p − q)
// is unbiased, and for a fixed population (randomness over S and the bits)
//   Var[f̂_v] = (1/n)·[(N/d)·p·q/(p − q)² + f_v·(N/d − 1)].
// Derivation: per report Z = 1[v ∈ S]·(b_v − q) has mean (d/N)(p − q)·1[x = v]
// and E[Z²] = (d/N)·pq, or (d/N)·(pq + (p − q)²) when x = v (p³ + q³ =
// pq + (p − q)²); summing the variances and scaling by (N/(nd(p − q)))² gives
// the closed form. At d = N it is SUE's (basic RAPPOR's) variance.
//
// Memoization: the memo is the report itself (seed and bits), drawn once per
// value; every later report of that value repeats it and draws nothing. The
// paper instead fixes S per agent and memoizes d + 1 responses; here each
// value's memo carries its own seed, which costs nothing in ε (the seed is
// independent of the value) and fits the per-value memos the agent keeps.
#ifndef LDP_COMMON_MECHANISMS_LONGITUDINAL_DBIT_FLIP_H_
#define LDP_COMMON_MECHANISMS_LONGITUDINAL_DBIT_FLIP_H_

#include <array>
#include <cstdint>
#include <memory>

#include "absl/random/bit_gen_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "common/base/coin.h"
#include "common/mechanisms/frequency/frequency_oracle.h"
#include "common/mechanisms/longitudinal/longitudinal_oracle.h"

namespace ldp {

struct DBitFlipOptions {
  double epsilon = 0;            // in (0, kMaxEpsilon]
  uint32_t domain_size = 0;      // N in [2, kMaxDomainSize]
  uint32_t sampled_buckets = 0;  // d in [1, min(N, 32)]; 0: min(N, 32)
};

class DBitFlip final : public FrequencyOracle, public LongitudinalOracle {
 public:
  // Beyond ε = 20 the flip probability nears 2^-32 and the coins cannot
  // represent it faithfully.
  static constexpr double kMaxEpsilon = 20;
  // Bounds the server's two int64 counters per bucket (16 MiB).
  static constexpr uint32_t kMaxDomainSize = uint32_t{1} << 20;
  // The bits travel in HashedReport's 32-bit bucket.
  static constexpr uint32_t kMaxSampledBuckets = 32;

  // The sampled buckets s_0 … s_{size−1} in bit order; items past `size`
  // are zero.
  struct Buckets {
    std::array<uint32_t, kMaxSampledBuckets> items{};
    uint32_t size = 0;
    absl::Span<const uint32_t> span() const { return {items.data(), size}; }
    friend bool operator==(const Buckets&, const Buckets&) = default;
  };

  static absl::StatusOr<std::unique_ptr<DBitFlip>> Create(
      const DBitFlipOptions& options);

  // S for `seed`: the public function client and server share. Total: d is
  // clamped to min(domain_size, 32).
  static Buckets SampledBuckets(uint64_t seed, uint32_t domain_size,
                                uint32_t d);

  FrequencyOracleKind kind() const override {
    return FrequencyOracleKind::kDBitFlip;
  }
  uint32_t domain_size() const override { return domain_size_; }
  double epsilon() const override { return epsilon_; }
  uint32_t sampled_buckets() const { return sampled_buckets_; }
  // The implemented p (q = 1 − p exactly).
  double keep_probability() const { return keep_.value(); }

  // HashedReport{seed, bits}: bit i of `bucket` is the bit of s_i.
  FrequencyReport Randomize(uint32_t item, absl::BitGenRef gen) const override;
  // Given the report's (public) seed.
  double Probability(uint32_t item,
                     const FrequencyReport& report) const override;
  absl::Status Validate(const FrequencyReport& report) const override;
  std::unique_ptr<FrequencyAccumulator> NewAccumulator() const override;
  double Variance(double frequency, int64_t num_reports) const override;

  // Permanent output: the memo is the report, so ε∞ = ε.
  double epsilon_infinity() const override { return epsilon_; }
  FrequencyReport Memoize(uint32_t item, absl::BitGenRef gen) const override;
  absl::Status ValidateMemo(const FrequencyReport& memo) const override;
  // The memo itself; a malformed one becomes a well-formed report (a
  // HashedReport keeps its seed and loses bits past d; any other shape
  // becomes HashedReport{0, 0}). Draws nothing.
  FrequencyReport RandomizeFromMemo(const FrequencyReport& memo,
                                    absl::BitGenRef gen) const override;
  double MemoProbability(uint32_t item,
                         const FrequencyReport& memo) const override;
  // 1 if both are well-formed and equal, else 0.
  double ProbabilityFromMemo(const FrequencyReport& memo,
                             const FrequencyReport& report) const override;

 private:
  DBitFlip(uint32_t domain_size, uint32_t sampled_buckets, CoinProbability keep,
           double epsilon)
      : domain_size_(domain_size),
        sampled_buckets_(sampled_buckets),
        keep_(keep),
        epsilon_(epsilon) {}

  uint32_t domain_size_;
  uint32_t sampled_buckets_;
  CoinProbability keep_;  // p
  double epsilon_;
};

}  // namespace ldp

#endif  // LDP_COMMON_MECHANISMS_LONGITUDINAL_DBIT_FLIP_H_
