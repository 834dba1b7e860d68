// The row spaces of the general Hadamard response: t-dimensional, pairwise
// meeting only in 0 (so that q = 2^-t exactly), syndromes and coset moves
// that sample exactly, and the transform decoding that counts C_v.
#include "common/mechanisms/frequency/hadamard_subspaces.h"

#include <bit>
#include <cstdint>
#include <random>
#include <vector>

#include "absl/status/status.h"
#include "common/mechanisms/frequency/walsh_hadamard.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using testing::StatusIs;

// Rank over GF(2) of a set of bit vectors.
int GfRank(std::vector<uint64_t> rows) {
  int rank = 0;
  for (int bit = 63; bit >= 0; --bit) {
    const uint64_t mask = uint64_t{1} << bit;
    size_t pivot = rank;
    while (pivot < rows.size() && !(rows[pivot] & mask)) ++pivot;
    if (pivot == rows.size()) continue;
    std::swap(rows[rank], rows[pivot]);
    for (size_t i = 0; i < rows.size(); ++i) {
      if (i != static_cast<size_t>(rank) && (rows[i] & mask))
        rows[i] ^= rows[rank];
    }
    ++rank;
  }
  return rank;
}

std::vector<uint64_t> RowBasis(const HadamardSubspaces& s, uint32_t item) {
  const auto rows = s.BasisRows(item);
  return {rows.begin(), rows.begin() + s.rows_per_item()};
}

uint32_t ProjectivePoints(uint32_t t, uint32_t r) {
  return static_cast<uint32_t>(((uint64_t{1} << (t * r)) - 1) /
                               ((1u << t) - 1));
}

TEST(HadamardSubspaces, RejectsBadRowCountsAndTooManyOutputs) {
  EXPECT_THAT(HadamardSubspaces::Create(0, 10).status(),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(HadamardSubspaces::Create(13, 10).status(),
              StatusIs(absl::StatusCode::kInvalidArgument));
  // t = 12 has room for 2 digits (24 bits) within 2^25: 4097 items.
  EXPECT_OK(HadamardSubspaces::Create(12, 4097));
  EXPECT_THAT(HadamardSubspaces::Create(12, 4098).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       ::testing::HasSubstr("fewer rows")));
}

TEST(HadamardSubspaces, UsesTheFewestDigits) {
  EXPECT_EQ(HadamardSubspaces::Create(1, 1023)->output_size(), 1024u);
  EXPECT_EQ(HadamardSubspaces::Create(1, 1024)->output_size(), 2048u);
  EXPECT_EQ(HadamardSubspaces::Create(6, 65)->num_digits(), 2u);
  EXPECT_EQ(HadamardSubspaces::Create(6, 66)->num_digits(), 3u);
  EXPECT_EQ(HadamardSubspaces::Create(6, 1024)->output_bits(), 18u);
}

// t = 1 is the one-block form: item v owns row v + 1.
TEST(HadamardSubspaces, OneRowPerItemIsRowVPlusOne) {
  const auto s = HadamardSubspaces::Create(1, 1000);
  ASSERT_OK(s);
  for (uint32_t v = 0; v < 1000; ++v) {
    ASSERT_EQ(s->Leader(v), v + 1u);
    ASSERT_EQ(s->Offset(v), 0u);
    ASSERT_EQ(
        s->Syndrome(v, 12345 % s->output_size()),
        static_cast<uint32_t>(std::popcount((v + 1) & (12345 % 1024)) & 1));
  }
}

// Every pair of items' spaces spans 2t dimensions (meets only in 0), for
// every pair where t ≤ 4 and a seeded sample of pairs up to t = 12; each
// item's t rows are independent and its leader is normalized (leading
// digit 1).
TEST(HadamardSubspaces, RowSpacesAreTDimensionalAndMeetOnlyInZero) {
  std::mt19937_64 gen(7);
  for (uint32_t t = 1; t <= HadamardSubspaces::kMaxRowsPerItem; ++t) {
    const uint32_t r = t <= 4 ? 3 : 2;
    const uint32_t n = t * r <= HadamardSubspaces::kMaxOutputBits
                           ? ProjectivePoints(t, r)
                           : ProjectivePoints(t, r - 1);
    const auto s = HadamardSubspaces::Create(t, n);
    ASSERT_OK(s);
    for (uint32_t v = 0; v < n; v += 1 + n / 500) {
      ASSERT_EQ(GfRank(RowBasis(*s, v)), static_cast<int>(t)) << t << " " << v;
      const uint64_t leader = s->Leader(v);
      const int top_digit = (std::bit_width(leader) - 1) / static_cast<int>(t);
      ASSERT_EQ(leader >> (t * top_digit), 1u) << t << " " << v;
    }
    const bool every_pair = t <= 4;
    const uint64_t pairs = every_pair ? uint64_t{n} * n : 3000;
    for (uint64_t i = 0; i < pairs; ++i) {
      const uint32_t u = every_pair ? i / n : gen() % n;
      const uint32_t v = every_pair ? i % n : gen() % n;
      if (u == v) continue;
      std::vector<uint64_t> both = RowBasis(*s, u);
      for (uint64_t row : RowBasis(*s, v)) both.push_back(row);
      ASSERT_EQ(GfRank(both), static_cast<int>(2 * t))
          << t << " " << u << " " << v;
    }
  }
}

