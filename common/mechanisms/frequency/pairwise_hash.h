// The public seeded hash family shared by local hashing (one hash per
// report) and the count-mean sketches (one hash per sketch row).
//
// Why this family: the estimators of Wang et al. (USENIX Security 2017) and
// Apple's sketches (2017) are unbiased only if two distinct items collide
// with probability exactly 1/g over the choice of hash. The multiply-shift
// family x ↦ ⌊((a·x + b) mod 2^64) / 2^32⌋ with uniform 64-bit a, b is
// strongly universal on 32-bit keys (Dietzfelbinger, STACS 1996): any two
// distinct items get independent uniform 32-bit values. A fixed bijection
// (the MurmurHash3 finalizer) keeps that property and breaks the linear
// structure that plain multiply-shift has across three or more items. It is
// a statistical hash, not a cryptographic one: privacy never depends on it,
// only the accuracy of the estimates does.
//
// The definition is part of the wire contract (an agent in any language must
// reproduce it bit for bit):
//   SplitMix64 output i for seed s:  z = s + i·0x9E3779B97F4A7C15;
//     z = (z ^ z>>30)·0xBF58476D1CE4E5B9; z = (z ^ z>>27)·0x94D049BB133111EB;
//     z ^ z>>31
//   keys of hash number j:  a = output 2j+1, b = output 2j+2
//   h(x) = Finalize(⌊(a·x + b mod 2^64) / 2^32⌋), Finalize = fmix32
//   bucket of x in [g] = ⌊h(x)·g / 2^32⌋
#ifndef LDP_COMMON_MECHANISMS_FREQUENCY_PAIRWISE_HASH_H_
#define LDP_COMMON_MECHANISMS_FREQUENCY_PAIRWISE_HASH_H_

#include <cstdint>

namespace ldp {

class PairwiseHash {
 public:
  // Hash number `index` of the family named by `seed`.
  static constexpr PairwiseHash FromSeed(uint64_t seed, uint64_t index = 0) {
    return PairwiseHash(SplitMix64(seed, 2 * index + 1),
                        SplitMix64(seed, 2 * index + 2));
  }

  constexpr uint32_t operator()(uint32_t x) const {
    return Finalize(static_cast<uint32_t>((multiplier_ * x + offset_) >> 32));
  }
  // ⌊h(x)·range / 2^32⌋: the bucket of x in [range] (range ≥ 1).
  constexpr uint32_t Bucket(uint32_t x, uint32_t range) const {
    return static_cast<uint32_t>((uint64_t{(*this)(x)} * range) >> 32);
  }

  constexpr uint64_t multiplier() const { return multiplier_; }
  constexpr uint64_t offset() const { return offset_; }

  // The MurmurHash3 32-bit finalizer, a bijection; exposed so that vectorized
  // loops can step a·x + b incrementally and finalize each lane.
  static constexpr uint32_t Finalize(uint32_t x) {
    x ^= x >> 16;
    x *= 0x85EBCA6Bu;
    x ^= x >> 13;
    x *= 0xC2B2AE35u;
    x ^= x >> 16;
    return x;
  }

  static constexpr uint64_t SplitMix64(uint64_t seed, uint64_t i) {
    uint64_t z = seed + i * 0x9E3779B97F4A7C15u;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
  }

 private:
  constexpr PairwiseHash(uint64_t multiplier, uint64_t offset)
      : multiplier_(multiplier), offset_(offset) {}

  uint64_t multiplier_;
  uint64_t offset_;
};

}  // namespace ldp

#endif  // LDP_COMMON_MECHANISMS_FREQUENCY_PAIRWISE_HASH_H_
