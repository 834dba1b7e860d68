// The stored form of a round plan's decisions (planner.h).
//
// A round's assignments and randomizers must not change after agents have
// seen them, even if a later server version would plan differently, so the
// server stores what it decided rather than re-planning after a restart.
#ifndef LDP_SERVER_PLAN_CODEC_H_
#define LDP_SERVER_PLAN_CODEC_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "server/planner.h"

namespace ldp {

// The first byte of a plan written before analyst-program rounds existed;
// such plans still decode, and EncodePlan writes them in the current form.
inline constexpr char kPlanVersion1 = 1;

std::string EncodePlan(const PlanDecisions& plan);

// InvalidArgument for anything EncodePlan, now or in an older version,
// cannot have produced.
absl::StatusOr<PlanDecisions> DecodePlan(std::string_view bytes);

}  // namespace ldp

#endif  // LDP_SERVER_PLAN_CODEC_H_
