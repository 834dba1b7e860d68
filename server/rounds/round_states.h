// A round's accumulators as stored bytes and back: what the stored round
// statistics (round_folder.h) and the per-batch deltas
// (batch_statistics.h) both are, one accumulator state per question; a
// delta also names the tasks it counts.
#ifndef LDP_SERVER_ROUNDS_ROUND_STATES_H_
#define LDP_SERVER_ROUNDS_ROUND_STATES_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "common/task_estimation/task_accumulator.h"
#include "server/rounds/round_runtime.h"

namespace ldp {

// One empty accumulator per question of `round`.
std::vector<TaskAccumulator> EmptyAccumulators(const RoundRuntime& round);

// Deterministic bytes (statistics_codec.h); `task_ids` strictly
// ascending.
std::string EncodeAccumulators(const std::vector<TaskAccumulator>& questions,
                               absl::Span<const uint64_t> task_ids = {});

// Merges the states `bytes` hold into `into`, one per question, and
// returns the task ids they name (none for a closed round's statistics).
// InvalidArgument for bytes that do not decode, or whose states do not fit
// `into` (another number of questions, a state the accumulator's merge
// refuses); `into` may then hold some of them: drop it.
absl::StatusOr<std::vector<uint64_t>> MergeEncoded(
    std::string_view bytes, std::vector<TaskAccumulator>& into);

}  // namespace ldp

#endif  // LDP_SERVER_ROUNDS_ROUND_STATES_H_
