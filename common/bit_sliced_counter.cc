// Carry-save vertical counters; see bit_sliced_counter.h for why.
#include "common/bit_sliced_counter.h"

#include <algorithm>
#include <bit>
#include <cassert>

#include "absl/strings/str_cat.h"

namespace ldp {

BitSlicedCounter::BitSlicedCounter(size_t num_bits)
    : num_bits_(num_bits),
      num_words_((num_bits + 63) / 64),
      planes_(kPlanes * num_words_, 0),
      carry_(num_words_, 0),
      flushed_(num_bits, 0) {}

void BitSlicedCounter::Add(absl::Span<const uint64_t> words) {
  assert(words.size() == num_words_);
  // Plane-major loops vectorize across word positions; the ripple stops as
  // soon as no lane carries. With at most kMaxPending increments per lane
  // nothing ever carries out of the top plane.
  uint64_t* carry = carry_.data();
  uint64_t any = 0;
  for (size_t w = 0; w < num_words_; ++w) {
    const uint64_t x = planes_[w];
    planes_[w] = x ^ words[w];
    carry[w] = x & words[w];
    any |= carry[w];
  }
  for (int j = 1; j < kPlanes && any != 0; ++j) {
    uint64_t* plane = planes_.data() + j * num_words_;
    any = 0;
    for (size_t w = 0; w < num_words_; ++w) {
      const uint64_t x = plane[w];
      plane[w] = x ^ carry[w];
      carry[w] &= x;
      any |= carry[w];
    }
  }
  if (++pending_ == kMaxPending) Flush();
}

absl::Status BitSlicedCounter::Merge(const BitSlicedCounter& other) {
  if (other.num_bits_ != num_bits_) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot merge a counter of ", other.num_bits_,
                     " positions into one of ", num_bits_));
  }
  other.AddPendingTo(flushed_);
  for (size_t i = 0; i < num_bits_; ++i) flushed_[i] += other.flushed_[i];
  return absl::OkStatus();
}

std::vector<int64_t> BitSlicedCounter::Counts() const {
  std::vector<int64_t> counts = flushed_;
  AddPendingTo(counts);
  return counts;
}

void BitSlicedCounter::Flush() {
  AddPendingTo(flushed_);
  std::fill(planes_.begin(), planes_.end(), 0);
  pending_ = 0;
}

void BitSlicedCounter::AddPendingTo(std::vector<int64_t>& counts) const {
  for (int j = 0; j < kPlanes; ++j) {
    const int64_t weight = int64_t{1} << j;
    const uint64_t* plane = planes_.data() + j * num_words_;
    for (size_t w = 0; w < num_words_; ++w) {
      for (uint64_t bits = plane[w]; bits != 0; bits &= bits - 1) {
        const size_t position = w * 64 + std::countr_zero(bits);
        if (position < num_bits_) counts[position] += weight;
      }
    }
  }
}

}  // namespace ldp
