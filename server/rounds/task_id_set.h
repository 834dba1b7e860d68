// The tasks of one round that have a counted report: a thread-safe set of
// task ids (task_id.h), written once per stored report and read on polls.
//
// Why not one hash set: at 10^6 bulk agents its inserts and lookups are a
// visible share of ldp-server's CPU, and every id costs a slot of a large
// table. Agent ids are dense (the registry hands them out in order, in
// blocks of 1,024 with a shared store), so this round's ids for its first 64
// questions are bits in pages of 4,096 agents: one atomic word operation per
// call, no lock, and num_questions bits per agent (rounded up to 8, 16, 32 or
// 64). Any other id (another round's, a question past 64) goes to a locked
// hash set, so every 64-bit value keeps exact set semantics.
#ifndef LDP_SERVER_ROUNDS_TASK_ID_SET_H_
#define LDP_SERVER_ROUNDS_TASK_ID_SET_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_set.h"
#include "absl/synchronization/mutex.h"
#include "common/tasks/task_id.h"

namespace ldp {

class TaskIdSet {
 public:
  // The round whose ids the pages hold, and its number of questions.
  TaskIdSet(uint64_t round_id, int num_questions);
  ~TaskIdSet();
  TaskIdSet(const TaskIdSet&) = delete;
  TaskIdSet& operator=(const TaskIdSet&) = delete;

  bool Insert(uint64_t task_id);  // false if already present
  void Erase(uint64_t task_id);
  bool Contains(uint64_t task_id) const;

 private:
  static constexpr int kLeafBits = 12;  // 4,096 agents per leaf
  static constexpr int kMidBits = 10;
  static constexpr int kTopBits = 10;  // 12 + 10 + 10 = the 32 agent bits
  struct Leaf {
    explicit Leaf(int words);
    std::unique_ptr<std::atomic<uint64_t>[]> words;
  };
  struct Mid {
    std::array<std::atomic<Leaf*>, (1 << kMidBits)> leaves{};
  };
  // Where a paged id's bit lives.
  struct Bit {
    uint64_t agent = 0;
    int word = 0;
    uint64_t mask = 0;
  };

  bool Paged(const TaskKey& key) const;
  Bit BitOf(const TaskKey& key) const;
  // The bit's word; null if its leaf does not exist and `create` is false.
  std::atomic<uint64_t>* Word(const Bit& bit, bool create) const;

  const uint64_t round_id_;
  const uint32_t paged_questions_;  // ≤ 64
  const int bits_per_agent_;        // 8, 16, 32 or 64; 0 with no questions
  mutable std::array<std::atomic<Mid*>, (1 << kTopBits)> top_{};
  mutable absl::Mutex mutex_;
  absl::flat_hash_set<uint64_t> others_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace ldp

#endif  // LDP_SERVER_ROUNDS_TASK_ID_SET_H_
