#include "common/crypto/secure_random.h"

#include <sys/wait.h>
#include <unistd.h>

#include <bitset>
#include <cstdint>

#include "absl/random/bit_gen_ref.h"
#include "common/base/coin.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

TEST(SecureRandom, TwoInstancesProduceDifferentStreams) {
  auto a = SecureRandom::Create();
  auto b = SecureRandom::Create();
  ASSERT_OK(a);
  ASSERT_OK(b);
  int equal = 0;
  for (int i = 0; i < 64; ++i) equal += (**a)() == (**b)();
  EXPECT_EQ(equal, 0);
}

// Simulation streams: the seed fixes every coin (reproducible runs), and
// different seeds, or the OS-keyed stream, share none.
TEST(SecureRandom, SimulationStreamsFollowTheirSeed) {
  auto a = SecureRandom::CreateForSimulation(42);
  auto b = SecureRandom::CreateForSimulation(42);
  auto c = SecureRandom::CreateForSimulation(43);
  auto os = SecureRandom::Create();
  ASSERT_OK(a);
  ASSERT_OK(b);
  ASSERT_OK(c);
  ASSERT_OK(os);
  int same = 0, same_other_seed = 0, same_os = 0;
  // 2,000 words: past the first 512-word refill.
  for (int i = 0; i < 2000; ++i) {
    const uint64_t x = (**a)();
    same += x == (**b)();
    same_other_seed += x == (**c)();
    same_os += x == (**os)();
  }
  EXPECT_EQ(same, 2000);
  EXPECT_EQ(same_other_seed, 0);
  EXPECT_EQ(same_os, 0);
  int64_t ones = 0;
  for (int i = 0; i < 100'000; ++i) ones += std::bitset<64>((**c)()).count();
  EXPECT_NEAR(static_cast<double>(ones), 3.2e6, 6 * 1265.0);
}

TEST(SecureRandom, BitsAreBalanced) {
  auto random = SecureRandom::Create();
  ASSERT_OK(random);
  constexpr int kWords = 100'000;
  int64_t ones = 0;
  for (int i = 0; i < kWords; ++i)
    ones += std::bitset<64>((**random)()).count();
  // 6.4e6 fair bits: sd = 1265; 6 sd is far beyond any honest deviation.
  EXPECT_NEAR(static_cast<double>(ones), 3.2e6, 6 * 1265.0);
}

TEST(SecureRandom, WorksThroughBitGenRef) {
  auto random = SecureRandom::Create();
  ASSERT_OK(random);
  absl::BitGenRef gen(**random);
  int heads = 0;
  for (int i = 0; i < 10'000; ++i)
    heads += FlipCoin(CoinProbability::Half(), gen);
  EXPECT_NEAR(heads, 5000, 6 * 50);
}

// A buffered generator copied by fork() would hand parent and child the same
// coins; the fork handler must rekey the child.
TEST(SecureRandom, ForkedChildGetsDifferentCoins) {
  auto random = SecureRandom::Create();
  ASSERT_OK(random);
  (**random)();  // fill the buffer before forking
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    uint64_t words[4];
    for (auto& w : words) w = (**random)();
    const ssize_t written = write(pipe_fds[1], words, sizeof(words));
    _exit(written == sizeof(words) ? 0 : 1);
  }
  uint64_t parent_words[4];
  for (auto& w : parent_words) w = (**random)();
  uint64_t child_words[4];
  ASSERT_EQ(read(pipe_fds[0], child_words, sizeof(child_words)),
            static_cast<ssize_t>(sizeof(child_words)));
  int status = 0;
  waitpid(child, &status, 0);
  close(pipe_fds[0]);
  close(pipe_fds[1]);
  for (int i = 0; i < 4; ++i) EXPECT_NE(parent_words[i], child_words[i]);
}

}  // namespace
}  // namespace ldp
