// Round statistics as stored: one database's accumulator states of a
// closed round, one per question (server/core/round_folder.h says
// who writes and merges them), as an ldp.storage.v1.RoundStatistics.
//
// Why a codec of its own: the states are plain numbers whose meaning the
// round's plan gives, so this file only moves them in and out of protobuf;
// whether they fit a question is AccumulatorState's merge to check.
#ifndef LDP_SERVER_STORE_STATISTICS_CODEC_H_
#define LDP_SERVER_STORE_STATISTICS_CODEC_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "common/estimation/accumulator_state.h"

namespace ldp {

// Deterministic bytes: equal states, equal bytes.
std::string EncodeRoundStatistics(const std::vector<AccumulatorState>& states);

// InvalidArgument for bytes EncodeRoundStatistics cannot have written.
absl::StatusOr<std::vector<AccumulatorState>> DecodeRoundStatistics(
    std::string_view bytes);

}  // namespace ldp

#endif  // LDP_SERVER_STORE_STATISTICS_CODEC_H_
