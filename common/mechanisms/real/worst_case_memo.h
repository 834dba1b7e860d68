// A process-wide memo of mechanisms' exact worst-case variances.
//
// Why: the exact worst case of a mechanism that rounds onto a grid costs
// O(grid) evaluations (piecewise_quadratic.h), about 0.8 ms for the default
// 2,048-cell piecewise and hybrid mechanisms, and every question of every
// round builds its own mechanism object. An analyst program's rounds ask
// the same mechanism of dozens of questions (logistic regression: one per
// gradient coordinate), so without the memo a 100-round, 65-coordinate run
// spent about 5 s of CPU recomputing one number. The value depends only on
// the parameters that define the mechanism's output distribution, which
// the caller spells out exactly in `key`; it is not privacy-relevant (error
// bars and planning read it, randomization never does).
#ifndef LDP_COMMON_MECHANISMS_REAL_WORST_CASE_MEMO_H_
#define LDP_COMMON_MECHANISMS_REAL_WORST_CASE_MEMO_H_

#include <string>

#include "absl/functional/function_ref.h"

namespace ldp {

// compute() the first time `key` is seen, the remembered value after that.
// Thread-safe; compute runs outside the lock (two threads may both compute
// a new key; both get the same value). At most kMaxWorstCaseMemoEntries keys
// are kept, so studies with ever new ε cannot grow it without bound; past
// that, compute() runs every time.
inline constexpr int kMaxWorstCaseMemoEntries = 4096;
double MemoizedWorstCase(const std::string& key,
                         absl::FunctionRef<double()> compute);

// The exact bits of a double, for keys ("%a" would do too, but is longer).
std::string ExactKeyPart(double value);

}  // namespace ldp

#endif  // LDP_COMMON_MECHANISMS_REAL_WORST_CASE_MEMO_H_
