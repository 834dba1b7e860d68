// TaskIdSet: exact set semantics on every 64-bit id, paged or not, and one
// winner per id when threads race to insert it.
#include "server/rounds/task_id_set.h"

#include <atomic>
#include <cstdint>
#include <random>
#include <set>
#include <thread>
#include <vector>

#include "common/tasks/task_id.h"
#include "gtest/gtest.h"

namespace ldp {
namespace {

uint64_t Id(uint64_t round, uint64_t agent, uint32_t question) {
  return PackTaskId(
      {.round_id = round, .agent_id = agent, .question = question});
}

TEST(TaskIdSet, RemembersWhatWasInserted) {
  TaskIdSet set(/*round_id=*/1, /*num_questions=*/2);
  EXPECT_TRUE(set.Insert(Id(1, 2, 0)));
  EXPECT_FALSE(set.Insert(Id(1, 2, 0)));
  EXPECT_TRUE(set.Contains(Id(1, 2, 0)));
  EXPECT_FALSE(set.Contains(Id(1, 2, 1)));  // the same agent's other question
  EXPECT_FALSE(set.Contains(Id(1, 3, 0)));
  set.Erase(Id(1, 2, 0));
  EXPECT_FALSE(set.Contains(Id(1, 2, 0)));
  EXPECT_TRUE(set.Insert(Id(1, 2, 0)));
}

TEST(TaskIdSet, EdgesOfThePagesKeepTheirOwnBits) {
  TaskIdSet set(/*round_id=*/kMaxRoundId, /*num_questions=*/100);
  const uint64_t ids[] = {Id(kMaxRoundId, 0, 0),
                          Id(kMaxRoundId, kMaxAgentId, 63),
                          Id(kMaxRoundId, 4095, 63),
                          Id(kMaxRoundId, 4096, 0),
                          Id(kMaxRoundId, 4096, 64),
                          Id(kMaxRoundId, 7, kMaxQuestionIndex),
                          Id(1, 4096, 0),
                          ~uint64_t{0},
                          0};
  for (uint64_t id : ids) {
    EXPECT_FALSE(set.Contains(id)) << id;
    EXPECT_TRUE(set.Insert(id)) << id;
  }
  for (uint64_t id : ids) {
    EXPECT_TRUE(set.Contains(id)) << id;
    EXPECT_FALSE(set.Insert(id)) << id;
  }
  EXPECT_FALSE(set.Contains(Id(kMaxRoundId, 4095, 62)));
  EXPECT_FALSE(set.Contains(Id(kMaxRoundId, kMaxAgentId - 1, 63)));
  EXPECT_FALSE(set.Contains(Id(kMaxRoundId, 4097, 0)));
}

TEST(TaskIdSet, NoQuestionsKeepsEveryIdInTheHashSet) {
  TaskIdSet set(/*round_id=*/3, /*num_questions=*/0);
  EXPECT_TRUE(set.Insert(Id(3, 1, 0)));
  EXPECT_TRUE(set.Contains(Id(3, 1, 0)));
  EXPECT_FALSE(set.Insert(Id(3, 1, 0)));
}

// Random inserts, erases and lookups against std::set, over ids that land
// in the pages (several leaves, every question of a 3-question round) and
// ids that do not (another round, questions past the round's).
TEST(TaskIdSet, AgreesWithAStdSetUnderRandomOperations) {
  for (int questions : {1, 3, 9, 17, 33, 64, 65}) {
    SCOPED_TRACE(questions);
    TaskIdSet set(/*round_id=*/5, questions);
    std::set<uint64_t> model;
    std::mt19937_64 gen(questions);
    std::uniform_int_distribution<uint64_t> agent(0, 3 * 4096);
    std::uniform_int_distribution<uint32_t> question(0, questions + 2);
    std::uniform_int_distribution<int> op(0, 2);
    for (int i = 0; i < 20000; ++i) {
      const uint64_t round = gen() % 8 == 0 ? 6 : 5;
      const uint64_t id = Id(round, agent(gen), question(gen));
      switch (op(gen)) {
        case 0:
          ASSERT_EQ(set.Insert(id), model.insert(id).second) << id;
          break;
        case 1:
          set.Erase(id);
          model.erase(id);
          break;
        default:
          ASSERT_EQ(set.Contains(id), model.contains(id)) << id;
      }
    }
    for (uint64_t id : model) ASSERT_TRUE(set.Contains(id)) << id;
  }
}

TEST(TaskIdSet, ExactlyOneOfRacingInsertsWins) {
  TaskIdSet set(/*round_id=*/2, /*num_questions=*/2);
  constexpr int kThreads = 4;
  constexpr uint64_t kAgents = 3 * 4096;
  std::atomic<int64_t> wins{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&set, &wins, t] {
      for (uint64_t a = 0; a < kAgents; ++a) {
        // Every thread walks the same ids, from different starting points,
        // so leaves are created under contention too.
        const uint64_t agent = (a + t * 1024) % kAgents;
        for (uint32_t q = 0; q < 2; ++q) {
          if (set.Insert(Id(2, agent, q))) wins.fetch_add(1);
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(wins.load(), static_cast<int64_t>(2 * kAgents));
  for (uint64_t agent = 0; agent < kAgents; ++agent) {
    EXPECT_TRUE(set.Contains(Id(2, agent, 0)));
    EXPECT_TRUE(set.Contains(Id(2, agent, 1)));
  }
}

}  // namespace
}  // namespace ldp
