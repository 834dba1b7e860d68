// The Hadamard rows each item owns in the general Hadamard response
// (hadamard_response.h): for t rows per item, item v owns a t-dimensional
// space W_v of rows of H_K, K = 2^(t·r), and the columns where all of them
// are +1,
//   C_v = {y ∈ [K] : popcount(a & y) even for every a ∈ W_v},
// a subspace of K / 2^t columns (for t > 1, one of its cosets: below).
//
// Why these spaces: if W_u ∩ W_v = {0} for every pair of items, C_u ∩ C_v
// has exactly K / 4^t columns, so any other item's set is hit with
// probability exactly 2^-t whatever the report's distribution within and
// outside C_v: a pure protocol with q = 2^-t, local hashing's (p, q) with
// g = 2^t buckets, but O(1) on the client and one fast transform on the
// server. Distinct GF(2^t)-lines of GF(2^t)^r meet only in 0, so each item
// gets one: the line through a point α_v of the projective space
// PG(r − 1, 2^t), normalized so that its leading (highest) nonzero digit is
// 1. A column or row is r digits of t bits, digit i at bits [t·i, t·i + t),
// each digit an element of GF(2^t) in the polynomial basis; W_v = {x·α_v :
// x ∈ GF(2^t)}, spanned by the rows x^k·α_v for k < t. With t = 1 the point
// of item v is v + 1 and C_v is row v + 1's half: the one-block form.
//
// For t > 1, C_v is the coset of that subspace with syndrome s_v (the
// low t bits of SplitMix64(v)), not the subspace itself: every subspace
// holds column 0, and with r = 2 any two items' sets meet only there, so
// one report at column 0 would support every item and the items' estimates
// would be correlated by about p. Cosets keep every pairwise intersection at
// K/4^t columns (the two systems have full rank) but scatter those columns,
// so an intersection lies in a third item's set for about 1/2^t of the
// items, as with a random hash. t = 1 keeps s_v = 0 (the one-block form as
// published).
//
// Everything the client runs (Leader, Syndrome, Offset, MoveToCoset) does
// the same word operations for every item, so its time does not depend on
// the item.
#ifndef LDP_COMMON_MECHANISMS_FREQUENCY_HADAMARD_SUBSPACES_H_
#define LDP_COMMON_MECHANISMS_FREQUENCY_HADAMARD_SUBSPACES_H_

#include <array>
#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace ldp {

class HadamardSubspaces {
 public:
  static constexpr uint32_t kMaxRowsPerItem = 12;
  // Columns are indices below 2^kMaxOutputBits (a uint32 report).
  static constexpr uint32_t kMaxOutputBits = 25;

  // The fewest digits r that give `num_items` points; InvalidArgument if
  // rows_per_item is outside [1, kMaxRowsPerItem] or 2^(t·r) would exceed
  // 2^kMaxOutputBits.
  static absl::StatusOr<HadamardSubspaces> Create(uint32_t rows_per_item,
                                                  uint32_t num_items);

  uint32_t rows_per_item() const { return t_; }
  uint32_t num_digits() const { return r_; }
  uint32_t output_bits() const { return t_ * r_; }
  uint64_t output_size() const { return uint64_t{1} << output_bits(); }

  // α_v, packed; `item` must be below the number of items.
  uint64_t Leader(uint32_t item) const;
  // The t rows x^k·α_v (k < t) that span W_v.
  std::array<uint64_t, kMaxRowsPerItem> BasisRows(uint32_t item) const;
  // Bit k is popcount(x^k·α_v & y) mod 2: zero iff y ∈ C_v, and uniform on
  // [2^t] for a uniform y. Each value labels one coset of C_v.
  uint32_t Syndrome(uint32_t item, uint64_t y) const;
  // y with its leading digit (the digit where α_v is 1) changed so that its
  // syndrome is `target` (< 2^t): a bijection from each coset of C_v to the
  // target's, so a uniform y gives a uniform column of the target coset.
  uint64_t MoveToCoset(uint32_t item, uint64_t y, uint32_t target) const;
  // s_v: the syndrome of C_v's columns.
  uint32_t Offset(uint32_t item) const;
  bool Contains(uint32_t item, uint64_t y) const {
    return Syndrome(item, y) == Offset(item);
  }
  // |C_v ∩ {reports}| from the transformed counts T = H_K · counts:
  // (1/2^t) Σ_{x ∈ GF(2)^t} (−1)^popcount(x & s_v) T[Σ_k x_k·row_k], every
  // row of W_v visited once (Gray order).
  int64_t SupportCount(uint32_t item,
                       absl::Span<const int64_t> transformed) const;

 private:
  HadamardSubspaces(uint32_t t, uint32_t r, uint32_t reduction)
      : t_(t), r_(r), reduction_(reduction) {}

  // x·a for every digit of a at once (shift, then reduce by the field's
  // polynomial where a digit overflowed).
  uint64_t TimesX(uint64_t a) const;
  // The index of α_v's leading digit.
  uint32_t LeadingDigit(uint32_t item) const;

  uint32_t t_;
  uint32_t r_;
  uint32_t reduction_;  // the field polynomial without its x^t term
};

}  // namespace ldp

#endif  // LDP_COMMON_MECHANISMS_FREQUENCY_HADAMARD_SUBSPACES_H_
