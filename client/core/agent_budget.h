// The agent's budget rule: whether one charge fits every cap that binds
// it, and booking it. Pure functions of the state, so the rule can be read
// (and tested) in one place.
//
// A charge of c nano-ε for study s at time t fits when
//   - the study's spend plus c stays within the study's cap, which is the
//     lowest of the agent's own per-study cap, the cap the server announces
//     (a server can only lower it) and the cap accepted before (caps only
//     go down, never below what is spent);
//   - the lifetime spend plus c stays within the lifetime cap;
//   - the spend of the rolling period (t − period, t] plus c stays within
//     the period cap.
// Sequential composition makes the agent's total privacy loss the sum of
// its charges, so these sums are the guarantee (DESIGN invariant 4).
#ifndef LDP_CLIENT_CORE_AGENT_BUDGET_H_
#define LDP_CLIENT_CORE_AGENT_BUDGET_H_

#include <cstdint>

#include "absl/status/status.h"
#include "client/core/agent_state.h"

namespace ldp {

struct Charge {
  uint64_t study_id = 0;
  int64_t nanos = 0;          // > 0
  int64_t own_study_cap = 0;  // the agent's per-study cap
  int64_t announced_cap = 0;  // the server's cap for the study; 0 = none
  int64_t now = 0;            // Unix seconds
};

// FailedPrecondition naming the cap that would be exceeded, with enough
// digits to show the difference.
absl::Status CheckCharge(const AgentState& state, const Charge& charge);

// Books a charge CheckCharge accepted; returns the change in the state
// file's size.
int64_t BookCharge(AgentState& state, const Charge& charge);

}  // namespace ldp

#endif  // LDP_CLIENT_CORE_AGENT_BUDGET_H_
