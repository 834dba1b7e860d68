// Comma-separated number lists in the experiments' flags ("--dims=8,12,16").
#ifndef LDP_BENCH_STUDIES_FLAG_LISTS_H_
#define LDP_BENCH_STUDIES_FLAG_LISTS_H_

#include <cstdio>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"

namespace ldp {

// Appends every entry of `flag` to `out`; on a malformed entry prints
// "bad --NAME entry" to stderr and returns false.
template <typename T>
bool ParseList(const std::string& flag, const char* name, std::vector<T>& out) {
  for (absl::string_view s : absl::StrSplit(flag, ',')) {
    T value{};
    bool ok;
    if constexpr (std::is_floating_point_v<T>) {
      ok = absl::SimpleAtod(s, &value);
    } else {
      ok = absl::SimpleAtoi(s, &value);
    }
    if (!ok) {
      std::fprintf(stderr, "bad --%s entry \"%s\"\n", name,
                   std::string(s).c_str());
      return false;
    }
    out.push_back(value);
  }
  return true;
}

}  // namespace ldp

#endif  // LDP_BENCH_STUDIES_FLAG_LISTS_H_
