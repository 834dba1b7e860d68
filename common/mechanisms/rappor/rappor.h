// RAPPOR as deployed in Chrome (Erlingsson, Pihur, Korolova, "RAPPOR:
// Randomized Aggregatable Privacy-Preserving Ordinal Response", CCS 2014):
// a Bloom filter of h hashes in one of C cohorts, a memoized permanent
// randomized response (PRR) and a fresh instantaneous one (IRR) per report,
// decoded by regression over a candidate dictionary (rappor_decoder.h).
//
// Client, on a value v of [N]:
//   - Memoize: draw the cohort c uniformly from [C] (public, independent of
//     v), encode v as c's Bloom filter (rappor_bloom.h) and pass every bit
//     through the PRR; the memo is SketchReport{row = c, bits}.
//   - RandomizeFromMemo: every memo bit through the IRR; same cohort.
// The layers are unary_layers.h's, solved at (ε∞/h, ε1/h): two items'
// filters differ in at most h bits each way, so the worst ratio is the
// unary ratio to the power h and
//   epsilon() = h·ln[P(1 − Q)/(Q(1 − P))] ≤ ε1,  ε∞ = h·(PRR's) ≤ ε∞,
// reached by any two items whose filters in one cohort have h bits each and
// share none. The default layers are the optimized PRR with a symmetric IRR
// (the L-OSUE pair, lowest variance); the deployed form's symmetric PRR
// (its f) is an option.
//
// Server: per cohort and bit, count the reports and their ones
// (RapporAccumulator). Estimate() decodes every item of [N] by weighted least
// squares, which needs the N columns of the design identifiable: N ≤ C·k.
// A dictionary decode with a significance cut is rappor_decoder.h's.
#ifndef LDP_COMMON_MECHANISMS_RAPPOR_RAPPOR_H_
#define LDP_COMMON_MECHANISMS_RAPPOR_RAPPOR_H_

#include <cstdint>
#include <memory>

#include "absl/base/call_once.h"
#include "absl/random/bit_gen_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/mechanisms/frequency/frequency_oracle.h"
#include "common/mechanisms/frequency/unary_encoding.h"
#include "common/mechanisms/frequency/unary_layers.h"
#include "common/mechanisms/longitudinal/longitudinal_oracle.h"
#include "common/mechanisms/rappor/rappor_bloom.h"

namespace ldp {

struct RapporOptions {
  double epsilon_permanent = 0;  // ε∞ in (0, kMaxEpsilon]
  double epsilon_report = 0;     // ε1 in (0, ε∞)
  // N in [2, kMaxDomainSize], ≤ C·k, or kOpenDomainSize.
  uint32_t domain_size = 0;
  uint32_t num_bits = 0;     // k in [1, 4096]; 0: 128
  uint32_t num_hashes = 0;   // h in [1, 16]; 0: 2
  uint32_t num_cohorts = 0;  // C in [1, 1024]; 0: 64
  uint64_t hash_seed = 0;    // the public hash family
  UnaryEncodingVariant permanent = UnaryEncodingVariant::kOptimized;
  UnaryEncodingVariant instantaneous = UnaryEncodingVariant::kSymmetric;
};

class Rappor final : public FrequencyOracle, public LongitudinalOracle {
 public:
  // Per hash: the layers run at ε/h, within unary encoding's range.
  static constexpr double kMaxEpsilon = 20;
  // The server's decode is a dense regression over every item: N² memory
  // and N³ time.
  static constexpr uint32_t kMaxDomainSize = 1024;
  // An open domain: items are 31-bit digests of strings (DigestEncoding),
  // decoded only against a candidate list (rappor_sparse_decoder.h). The
  // accumulator's whole-domain estimate is then empty.
  static constexpr uint32_t kOpenDomainSize = uint32_t{1} << 31;
  static constexpr uint32_t kDefaultBits = 128;
  static constexpr uint32_t kDefaultHashes = 2;
  static constexpr uint32_t kDefaultCohorts = 64;

  static absl::StatusOr<std::unique_ptr<Rappor>> Create(
      const RapporOptions& options);

  FrequencyOracleKind kind() const override {
    return FrequencyOracleKind::kRappor;
  }
  uint32_t domain_size() const override { return domain_size_; }
  bool open_domain() const { return domain_size_ == kOpenDomainSize; }
  double epsilon() const override {
    return bloom_.num_hashes() * layers_.epsilon();
  }
  double epsilon_infinity() const override {
    return bloom_.num_hashes() * layers_.epsilon_infinity();
  }
  const RapporBloom& bloom() const { return bloom_; }
  const UnaryLayers& layers() const { return layers_; }

  // A fresh memo, then a report from it.
  FrequencyReport Randomize(uint32_t item, absl::BitGenRef gen) const override;
  // Given the report's (public) cohort.
  double Probability(uint32_t item,
                     const FrequencyReport& report) const override;
  absl::Status Validate(const FrequencyReport& report) const override;
  std::unique_ptr<FrequencyAccumulator> NewAccumulator() const override;
  // For equal cohorts and the other items' bits at the filter's mean rate
  // h/k: [C·ḡ·(V0 + V1·h/k) + V1·f]/n, with V0 = Q(1 − Q)/(P − Q)²,
  // V1 = (1 − P − Q)/(P − Q) the per-bit terms and ḡ the mean diagonal of
  // (Σ_c X_cᵀX_c)⁻¹ (computed once, on first use; 1/(C·h) for an open
  // domain, as if the candidates' filters were orthogonal). The estimate's own
  // variances (rappor_decoder.h) are exact for the population at hand.
  double Variance(double frequency, int64_t num_reports) const override;

  FrequencyReport Memoize(uint32_t item, absl::BitGenRef gen) const override;
  absl::Status ValidateMemo(const FrequencyReport& memo) const override;
  // A memo that is not a SketchReport counts as cohort 0 with no bits set;
  // a cohort past C as the last; bits are truncated or zero-extended to k.
  FrequencyReport RandomizeFromMemo(const FrequencyReport& memo,
                                    absl::BitGenRef gen) const override;
  double MemoProbability(uint32_t item,
                         const FrequencyReport& memo) const override;
  double ProbabilityFromMemo(const FrequencyReport& memo,
                             const FrequencyReport& report) const override;

 private:
  Rappor(uint32_t domain_size, RapporBloom bloom, UnaryLayers layers)
      : domain_size_(domain_size), bloom_(bloom), layers_(layers) {}

  uint32_t Clamp(uint32_t item) const {
    return item < domain_size_ ? item : domain_size_ - 1;
  }
  // Π over the k bits of Pr[bit] with Pr[1] = p on the item's filter in
  // `cohort`, q elsewhere.
  double FilterProbability(uint32_t item, const SketchReport& report, double p,
                           double q) const;

  uint32_t domain_size_;
  RapporBloom bloom_;
  UnaryLayers layers_;
  mutable absl::once_flag mean_inverse_once_;
  mutable double mean_inverse_diagonal_ = 0;  // ḡ
};

}  // namespace ldp

#endif  // LDP_COMMON_MECHANISMS_RAPPOR_RAPPOR_H_
