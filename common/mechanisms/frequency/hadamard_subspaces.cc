// Items' Hadamard row spaces as lines of GF(2^t)^r; see hadamard_subspaces.h.
#include "common/mechanisms/frequency/hadamard_subspaces.h"

#include <bit>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace ldp {
namespace {

// An irreducible polynomial of degree t over GF(2) for each t, written
// without its x^t term
// (tests/common/mechanisms/frequency/hadamard_subspaces_test.cc checks each by
// trial division). t = 1 is x + 1: GF(2), where x = 1.
constexpr uint32_t kReduction[HadamardSubspaces::kMaxRowsPerItem + 1] = {
    0,     // unused
    0x1,   // x + 1
    0x3,   // x^2 + x + 1
    0x3,   // x^3 + x + 1
    0x3,   // x^4 + x + 1
    0x5,   // x^5 + x^2 + 1
    0x3,   // x^6 + x + 1
    0x3,   // x^7 + x + 1
    0x1D,  // x^8 + x^4 + x^3 + x^2 + 1
    0x11,  // x^9 + x^4 + 1
    0x9,   // x^10 + x^3 + 1
    0x5,   // x^11 + x^2 + 1
    0x53,  // x^12 + x^6 + x^4 + x + 1
};

// Points of PG(j − 1, 2^t) below digit j: Σ_{i<j} 2^(t·i).
uint64_t PointsBelowDigit(uint32_t t, uint32_t j) {
  uint64_t points = 0;
  for (uint32_t i = 0; i < j; ++i) points += uint64_t{1} << (t * i);
  return points;
}

// SplitMix64's finalizer (Steele, Lea, Flood 2014): a fixed public
// scrambling of the item index into its offset.
uint64_t SplitMix64(uint64_t x) {
  uint64_t z = x + 0x9e3779b97f4a7c15;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9;
  z = (z ^ (z >> 27)) * 0x94d049bb133111eb;
  return z ^ (z >> 31);
}

uint64_t DigitOnes(uint32_t t, uint32_t r) {  // bit 0 of every digit
  uint64_t ones = 0;
  for (uint32_t i = 0; i < r; ++i) ones |= uint64_t{1} << (t * i);
  return ones;
}

}  // namespace

absl::StatusOr<HadamardSubspaces> HadamardSubspaces::Create(
    uint32_t rows_per_item, uint32_t num_items) {
  if (rows_per_item < 1 || rows_per_item > kMaxRowsPerItem) {
    return absl::InvalidArgumentError(
        absl::StrCat("Hadamard response: rows_per_item must be in [1, ",
                     kMaxRowsPerItem, "], got ", rows_per_item));
  }
  const uint32_t t = rows_per_item;
  for (uint32_t r = 1; t * r <= kMaxOutputBits; ++r) {
    if (PointsBelowDigit(t, r) >= num_items) {
      return HadamardSubspaces(t, r, kReduction[t]);
    }
  }
  return absl::InvalidArgumentError(
      absl::StrCat("Hadamard response: ", num_items, " items with ", t,
                   " rows per item need more than 2^", kMaxOutputBits,
                   " output columns; use fewer rows per item"));
}

uint64_t HadamardSubspaces::TimesX(uint64_t a) const {
  const uint64_t top = DigitOnes(t_, r_) << (t_ - 1);
  const uint64_t overflow = (a & top) >> (t_ - 1);
  return ((a & ~top) << 1) ^ (overflow * reduction_);
}

// The leading digit j is the last one whose first point v reaches; both
// loops look at every digit and select with masks, so the work is the same
// for every item.
uint64_t HadamardSubspaces::Leader(uint32_t item) const {
  uint64_t leader = 0;
  for (uint32_t j = 0; j < r_; ++j) {
    const uint64_t first = PointsBelowDigit(t_, j);
    const uint64_t take = 0 - uint64_t{item >= first};
    const uint64_t candidate = (uint64_t{1} << (t_ * j)) | (item - first);
    leader = (leader & ~take) | (candidate & take);
  }
  return leader;
}

uint32_t HadamardSubspaces::LeadingDigit(uint32_t item) const {
  uint32_t digit = 0;
  for (uint32_t j = 1; j < r_; ++j) {
    digit += static_cast<uint32_t>(item >= PointsBelowDigit(t_, j));
  }
  return digit;
}

std::array<uint64_t, HadamardSubspaces::kMaxRowsPerItem>
HadamardSubspaces::BasisRows(uint32_t item) const {
  std::array<uint64_t, kMaxRowsPerItem> rows{};
  uint64_t row = Leader(item);
  for (uint32_t k = 0; k < t_; ++k) {
    rows[k] = row;
    row = TimesX(row);
  }
  return rows;
}

uint32_t HadamardSubspaces::Syndrome(uint32_t item, uint64_t y) const {
  const std::array<uint64_t, kMaxRowsPerItem> rows = BasisRows(item);
  uint32_t syndrome = 0;
  for (uint32_t k = 0; k < t_; ++k) {
    syndrome |= static_cast<uint32_t>(std::popcount(rows[k] & y) & 1) << k;
  }
  return syndrome;
}

// Row k of W_v is x^k at the leading digit (α_v is 1 there, and x^k needs
// no reduction for k < t), so xor-ing δ into that digit flips exactly the
// syndrome bits set in δ.
uint64_t HadamardSubspaces::MoveToCoset(uint32_t item, uint64_t y,
                                        uint32_t target) const {
  const uint64_t delta = Syndrome(item, y) ^ target;
  return y ^ (delta << (t_ * LeadingDigit(item)));
}

uint32_t HadamardSubspaces::Offset(uint32_t item) const {
  if (t_ == 1) return 0;
  return static_cast<uint32_t>(SplitMix64(item)) & ((uint32_t{1} << t_) - 1);
}

int64_t HadamardSubspaces::SupportCount(
    uint32_t item, absl::Span<const int64_t> transformed) const {
  const std::array<uint64_t, kMaxRowsPerItem> rows = BasisRows(item);
  const uint32_t offset = Offset(item);
  int64_t sum = transformed[0];
  uint64_t row = 0;
  bool negative = false;  // popcount(x & s_v) odd
  for (uint32_t i = 1; i < (uint32_t{1} << t_); ++i) {
    const int k = std::countr_zero(i);
    row ^= rows[k];
    negative ^= ((offset >> k) & 1) != 0;
    sum += negative ? -transformed[row] : transformed[row];
  }
  // Σ_x (−1)^(x·(σ_v(y) ⊕ s_v)) is 2^t where σ_v(y) = s_v and 0 elsewhere.
  return sum / (int64_t{1} << t_);
}

}  // namespace ldp
