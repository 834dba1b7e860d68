// Integer-only coins: the only way privacy-critical code draws randomness.
//
// A coin has probability k / 2^32 for an integer k, and is flipped by drawing
// 32 uniform bits and testing `< k`. No randomizer compares a uniform double
// with a threshold or transforms one (Mironov 2012): with integer coins the
// implemented output distribution is exactly computable, so the ε a randomizer
// reports is derived from the integers it really uses, never from the nominal
// ε it was asked for. Constructors round in the direction stated at the call
// site so that the implemented privacy loss never exceeds the requested one.
#ifndef LDP_COMMON_COIN_H_
#define LDP_COMMON_COIN_H_

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
// 64). The number of draws depends only on the random bits, never on p's
// use, so a caller's timing does not reveal which lane held the input.
uint64_t FlipCoins64(CoinProbability p, absl::BitGenRef gen);

// Uniform integer in [0, n) by rejection (no modulo bias). n must be > 0.
uint64_t UniformBelow(uint64_t n, absl::BitGenRef gen);

}  // namespace ldp

#endif  // LDP_COMMON_COIN_H_
