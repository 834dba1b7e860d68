// A round's accumulators as stored bytes and back: what the stored round
// statistics (round_folder.h) and the per-batch deltas
// (batch_statistics.h) both are, one accumulator state per question.
#ifndef LDP_SERVER_ROUNDS_ROUND_STATES_H_
#define LDP_SERVER_ROUNDS_ROUND_STATES_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "common/task_estimation/task_accumulator.h"
#include "server/rounds/round_runtime.h"

namespace ldp {

// One empty accumulator per question of `round`.
std::vector<TaskAccumulator> EmptyAccumulators(const RoundRuntime& round);

// Deterministic bytes (statistics_codec.h).
std::string EncodeAccumulators(const std::vector<TaskAccumulator>& questions);

// Merges the states `bytes` hold into `into`, one per question.
// InvalidArgument for bytes that do not decode, or whose states do not fit
// `into` (another number of questions, a state the accumulator's merge
// refuses); `into` may then hold some of them: drop it.
absl::Status MergeEncoded(std::string_view bytes,
                          std::vector<TaskAccumulator>& into);

}  // namespace ldp

#endif  // LDP_SERVER_ROUNDS_ROUND_STATES_H_
