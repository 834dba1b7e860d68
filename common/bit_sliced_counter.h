// Per-position counts of many 0/1 vectors, added 64 positions at a time.
//
// Why: the unary-encoding servers (OUE, SUE, longitudinal, count-mean sketch)
// must turn each N-bit report into N column counts. Looping over the set bits
// costs one branchy increment per bit (~300 per report at N = 1024), which is
// far over the 0.05 µs/report ingest budget. Instead every word position keeps
// kPlanes "vertical" bit planes: plane j holds bit j of the 64 lanes' pending
// counts, so one report is added with a carry-save ripple of XOR/AND over the
// report's words (a few vector operations per word, no per-bit work). Pending
// counts are flushed into int64 totals every 2^kPlanes − 1 reports, before
// any lane can overflow.
//
// Thread-compatible.
#ifndef LDP_COMMON_BIT_SLICED_COUNTER_H_
#define LDP_COMMON_BIT_SLICED_COUNTER_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"

namespace ldp {

class BitSlicedCounter {
 public:
  static constexpr int kPlanes = 8;
  // A lane holds at most this many pending increments.
  static constexpr int kMaxPending = (1 << kPlanes) - 1;

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

  // Total count per position: flushed totals plus the pending planes.
  std::vector<int64_t> Counts() const;

 private:
  void Flush();
  // Adds the pending planes' counts to `counts` (size num_bits_).
  void AddPendingTo(std::vector<int64_t>& counts) const;

  size_t num_bits_;
  size_t num_words_;
  int pending_ = 0;                // vectors added since the last flush
  std::vector<uint64_t> planes_;   // planes_[j * num_words_ + w]
  std::vector<uint64_t> carry_;    // scratch for Add, one word per position
  std::vector<int64_t> flushed_;   // per position
};

}  // namespace ldp

#endif  // LDP_COMMON_BIT_SLICED_COUNTER_H_
