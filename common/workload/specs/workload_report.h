// One agent's report for a workload task. Plain data shared by the task
// types, the wire codecs and the strategies (strategy.h).
#ifndef LDP_COMMON_WORKLOAD_SPECS_WORKLOAD_REPORT_H_
#define LDP_COMMON_WORKLOAD_SPECS_WORKLOAD_REPORT_H_

#include <cstdint>

#include "common/mechanisms/frequency/frequency_report.h"

namespace ldp {

// What one agent sends for one workload task: the group it sampled (drawn
// independently of its item, 0 for single-group strategies) and the inner
// randomizer's output: an ItemReport (randomized response, an output of Q),
// a BitVectorReport (unary encoding) or a HashedReport (vector randomizer:
// `seed` names the public random direction, `bucket` ∈ {0, 1} its sign).
struct WorkloadReport {
  uint32_t group = 0;
  FrequencyReport inner;
  friend bool operator==(const WorkloadReport&,
                         const WorkloadReport&) = default;
};

}  // namespace ldp

#endif  // LDP_COMMON_WORKLOAD_SPECS_WORKLOAD_REPORT_H_
