// Which agents each round of an interactive study asks, at which εₜ, and the
// check that no agent can be asked for more than its cap.
//
// Agents are placed on [0, 1) by their id alone, at frac(id·φ) (φ the golden
// ratio): a low-discrepancy sequence, so any run of consecutive ids fills
// every slice in proportion to its width, and placement never looks at data
// (DESIGN invariant 8). A round asks the agents whose position falls in its
// slice. Disjoint slices are sample splitting — every agent answers once, at
// the full εₜ, as in the SQ-to-local simulation (Kasiviswanathan et al.,
// §5.1.1); a program re-asks agents only by giving rounds overlapping
// slices, and then their εₜ add up.
#ifndef LDP_PLANNING_PROGRAMS_PROGRAM_SCHEDULE_H_
#define LDP_PLANNING_PROGRAMS_PROGRAM_SCHEDULE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"

namespace ldp {

// A half-open slice [begin, end) of the unit interval, 0 ≤ begin < end ≤ 1.
struct AgentSlice {
  double begin = 0;
  double end = 1;

  // The slice as [lo, hi) of 64-bit fixed point positions; hi = 0 means 2^64.
  uint64_t fixed_begin() const;
  unsigned __int128 fixed_end() const;  // up to 2^64
  bool Contains(uint64_t position) const;
  // Where `position` (inside the slice) sits within it, in 64-bit fixed
  // point: 0 at `begin`, 2^64 − 1 just before `end`.
  uint64_t Relative(uint64_t position) const;
  double width() const { return end - begin; }

  friend bool operator==(const AgentSlice&, const AgentSlice&) = default;
};

// An agent's position: frac(agent_id·φ) in 64-bit fixed point.
inline uint64_t AgentPosition(uint64_t agent_id) {
  return agent_id * uint64_t{0x9E3779B97F4A7C15};
}

// [i/k, (i+1)/k): the i-th of k equal slices.
AgentSlice EqualSlice(int i, int k);

struct ScheduledRound {
  std::string name{};  // e.g. "learn r", "gradient step 3"
  AgentSlice slice{};
  // Charged to each agent the round asks (it answers one question).
  int64_t epsilon_nanos = 0;
};

// OK iff every round has a valid slice and 0 < εₜ, and no point of [0, 1)
// is covered by rounds whose εₜ add up to more than `cap_nanos`. Otherwise
// InvalidArgument naming the overlapping rounds, their total and the
// shortfall, e.g. "rounds 1 (\"learn r\", ε=2) and 2 (\"learn a\", ε=2) both
// ask agents in [0.25, 0.5): they need ε=4 but the cap is ε=2 (short by 2)".
absl::Status CheckSchedule(absl::Span<const ScheduledRound> schedule,
                           int64_t cap_nanos);

// The most any agent is charged over the whole schedule.
int64_t MaxScheduledSpend(absl::Span<const ScheduledRound> schedule);

}  // namespace ldp

#endif  // LDP_PLANNING_PROGRAMS_PROGRAM_SCHEDULE_H_
