// Carry-save vertical counters; see bit_sliced_counter.h for why.
#include "common/mechanisms/frequency/bit_sliced_counter.h"

#include <algorithm>
#include <bit>
#include <cassert>

#include "absl/strings/str_cat.h"

namespace ldp {
namespace {

// Full adder on 64 lanes: a + b + c = 2·high + low, lane by lane.
inline void CarrySaveAdd(uint64_t a, uint64_t b, uint64_t c, uint64_t& high,
                         uint64_t& low) {
  const uint64_t u = a ^ b;
  high = (a & b) | (u & c);
  low = u ^ c;
}

// The low 4 bits of 64 lanes' counts.
struct LowCounters {
  uint64_t ones, twos, fours, eights;
};

// Harley–Seal: folds the 16 words d[0], d[stride], ..., d[15·stride] into
// `low` and returns the lanes that overflowed it (weight 16).
inline uint64_t FoldSixteen(const uint64_t* d, size_t stride,
                            LowCounters& low) {
  uint64_t ones = low.ones, twos = low.twos, fours = low.fours,
           eights = low.eights;
  uint64_t twos_a, twos_b, fours_a, fours_b, eights_a, eights_b, sixteens;
  CarrySaveAdd(ones, d[0], d[stride], twos_a, ones);
  CarrySaveAdd(ones, d[2 * stride], d[3 * stride], twos_b, ones);
  CarrySaveAdd(twos, twos_a, twos_b, fours_a, twos);
  CarrySaveAdd(ones, d[4 * stride], d[5 * stride], twos_a, ones);
  CarrySaveAdd(ones, d[6 * stride], d[7 * stride], twos_b, ones);
  CarrySaveAdd(twos, twos_a, twos_b, fours_b, twos);
  CarrySaveAdd(fours, fours_a, fours_b, eights_a, fours);
  CarrySaveAdd(ones, d[8 * stride], d[9 * stride], twos_a, ones);
  CarrySaveAdd(ones, d[10 * stride], d[11 * stride], twos_b, ones);
  CarrySaveAdd(twos, twos_a, twos_b, fours_a, twos);
  CarrySaveAdd(ones, d[12 * stride], d[13 * stride], twos_a, ones);
  CarrySaveAdd(ones, d[14 * stride], d[15 * stride], twos_b, ones);
  CarrySaveAdd(twos, twos_a, twos_b, fours_b, twos);
  CarrySaveAdd(fours, fours_a, fours_b, eights_b, fours);
  CarrySaveAdd(eights, eights_a, eights_b, sixteens, eights);
  low = {ones, twos, fours, eights};
  return sixteens;
}

// Folds a batch (batch[i * n + w]: report i, word w) into the low planes
// (low[j * n + w]), writes the sixteens to carry[w], and returns their OR.
// Kept out of line with restrict pointers: once inlined GCC loses the
// no-alias facts and stops vectorizing the loop across w.
[[gnu::noinline]] uint64_t FoldBatch(const uint64_t* __restrict batch,
                                     uint64_t* __restrict low,
                                     uint64_t* __restrict carry, size_t n) {
  uint64_t any = 0;
  for (size_t w = 0; w < n; ++w) {
    LowCounters counters{low[w], low[n + w], low[2 * n + w], low[3 * n + w]};
    const uint64_t sixteens = FoldSixteen(batch + w, n, counters);
    low[w] = counters.ones;
    low[n + w] = counters.twos;
    low[2 * n + w] = counters.fours;
    low[3 * n + w] = counters.eights;
    carry[w] = sixteens;
    any |= sixteens;
  }
  return any;
}

}  // namespace

BitSlicedCounter::BitSlicedCounter(size_t num_bits)
    : num_bits_(num_bits),
      num_words_((num_bits + 63) / 64),
      batch_(kBatch * num_words_, 0),
      low_(kLowPlanes * num_words_, 0),
      planes_(kPlanes * num_words_, 0),
      carry_(num_words_, 0),
      flushed_(num_bits, 0) {}

void BitSlicedCounter::Add(absl::Span<const uint64_t> words) {
  assert(words.size() == num_words_);
  std::copy(words.begin(), words.end(), batch_.begin() + batched_ * num_words_);
  if (++batched_ == kBatch) AddBatch();
}

void BitSlicedCounter::AddBatch() {
  // Locals, not members: the uint64_t stores could alias the size_t
  // num_words_ and block vectorization across word positions.
  const size_t n = num_words_;
  uint64_t* __restrict carry = carry_.data();
  uint64_t any = FoldBatch(batch_.data(), low_.data(), carry, n);
  // Ripple the sixteens up the high planes until no lane carries. With at
  // most 2^kPlanes − 1 batches between flushes nothing carries out of the
  // top plane.
  uint64_t* __restrict plane = planes_.data();
  for (int j = 0; j < kPlanes && any != 0; ++j, plane += n) {
    any = 0;
    for (size_t w = 0; w < n; ++w) {
      const uint64_t x = plane[w];
      const uint64_t c = carry[w];
      plane[w] = x ^ c;
      carry[w] = x & c;
      any |= x & c;
    }
  }
  batched_ = 0;
  if (++pending_batches_ == (1 << kPlanes) - 1) {
    for (int j = 0; j < kPlanes; ++j) {
      AddWordsTo(&planes_[j * n], int64_t{kBatch} << j, flushed_);
    }
    std::fill(planes_.begin(), planes_.end(), 0);
    pending_batches_ = 0;
  }
}

absl::Status BitSlicedCounter::Merge(const BitSlicedCounter& other) {
  if (other.num_bits_ != num_bits_) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot merge a counter of ", other.num_bits_,
                     " positions into one of ", num_bits_));
  }
  AddCounts(other.Counts());
  return absl::OkStatus();
}

void BitSlicedCounter::AddCounts(absl::Span<const int64_t> counts) {
  assert(counts.size() == num_bits_);
  for (size_t i = 0; i < num_bits_; ++i) flushed_[i] += counts[i];
}

std::vector<int64_t> BitSlicedCounter::Counts() const {
  const size_t n = num_words_;
  std::vector<int64_t> counts = flushed_;
  for (int j = 0; j < kPlanes; ++j) {
    AddWordsTo(&planes_[j * n], int64_t{kBatch} << j, counts);
  }
  for (int j = 0; j < kLowPlanes; ++j) {
    AddWordsTo(&low_[j * n], int64_t{1} << j, counts);
  }
  for (int i = 0; i < batched_; ++i) AddWordsTo(&batch_[i * n], 1, counts);
  return counts;
}

void BitSlicedCounter::AddWordsTo(const uint64_t* words, int64_t weight,
                                  std::vector<int64_t>& counts) const {
  for (size_t w = 0; w < num_words_; ++w) {
    for (uint64_t bits = words[w]; bits != 0; bits &= bits - 1) {
      const size_t position = w * 64 + std::countr_zero(bits);
      if (position < num_bits_) counts[position] += weight;
    }
  }
}

}  // namespace ldp
