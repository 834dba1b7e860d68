// A task's question in canonical form: what the agent's memo is keyed by.
//
// Two tasks that make the agent draw from the same distribution must look
// the same here, whatever the server called them or however it spelled a
// default (DESIGN invariant 4): ids and the charge are cleared, parameters
// the randomizer ignores are zeroed, and every default is replaced by the
// value the BUILT randomizer implements (so a spelling of 0 and of the
// default itself agree by construction, not by a second copy of the
// defaults table).
#ifndef LDP_COMMON_TASKS_CANONICAL_TASK_H_
#define LDP_COMMON_TASKS_CANONICAL_TASK_H_

#include "common/mechanisms/frequency/frequency_oracle.h"
#include "common/mechanisms/real/real_mechanism.h"
#include "common/tasks/task.h"
#include "common/workload/strategy_randomizers/strategy_randomizer.h"

namespace ldp {

// Exactly one of the three randomizers is non-null: the one built for
// `task.question`.
Task CanonicalTask(const Task& task, const FrequencyOracle* oracle,
                   const RealMechanism* mechanism,
                   const StrategyRandomizer* strategy);

}  // namespace ldp

#endif  // LDP_COMMON_TASKS_CANONICAL_TASK_H_
