// Integer-only coins: the only way privacy-critical code draws randomness.
//
// A coin has probability k / 2^32 for an integer k, and is flipped by drawing
// 32 uniform bits and testing `< k`. No randomizer compares a uniform double
// with a threshold or transforms one (Mironov 2012): with integer coins the
// implemented output distribution is exactly computable, so the ε a randomizer
// reports is derived from the integers it really uses, never from the nominal
// ε it was asked for. Constructors round in the direction stated at the call
// site so that the implemented privacy loss never exceeds the requested one.
#ifndef LDP_COMMON_BASE_COIN_H_
#define LDP_COMMON_BASE_COIN_H_

#include <cstdint>

#include "absl/random/bit_gen_ref.h"

namespace ldp {

class CoinProbability {
 public:
  static constexpr int kBits = 32;
  static constexpr uint64_t kDenominator = uint64_t{1} << kBits;

  // Rounds p (clamped to [0, 1]) down / up to a multiple of 2^-32.
  static CoinProbability RoundDown(double p);
  static CoinProbability RoundUp(double p);
  // Exactly k / 2^32; k is clamped to [0, 2^32].
  static constexpr CoinProbability FromNumerator(uint64_t k) {
    return CoinProbability(k > kDenominator ? kDenominator : k);
  }
  static constexpr CoinProbability Half() {
    return CoinProbability(kDenominator / 2);
  }

  constexpr uint64_t numerator() const { return numerator_; }
  // Exact: k * 2^-32 is representable in a double.
  constexpr double value() const {
    return static_cast<double>(numerator_) / static_cast<double>(kDenominator);
  }
  constexpr CoinProbability Complement() const {
    return CoinProbability(kDenominator - numerator_);
  }

  friend constexpr bool operator==(CoinProbability a, CoinProbability b) {
    return a.numerator_ == b.numerator_;
  }

 private:
  explicit constexpr CoinProbability(uint64_t numerator)
      : numerator_(numerator) {}
  uint64_t numerator_;
};

// One coin: true with probability exactly p.numerator() / 2^32.
bool FlipCoin(CoinProbability p, absl::BitGenRef gen);

// 64 independent coins of probability p, one per bit, bit-sliced: the 32-bit
// uniforms of all 64 lanes are compared with k from the most significant bit
// down, stopping as soon as every lane is decided (about 8 draws instead of
// 64) or k has no set bits left (then no undecided lane can fall below k: a
// fair coin costs one draw). The number of draws depends only on k and the
// random bits, never on which lane holds an agent's input.
uint64_t FlipCoins64(CoinProbability p, absl::BitGenRef gen);

// Uniform integer in [0, n) by rejection (no modulo bias). n must be > 0.
uint64_t UniformBelow(uint64_t n, absl::BitGenRef gen);

// Many small uniform integers from one generator: each 64-bit draw feeds two
// 32-bit multiply-shift samples (Lemire 2019), and the exact rejection step
// needs a division only on its rare slow path (probability n / 2^32), so a
// sampler that needs hundreds of draws per report (subset selection) pays
// neither a division nor a full draw per integer. Not thread-safe; one per
// report.
class SmallUniformSampler {
 public:
  explicit SmallUniformSampler(absl::BitGenRef gen) : gen_(gen) {}

  // Uniform in [0, n); n must be in [1, 2^32).
  uint32_t Below(uint32_t n) {
    uint64_t m = uint64_t{Next32()} * n;
    if (static_cast<uint32_t>(m) < n) {
      const uint32_t threshold = (0u - n) % n;
      while (static_cast<uint32_t>(m) < threshold) m = uint64_t{Next32()} * n;
    }
    return static_cast<uint32_t>(m >> 32);
  }

 private:
  uint32_t Next32() {
    if (has_half_) {
      has_half_ = false;
      return static_cast<uint32_t>(word_ >> 32);
    }
    word_ = gen_();
    has_half_ = true;
    return static_cast<uint32_t>(word_);
  }

  absl::BitGenRef gen_;
  uint64_t word_ = 0;
  bool has_half_ = false;
};

}  // namespace ldp

#endif  // LDP_COMMON_BASE_COIN_H_
