// `ldp plan` for a shuffled study: the error of each question in the local
// model, the shuffle model and the central model side by side, all at the
// study's central target ε.
//
// Why a table of its own: what an analyst decides is whether the shuffler
// is worth running, and that is the ratio of the first two columns. The
// plan itself runs at ε0, so its own forecast is the shuffled column; the
// local and central columns come from the same study without shuffling,
// its cap set to the target.
#ifndef LDP_TOOLS_PLAN_COMMAND_SHUFFLE_TABLE_H_
#define LDP_TOOLS_PLAN_COMMAND_SHUFFLE_TABLE_H_

#include "absl/status/status.h"
#include "common/tasks/study_spec.h"
#include "planning/study_forecast.h"

namespace ldp {

// For spec.shuffle set; `shuffled` is the forecast of the shuffled plan.
absl::Status PrintShuffleComparison(const StudySpec& spec,
                                    const StudyForecast& shuffled,
                                    const ForecastOptions& options);

}  // namespace ldp

#endif  // LDP_TOOLS_PLAN_COMMAND_SHUFFLE_TABLE_H_
