// Paged bits for one round's task ids; see the header.
#include "server/rounds/task_id_set.h"

#include <algorithm>

namespace ldp {
namespace {

int BitsPerAgent(uint32_t questions) {
  if (questions == 0) return 0;
  int bits = 8;
  while (static_cast<uint32_t>(bits) < questions) bits *= 2;
  return bits;
}

// The slot's object, made and published by the first caller that needs it;
// a caller that loses the race frees its own and takes the winner's.
template <typename T, typename Make>
T* GetOrCreate(std::atomic<T*>& slot, bool create, Make make) {
  T* current = slot.load(std::memory_order_acquire);
  if (current != nullptr || !create) return current;
  T* fresh = make();
  if (slot.compare_exchange_strong(current, fresh, std::memory_order_acq_rel,
                                   std::memory_order_acquire)) {
    return fresh;
  }
  delete fresh;
  return current;
}

}  // namespace

TaskIdSet::Leaf::Leaf(int num_words)
    : words(std::make_unique<std::atomic<uint64_t>[]>(num_words)) {}

TaskIdSet::TaskIdSet(uint64_t round_id, int num_questions)
    : round_id_(round_id),
      paged_questions_(static_cast<uint32_t>(std::clamp(num_questions, 0, 64))),
      bits_per_agent_(BitsPerAgent(paged_questions_)) {}

TaskIdSet::~TaskIdSet() {
  for (std::atomic<Mid*>& mid_slot : top_) {
    Mid* mid = mid_slot.load(std::memory_order_acquire);
    if (mid == nullptr) continue;
    for (std::atomic<Leaf*>& leaf : mid->leaves) {
      delete leaf.load(std::memory_order_acquire);
    }
    delete mid;
  }
}

bool TaskIdSet::Paged(const TaskKey& key) const {
  return key.round_id == round_id_ && key.question < paged_questions_;
}

TaskIdSet::Bit TaskIdSet::BitOf(const TaskKey& key) const {
  const uint64_t local = key.agent_id & ((uint64_t{1} << kLeafBits) - 1);
  const uint64_t index = local * bits_per_agent_ + key.question;
  return {.agent = key.agent_id,
          .word = static_cast<int>(index / 64),
          .mask = uint64_t{1} << (index % 64)};
}

std::atomic<uint64_t>* TaskIdSet::Word(const Bit& bit, bool create) const {
  const uint64_t top = bit.agent >> (kLeafBits + kMidBits);
  const uint64_t middle = (bit.agent >> kLeafBits) & ((1 << kMidBits) - 1);
  Mid* mid = GetOrCreate(top_[top], create, [] { return new Mid(); });
  if (mid == nullptr) return nullptr;
  const int words = (bits_per_agent_ << kLeafBits) / 64;
  Leaf* leaf = GetOrCreate(mid->leaves[middle], create,
                           [words] { return new Leaf(words); });
  return leaf == nullptr ? nullptr : &leaf->words[bit.word];
}

bool TaskIdSet::Insert(uint64_t task_id) {
  const TaskKey key = UnpackTaskId(task_id);
  if (!Paged(key)) {
    absl::MutexLock lock(&mutex_);
    return others_.insert(task_id).second;
  }
  const Bit bit = BitOf(key);
  const uint64_t before =
      Word(bit, /*create=*/true)->fetch_or(bit.mask, std::memory_order_acq_rel);
  return (before & bit.mask) == 0;
}

void TaskIdSet::Erase(uint64_t task_id) {
  const TaskKey key = UnpackTaskId(task_id);
  if (!Paged(key)) {
    absl::MutexLock lock(&mutex_);
    others_.erase(task_id);
    return;
  }
  const Bit bit = BitOf(key);
  if (std::atomic<uint64_t>* word = Word(bit, /*create=*/false)) {
    word->fetch_and(~bit.mask, std::memory_order_acq_rel);
  }
}

bool TaskIdSet::Contains(uint64_t task_id) const {
  const TaskKey key = UnpackTaskId(task_id);
  if (!Paged(key)) {
    absl::MutexLock lock(&mutex_);
    return others_.contains(task_id);
  }
  const Bit bit = BitOf(key);
  const std::atomic<uint64_t>* word = Word(bit, /*create=*/false);
  return word != nullptr &&
         (word->load(std::memory_order_acquire) & bit.mask) != 0;
}

}  // namespace ldp
