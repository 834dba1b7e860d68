#include "common/mechanisms/frequency/bit_sliced_counter.h"

#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "tests/testing/statistics.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using testing::SeededGenerator;
using testing::StatusIs;

// Words whose bits are 1 with probability 2^-and_count (the AND of that many
// uniform words; 0 gives all ones), padding masked.
std::vector<uint64_t> RandomWords(size_t num_bits, int and_count,
                                  SeededGenerator& gen) {
  std::vector<uint64_t> words((num_bits + 63) / 64);
  for (uint64_t& word : words) {
    word = ~uint64_t{0};
    for (int i = 0; i < and_count; ++i) word &= gen();
  }
  if (num_bits % 64 != 0) words.back() &= (uint64_t{1} << (num_bits % 64)) - 1;
  return words;
}

void AddNaively(const std::vector<uint64_t>& words,
                std::vector<int64_t>& counts) {
  for (size_t i = 0; i < counts.size(); ++i) {
    counts[i] += (words[i / 64] >> (i % 64)) & 1;
  }
}

TEST(BitSlicedCounter, StartsAtZero) {
  const BitSlicedCounter counter(100);
  EXPECT_EQ(counter.num_bits(), 100u);
  EXPECT_EQ(counter.num_words(), 2u);
  EXPECT_EQ(counter.Counts(), std::vector<int64_t>(100, 0));
}

// Checks after every add (so partial batches too), through two flushes of
// the high planes, at densities from all ones to sparse.
TEST(BitSlicedCounter, MatchesNaiveCountingAcrossFlushBoundaries) {
  for (size_t num_bits : {1u, 63u, 64u, 65u, 200u}) {
    for (int and_count : {0, 1, 2, 4}) {
      SeededGenerator gen(num_bits * 10 + and_count);
      BitSlicedCounter counter(num_bits);
      std::vector<int64_t> naive(num_bits, 0);
      for (int i = 0; i < 2 * BitSlicedCounter::kReportsPerFlush + 37; ++i) {
        const std::vector<uint64_t> words =
            RandomWords(num_bits, and_count, gen);
        counter.Add(words);
        AddNaively(words, naive);
        ASSERT_EQ(counter.Counts(), naive)
            << "num_bits " << num_bits << " and_count " << and_count
            << " after " << i + 1 << " adds";
      }
    }
  }
}

TEST(BitSlicedCounter, IgnoresPaddingBits) {
  BitSlicedCounter counter(10);
  for (int i = 0; i < 300; ++i) {
    counter.Add(std::vector<uint64_t>{~uint64_t{0}});
  }
  EXPECT_EQ(counter.Counts(), std::vector<int64_t>(10, 300));
}

TEST(BitSlicedCounter, MergeEqualsAddingEverythingToOne) {
  SeededGenerator gen(5);
  BitSlicedCounter all(130), left(130), right(130);
  for (int i = 0; i < 700; ++i) {
    const std::vector<uint64_t> words = RandomWords(130, 1, gen);
    all.Add(words);
    (i % 3 == 0 ? left : right).Add(words);
  }
  ASSERT_OK(left.Merge(right));
  EXPECT_EQ(left.Counts(), all.Counts());
  // Merging must not disturb later adds: pending planes stay consistent.
  for (int i = 0; i < 300; ++i) {
    const std::vector<uint64_t> words = RandomWords(130, 2, gen);
    all.Add(words);
    left.Add(words);
  }
  EXPECT_EQ(left.Counts(), all.Counts());
}

TEST(BitSlicedCounter, MergeOfDifferentSizeIsRejected) {
  BitSlicedCounter a(64), b(65);
  b.Add(std::vector<uint64_t>{1, 1});
  EXPECT_THAT(a.Merge(b), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_EQ(a.Counts(), std::vector<int64_t>(64, 0));
}

}  // namespace
}  // namespace ldp
