// The worst-case variance memo; see the header.
#include "common/mechanisms/real/worst_case_memo.h"

#include <bit>
#include <cstdint>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"

namespace ldp {
namespace {

struct Memo {
  absl::Mutex mutex;
  absl::flat_hash_map<std::string, double> values ABSL_GUARDED_BY(mutex);
};

// Never destroyed: threads still running at exit may use it.
Memo& TheMemo() {
  static Memo* const memo = new Memo;
  return *memo;
}

}  // namespace

double MemoizedWorstCase(const std::string& key,
                         absl::FunctionRef<double()> compute) {
  Memo& memo = TheMemo();
  {
    absl::MutexLock lock(&memo.mutex);
    if (auto it = memo.values.find(key); it != memo.values.end()) {
      return it->second;
    }
  }
  const double value = compute();
  absl::MutexLock lock(&memo.mutex);
  if (memo.values.size() < kMaxWorstCaseMemoEntries) {
    memo.values.emplace(key, value);
  }
  return value;
}

std::string ExactKeyPart(double value) {
  return absl::StrCat(absl::Hex(std::bit_cast<uint64_t>(value)), "/");
}

}  // namespace ldp
