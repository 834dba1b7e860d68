// `ldp plan`: before a study is deployed, how many agents it needs, what
// error it will have, what it costs each agent, and what a trusted curator
// would achieve instead, computed by the server's own planner and
// randomizers (planning/study_forecast.h), with no server. With simulate,
// the study also runs in process on a synthetic population, and predicted
// error is printed beside observed error.
#ifndef LDP_TOOLS_PLAN_COMMAND_PLAN_COMMAND_H_
#define LDP_TOOLS_PLAN_COMMAND_PLAN_COMMAND_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"

namespace ldp {

struct PlanCommandOptions {
  // Agents the study will reach: the error is printed at this n (0 = only
  // the agents needed for target_error).
  int64_t agents = 0;
  // τ > 0: the agents needed for every estimate to be within τ.
  double target_error = 0;
  // 1 − β of every half-width and of target_error (0 = the study's own).
  double confidence = 0;
  // Also run the study `runs` times on `agents` synthetic agents.
  bool simulate = false;
  int runs = 200;
  uint64_t seed = 1;
  // Where optimized workload strategies are cached ("" = not cached).
  std::string strategy_cache_dir{};
  absl::Duration optimizer_time_limit = absl::Minutes(10);
};

// Reads the StudySpec in `study_file` (text format, or JSON if *.json) and
// prints its forecast on stdout. INVALID_ARGUMENT for a bad spec or option.
absl::Status RunPlanCommand(const std::string& study_file,
                            const PlanCommandOptions& options);

}  // namespace ldp

#endif  // LDP_TOOLS_PLAN_COMMAND_PLAN_COMMAND_H_
