// How a round's agents report a D-coordinate mean gradient: k coordinates
// per agent, each at ε/k (Wang et al., "Collecting and Analyzing
// Multidimensional Data with Local Differential Privacy", ICDE 2019, §IV),
// and which scalar mechanism randomizes each coordinate.
//
// The D coordinates are cut into k contiguous blocks; a round of the slice
// asks one block, so each agent of the slice answers one coordinate of each
// of the k blocks over k rounds (never the same coordinate twice), each at
// ε/k, and its charges add up to at most ε. A coordinate of block b is then
// averaged over slice/|B_b| reports. k = 1 is one coordinate per agent at
// the full ε.
//
// Choosing k (the planner, for k unset): the smallest worst-case variance
// of a coordinate's estimate, ⌈D/k⌉ · R(ε/k) / n for a slice of n agents,
// where R(ε) = max_x E[Decode(R(x))²] of the mechanism used at ε is the
// bound on one decoded report's variance over any population: the
// mechanism's noise plus the spread of the clipped gradient between agents
// (at most c²). k > 1 gives each coordinate k times the reports, each
// noisier; it wins once the mechanism's noise at ε is small against the
// spread it shares out: from ε ≈ 3 on (k = 2 at ε = 4, 3 at ε = 8 for
// D = 65). Counting the mechanism's noise alone, k = 1 would always win
// (bench/studies/gradient_mechanism_variance.py), which is why the spread must
// be in the criterion.
//
// Within a block, the mechanism kind is the lowest worst-case mechanism
// variance at (ε/k, c) (scalar_mechanism_choice.h, kMechanismVariance), as
// logistic_regression.h explains.
#ifndef LDP_PLANNING_PROGRAMS_GRADIENT_PLAN_H_
#define LDP_PLANNING_PROGRAMS_GRADIENT_PLAN_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/mechanisms/real/real_mechanism.h"

namespace ldp {

// The most coordinates one agent may report per gradient.
inline constexpr int kMaxCoordinatesPerAgent = 16;

struct GradientPlan {
  int coordinates_per_agent = 1;  // k
  int dims = 1;                   // D
  // ε/k in nano-ε, rounded down so that k charges fit the cap.
  int64_t epsilon_nanos_per_report = 0;
  RealMechanismKind kind = RealMechanismKind::kHybrid;
  // ⌈D/k⌉ · R(ε/k): times 1/n, the worst-case variance of a coordinate's
  // estimate from a slice of n agents (see above).
  double variance_factor = 0;

  // The coordinates [begin, end) of block b < k: ⌊b·D/k⌋ … ⌊(b+1)·D/k⌋.
  int BlockBegin(int b) const;
  int BlockEnd(int b) const { return BlockBegin(b + 1); }
  // e.g. "2 coordinates per agent at ε/2 = 2 each, hybrid".
  std::string Describe() const;
};

// A `coordinates_per_agent` as a program parameter or flag spells it:
// "auto" is 0 (the planner's k), else an integer k ≥ 1 (PlanGradientReports
// checks the upper limit). InvalidArgument for anything else.
absl::StatusOr<int> ParseCoordinatesPerAgent(absl::string_view text);

// The plan for D = `dims` coordinates clipped to [−clip, clip] under a cap
// of ε = epsilon_cap_nanos per agent. coordinates_per_agent = 0: the
// planner's k in [1, min(D, kMaxCoordinatesPerAgent)] (ties to the smaller
// k); otherwise that k, which must lie in [1, min(D, 16)] and leave ε/k ≥ 1
// nano-ε. InvalidArgument for a bad k, ε ≤ 0, clip ≤ 0 or dims < 1.
absl::StatusOr<GradientPlan> PlanGradientReports(int64_t epsilon_cap_nanos,
                                                 double clip, int dims,
                                                 int coordinates_per_agent);

}  // namespace ldp

#endif  // LDP_PLANNING_PROGRAMS_GRADIENT_PLAN_H_
