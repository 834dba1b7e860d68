// RAPPOR's Bloom-filter encoding: which of the k bits an item sets in each
// cohort (Erlingsson, Pihur, Korolova, CCS 2014).
//
// Cohort c in [C] has its own h hash functions, so two items that collide
// in one cohort's filter are told apart by the others; the server's
// regression (rappor_decoder.h) needs that. Hash j of cohort c is number
// c·h + j of the public pairwise family named by the seed (pairwise_hash.h),
// and item v sets bit PairwiseHash::FromSeed(seed, c·h + j).Bucket(v, k) for
// each j < h. Hashes of one item may land on the same bit; the filter then
// has fewer than h ones, which only lowers the privacy loss.
#ifndef LDP_COMMON_MECHANISMS_RAPPOR_RAPPOR_BLOOM_H_
#define LDP_COMMON_MECHANISMS_RAPPOR_RAPPOR_BLOOM_H_

#include <array>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "common/mechanisms/frequency/frequency_report.h"

namespace ldp {

class RapporBloom {
 public:
  static constexpr uint32_t kMaxHashes = 16;
  static constexpr uint32_t kMaxBits = 4096;
  static constexpr uint32_t kMaxCohorts = 1024;

  // The item's set bits in one cohort: distinct, ascending.
  struct Bits {
    std::array<uint16_t, kMaxHashes> bits{};
    uint32_t size = 0;
    absl::Span<const uint16_t> span() const { return {bits.data(), size}; }
    // Iterable itself, so `for (b : bloom.SetBits(c, v))` keeps the
    // temporary alive (a span of it would dangle).
    const uint16_t* begin() const { return bits.data(); }
    const uint16_t* end() const { return bits.data() + size; }
  };

  // Parameters within the k-maxima above (the oracle checks them).
  RapporBloom(uint32_t num_bits, uint32_t num_hashes, uint32_t num_cohorts,
              uint64_t hash_seed)
      : num_bits_(num_bits),
        num_hashes_(num_hashes),
        num_cohorts_(num_cohorts),
        hash_seed_(hash_seed) {}

  uint32_t num_bits() const { return num_bits_; }
  uint32_t num_hashes() const { return num_hashes_; }
  uint32_t num_cohorts() const { return num_cohorts_; }
  uint64_t hash_seed() const { return hash_seed_; }
  // ceil(k / 64): words of one filter.
  uint32_t num_words() const { return (num_bits_ + 63) / 64; }

  Bits SetBits(uint32_t cohort, uint32_t item) const;
  // The filter as num_words() little-endian words.
  std::vector<uint64_t> Filter(uint32_t cohort, uint32_t item) const;

  // InvalidArgument unless `report` is a SketchReport with row < C,
  // column 0 and exactly k bits (num_bits = k, num_words() words, padding
  // zero): the shape of a memo and of a report.
  absl::Status ValidateReport(const FrequencyReport& report) const;

  friend bool operator==(const RapporBloom&, const RapporBloom&) = default;

 private:
  uint32_t num_bits_;
  uint32_t num_hashes_;
  uint32_t num_cohorts_;
  uint64_t hash_seed_;
};

}  // namespace ldp

#endif  // LDP_COMMON_MECHANISMS_RAPPOR_RAPPOR_BLOOM_H_
