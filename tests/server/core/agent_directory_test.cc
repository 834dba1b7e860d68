#include "server/core/agent_directory.h"

#include <thread>
#include <vector>

#include "common/tasks/task_id.h"
#include "gtest/gtest.h"
#include "server/core/credential.h"

namespace ldp {
namespace {

TEST(AgentDirectory, VerifiesOnlyTheStoredHash) {
  AgentDirectory directory;
  directory.Add(5, Sha256("five"));
  EXPECT_TRUE(directory.Contains(5));
  EXPECT_FALSE(directory.Contains(6));
  EXPECT_TRUE(directory.Verify(5, Sha256("five")));
  EXPECT_FALSE(directory.Verify(5, Sha256("six")));
  EXPECT_FALSE(directory.Verify(6, Sha256("five")));
}

TEST(AgentDirectory, CoversEveryIdFromOneToTheLargest) {
  AgentDirectory directory;
  for (uint64_t id :
       {uint64_t{1}, uint64_t{65535}, uint64_t{65536}, kMaxAgentId}) {
    EXPECT_FALSE(directory.Contains(id));
    directory.Add(id, Sha256(std::to_string(id)));
    EXPECT_TRUE(directory.Verify(id, Sha256(std::to_string(id)))) << id;
  }
  EXPECT_FALSE(directory.Contains(2));
  EXPECT_FALSE(directory.Contains(65537));
  // Ids outside the range exist never.
  directory.Add(0, Sha256("0"));
  directory.Add(kMaxAgentId + 1, Sha256("x"));
  EXPECT_FALSE(directory.Contains(0));
  EXPECT_FALSE(directory.Contains(kMaxAgentId + 1));
  EXPECT_FALSE(directory.Verify(~uint64_t{0}, Sha256("x")));
}

TEST(AgentDirectory, ConcurrentAddsAndLookupsSeeEveryAgent) {
  AgentDirectory directory;
  constexpr int kThreads = 4;
  constexpr int kPerThread = 5'000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        const uint64_t id = 1 + t + kThreads * i;
        directory.Add(id, Sha256(std::to_string(id)));
        EXPECT_TRUE(directory.Verify(id, Sha256(std::to_string(id))));
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (uint64_t id = 1; id <= kThreads * kPerThread; ++id) {
    EXPECT_TRUE(directory.Verify(id, Sha256(std::to_string(id))));
  }
}

}  // namespace
}  // namespace ldp