// Syndromes are balanced (K/2^t columns each), C_u ∩ C_v has K/4^t
// whatever the offsets, and a
// coset move lands every column of the target coset exactly 2^t times.
TEST(HadamardSubspaces, CosetsAreBalancedAndMovesAreExact) {
  for (uint32_t t : {1u, 2u, 3u}) {
    const auto s =
        HadamardSubspaces::Create(t, ProjectivePoints(t, 2) + 1);  // r = 3
    ASSERT_OK(s);
    const uint64_t k = s->output_size();
    const uint32_t cosets = 1u << t;
    for (uint32_t v : {0u, 1u, 5u, ProjectivePoints(t, 2)}) {
      std::vector<int> per_syndrome(cosets, 0);
      std::vector<int> with_zero(cosets, 0);
      for (uint64_t y = 0; y < k; ++y) {
        ++per_syndrome[s->Syndrome(v, y)];
        with_zero[s->Syndrome(v, y)] += s->Contains(2, y);
      }
      for (uint32_t c = 0; c < cosets; ++c) {
        EXPECT_EQ(per_syndrome[c], static_cast<int>(k / cosets));
        if (v != 2)
          EXPECT_EQ(with_zero[c], static_cast<int>(k / cosets / cosets));
      }
      for (uint32_t target = 0; target < cosets; ++target) {
        std::vector<int> hits(k, 0);
        for (uint64_t y = 0; y < k; ++y) {
          const uint64_t moved = s->MoveToCoset(v, y, target);
          ASSERT_LT(moved, k);
          ASSERT_EQ(s->Syndrome(v, moved), target);
          ++hits[moved];
        }
        for (uint64_t y = 0; y < k; ++y) {
          EXPECT_EQ(hits[y],
                    s->Syndrome(v, y) == target ? static_cast<int>(cosets) : 0);
        }
      }
    }
  }
}

// The offsets scatter the sets: with r = 2 every subspace holds column 0,
// but only about N/2^t of the cosets do.
TEST(HadamardSubspaces, OffsetsKeepColumnZeroOutOfMostSets) {
  const uint32_t n = ProjectivePoints(6, 2);  // 65 items, K = 2^12
  const auto s = HadamardSubspaces::Create(6, n);
  ASSERT_OK(s);
  ASSERT_EQ(s->num_digits(), 2u);
  int holding_zero = 0;
  for (uint32_t v = 0; v < n; ++v) {
    ASSERT_EQ(s->Syndrome(v, 0), 0u);
    holding_zero += s->Contains(v, 0);
  }
  EXPECT_LE(holding_zero, 6);  // ~Binomial(65, 1/64); 6 is 4.6 SD above 1
}

TEST(HadamardSubspaces, SupportCountFromTheTransformCountsC) {
  std::mt19937_64 gen(3);
  for (uint32_t t : {1u, 2u, 4u}) {
    const uint32_t n = ProjectivePoints(t, 2) + 3;
    const auto s = HadamardSubspaces::Create(t, n);
    ASSERT_OK(s);
    std::vector<int64_t> counts(s->output_size());
    for (int64_t& c : counts) c = static_cast<int64_t>(gen() % 50);
    std::vector<int64_t> transformed = counts;
    FastWalshHadamardTransform(absl::MakeSpan(transformed));
    for (uint32_t v = 0; v < n; ++v) {
      int64_t direct = 0;
      for (uint64_t y = 0; y < counts.size(); ++y) {
        if (s->Contains(v, y)) direct += counts[y];
      }
      ASSERT_EQ(s->SupportCount(v, transformed), direct) << t << " " << v;
    }
  }
}

}  // namespace
}  // namespace ldp
