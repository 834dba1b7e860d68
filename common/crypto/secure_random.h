// The production source of randomizer coins: a ChaCha20 keystream keyed from
// OpenSSL's RAND_bytes (the OS-seeded CTR-DRBG).
//
// Why not std::mt19937 or absl::BitGen: their outputs are predictable from a
// few hundred observations, and a server that predicts an agent's coins can
// subtract its noise (ε = ∞). Why a stream cipher on top of RAND_bytes:
// unbuffered RAND_bytes costs ~0.6 µs a call, while the keystream is a few
// cycles per byte and still cryptographically strong.
//
// It meets the standard uniform-random-bit-generator interface, so it passes
// to randomizers as an `absl::BitGenRef`; tests pass a seeded generator
// through the same parameter instead.
//
// Thread-compatible, not thread-safe: give each thread its own instance.
// Fork-safe: the key and buffer are replaced when the process id changes, so
// a parent and child never share coins. Fails closed: if OpenSSL fails after
// construction, the process aborts rather than emit a report drawn from a
// weak source.
#ifndef LDP_COMMON_CRYPTO_SECURE_RANDOM_H_
#define LDP_COMMON_CRYPTO_SECURE_RANDOM_H_

#include <array>
#include <cstdint>
#include <limits>
#include <memory>

#include "absl/status/statusor.h"

namespace ldp {

class SecureRandom {
 public:
  using result_type = uint64_t;
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() {
    return std::numeric_limits<result_type>::max();
  }

  // Keys a new stream from RAND_bytes; fails if OpenSSL cannot supply
  // entropy or set up ChaCha20.
  static absl::StatusOr<std::unique_ptr<SecureRandom>> Create();

  // The same ChaCha20 stream keyed from SHA-256 of `seed` instead: the same
  // seed gives the same coins, so a simulation (`ldp plan --simulate`, 200
  // seeded runs) is reproducible while every coin still comes from this
  // cipher. Anyone who knows the seed predicts every coin: only for
  // simulated agents, never for an agent holding a person's record.
  static absl::StatusOr<std::unique_ptr<SecureRandom>> CreateForSimulation(
      uint64_t seed);

  SecureRandom(const SecureRandom&) = delete;
  SecureRandom& operator=(const SecureRandom&) = delete;
  ~SecureRandom();

  result_type operator()() {
    if (position_ == kWords || fork_generation_ != CurrentForkGeneration()) {
      Refill();
    }
    return buffer_[position_++];
  }

 private:
  static constexpr int kWords = 512;  // 4 KiB of keystream per refill
  // Rekey after this many refills (1 GiB) to bound any one key's output.
  static constexpr uint64_t kRefillsPerKey = uint64_t{1} << 18;

  SecureRandom() = default;
  // A new instance keyed from RAND_bytes, or from `seed` if `simulated`.
  static absl::StatusOr<std::unique_ptr<SecureRandom>> Keyed(bool simulated,
                                                             uint64_t seed);
  // Incremented in every child by a pthread_atfork handler; a cheap load,
  // unlike getpid(), which is a system call on current glibc.
  static uint64_t CurrentForkGeneration();
  absl::Status Rekey();
  void Refill();

  struct CipherState;
  std::unique_ptr<CipherState> cipher_;
  std::array<uint64_t, kWords> buffer_{};
  int position_ = kWords;
  uint64_t refills_since_key_ = 0;
  uint64_t fork_generation_ = 0;
  // CreateForSimulation: the seed, and how many keys were derived from it.
  bool simulated_ = false;
  uint64_t seed_ = 0;
  uint64_t keys_derived_ = 0;
};

}  // namespace ldp

#endif  // LDP_COMMON_CRYPTO_SECURE_RANDOM_H_
