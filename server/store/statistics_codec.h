// Round statistics as stored: one database's accumulator states of a
// closed round, one per question (server/core/round_folder.h says
// who writes and merges them), or one transaction's of an open round with
// the tasks they count (a delta), as an ldp.storage.v1.RoundStatistics.
//
// Why a codec of its own: the states are plain numbers whose meaning the
// round's plan gives, so this file only moves them in and out of protobuf;
// whether they fit a question is AccumulatorState's merge to check.
#ifndef LDP_SERVER_STORE_STATISTICS_CODEC_H_
#define LDP_SERVER_STORE_STATISTICS_CODEC_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "common/estimation/accumulator_state.h"

namespace ldp {

// What stored statistics hold: one state per question and, in a delta,
// the ids of the tasks whose reports they count, ascending (none in a
// closed round's statistics).
struct StoredStatistics {
  std::vector<AccumulatorState> states;
  std::vector<uint64_t> task_ids;
};

// Deterministic bytes: equal states and task ids, equal bytes. `task_ids`
// must be strictly ascending.
std::string EncodeRoundStatistics(const std::vector<AccumulatorState>& states,
                                  absl::Span<const uint64_t> task_ids = {});

// InvalidArgument for bytes EncodeRoundStatistics cannot have written
// (task ids not strictly ascending among them).
absl::StatusOr<StoredStatistics> DecodeStoredStatistics(std::string_view bytes);
// The states alone.
absl::StatusOr<std::vector<AccumulatorState>> DecodeRoundStatistics(
    std::string_view bytes);

}  // namespace ldp

#endif  // LDP_SERVER_STORE_STATISTICS_CODEC_H_
