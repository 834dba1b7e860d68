// Per-position counts of many 0/1 vectors, added 64 positions at a time.
//
// Why: the unary-encoding servers (OUE, SUE, longitudinal, count-mean sketch)
// must turn each N-bit report into N column counts. Looping over the set bits
// costs one branchy increment per bit (~300 per report at N = 1024), far over
// the 0.05 µs/report ingest budget. Instead every word position keeps
// "vertical" counters: bit-plane words whose lane i holds one bit of lane i's
// count, updated with whole-word XOR/AND logic and no per-bit work.
//
// Two stages keep that logic short:
//  1. Reports are buffered kBatch = 16 at a time and folded by a Harley–Seal
//     carry-save adder tree (15 full adders per word; see Muła, Kurz, Lemire,
//     "Faster population counts using AVX2 instructions", Comput. J. 2018)
//     into persistent ones/twos/fours/eights planes: the low 4 bits of every
//     lane's count. The tree emits one "sixteens" word per position.
//  2. The sixteens ripple into kPlanes high planes (weight 16·2^j) with an
//     AND/XOR carry chain that stops as soon as no lane carries. The high
//     planes are flushed into int64 totals every 2^kPlanes − 1 batches,
//     before any lane can overflow.
// Counts() adds the totals, both plane sets and the buffered reports.
//
// Thread-compatible.
#ifndef LDP_COMMON_MECHANISMS_FREQUENCY_BIT_SLICED_COUNTER_H_
#define LDP_COMMON_MECHANISMS_FREQUENCY_BIT_SLICED_COUNTER_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"

namespace ldp {

class BitSlicedCounter {
 public:
  static constexpr int kBatch = 16;     // reports per adder tree
  static constexpr int kLowPlanes = 4;  // ones, twos, fours, eights
  static constexpr int kPlanes = 8;     // high planes, weight 16 · 2^j
  // The high planes are flushed after this many reports.
  static constexpr int kReportsPerFlush = kBatch * ((1 << kPlanes) - 1);

  // Counts positions [0, num_bits).
  explicit BitSlicedCounter(size_t num_bits);

  size_t num_bits() const { return num_bits_; }
  // ceil(num_bits / 64): the length Add expects.
  size_t num_words() const { return num_words_; }

  // Adds one 0/1 vector packed little-endian (bit i is bit i % 64 of
  // words[i / 64]). Precondition: words.size() == num_words(). Bits past
  // num_bits() are never reported by Counts().
  void Add(absl::Span<const uint64_t> words);

  // Adds every count of `other`; InvalidArgument if num_bits differ.
  absl::Status Merge(const BitSlicedCounter& other);
  // Adds counts[i] to position i: a stored Counts() merged back in.
  // Precondition: counts.size() == num_bits(), each count checked by the
  // caller (they are added as they are).
  void AddCounts(absl::Span<const int64_t> counts);

  // Total count per position.
  std::vector<int64_t> Counts() const;

 private:
  void AddBatch();
  // Adds `weight` to counts[i] for every set bit i < num_bits_ of the
  // num_words_ words at `words`.
  void AddWordsTo(const uint64_t* words, int64_t weight,
                  std::vector<int64_t>& counts) const;

  size_t num_bits_;
  size_t num_words_;
  int batched_ = 0;               // reports buffered in batch_
  int pending_batches_ = 0;       // batches in the high planes since a flush
  std::vector<uint64_t> batch_;   // batch_[i * num_words_ + w], i < kBatch
  std::vector<uint64_t> low_;     // low_[j * num_words_ + w], j < kLowPlanes
  std::vector<uint64_t> planes_;  // planes_[j * num_words_ + w], j < kPlanes
  std::vector<uint64_t> carry_;   // scratch, one word per position
  std::vector<int64_t> flushed_;  // per position
};

}  // namespace ldp

#endif  // LDP_COMMON_MECHANISMS_FREQUENCY_BIT_SLICED_COUNTER_H_
