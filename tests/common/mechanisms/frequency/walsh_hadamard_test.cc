#include "common/mechanisms/frequency/walsh_hadamard.h"

#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "tests/testing/statistics.h"

namespace ldp {
namespace {

using testing::SeededGenerator;

std::vector<int64_t> NaiveTransform(const std::vector<int64_t>& values) {
  std::vector<int64_t> out(values.size(), 0);
  for (size_t r = 0; r < values.size(); ++r) {
    for (size_t c = 0; c < values.size(); ++c) {
      out[r] += HadamardEntryIsNegative(r, c) ? -values[c] : values[c];
    }
  }
  return out;
}

std::vector<int64_t> RandomValues(size_t size, SeededGenerator& gen) {
  std::vector<int64_t> values(size);
  for (int64_t& v : values) v = static_cast<int64_t>(gen() % 2001) - 1000;
  return values;
}

TEST(FastWalshHadamardTransform, MatchesTheNaiveTransform) {
  SeededGenerator gen(1);
  for (size_t size = 1; size <= 512; size *= 2) {
    const std::vector<int64_t> values = RandomValues(size, gen);
    std::vector<int64_t> fast = values;
    FastWalshHadamardTransform(absl::MakeSpan(fast));
    EXPECT_EQ(fast, NaiveTransform(values)) << "size " << size;
  }
}

TEST(FastWalshHadamardTransform, TwiceMultipliesBySize) {
  SeededGenerator gen(2);
  const std::vector<int64_t> values = RandomValues(1024, gen);
  std::vector<int64_t> twice = values;
  FastWalshHadamardTransform(absl::MakeSpan(twice));
  FastWalshHadamardTransform(absl::MakeSpan(twice));
  for (size_t i = 0; i < values.size(); ++i) {
    ASSERT_EQ(twice[i], 1024 * values[i]) << i;
  }
}

TEST(FastWalshHadamardTransform, LeavesOtherLengthsUnchanged) {
  std::vector<int64_t> values = {1, 2, 3};
  FastWalshHadamardTransform(absl::MakeSpan(values));
  EXPECT_EQ(values, (std::vector<int64_t>{1, 2, 3}));
  std::vector<int64_t> empty;
  FastWalshHadamardTransform(absl::MakeSpan(empty));
  EXPECT_TRUE(empty.empty());
}

TEST(HadamardEntryIsNegative, RowsAreOrthogonal) {
  constexpr uint64_t kSize = 64;
  for (uint64_t a = 0; a < kSize; ++a) {
    for (uint64_t b = 0; b < kSize; ++b) {
      int64_t dot = 0;
      for (uint64_t c = 0; c < kSize; ++c) {
        dot += HadamardEntryIsNegative(a, c) == HadamardEntryIsNegative(b, c)
                   ? 1
                   : -1;
      }
      ASSERT_EQ(dot, a == b ? int64_t{kSize} : 0) << a << " " << b;
    }
  }
}

}  // namespace
}  // namespace ldp
