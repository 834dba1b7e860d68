// FillRandomBytes and RandomWord: the system generator's bytes arrive, and
// a request it cannot take is refused with a status, never truncated.
#include "common/crypto/random_bytes.h"

#include <array>
#include <cstdint>
#include <set>

#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

TEST(RandomBytes, FillsTheWholeBuffer) {
  // 256 bytes all zero after a fill: probability 2^-2048.
  std::array<uint8_t, 256> bytes{};
  ASSERT_OK(FillRandomBytes(bytes.data(), bytes.size()));
  bool any_set = false;
  for (uint8_t b : bytes) any_set |= b != 0;
  EXPECT_TRUE(any_set);
}

TEST(RandomBytes, WordsDoNotRepeat) {
  // 64 draws of 64 bits: a repeat has probability below 2^-52.
  std::set<uint64_t> words;
  for (int i = 0; i < 64; ++i) {
    absl::StatusOr<uint64_t> word = RandomWord();
    ASSERT_OK(word);
    words.insert(*word);
  }
  EXPECT_EQ(words.size(), 64u);
}

TEST(RandomBytes, AnOversizedRequestIsRefused) {
  uint8_t byte = 0;
  EXPECT_EQ(FillRandomBytes(&byte, size_t{1} << 31).code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace ldp
