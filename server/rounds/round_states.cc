// A round's accumulators as stored bytes; see the header.
#include "server/rounds/round_states.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "server/store/statistics_codec.h"

namespace ldp {

std::vector<TaskAccumulator> EmptyAccumulators(const RoundRuntime& round) {
  std::vector<TaskAccumulator> accumulators;
  accumulators.reserve(static_cast<size_t>(round.num_questions()));
  for (int q = 0; q < round.num_questions(); ++q) {
    accumulators.push_back(round.NewAccumulator(q));
  }
  return accumulators;
}

std::string EncodeAccumulators(const std::vector<TaskAccumulator>& questions,
                               absl::Span<const uint64_t> task_ids) {
  std::vector<AccumulatorState> states;
  states.reserve(questions.size());
  for (const TaskAccumulator& accumulator : questions) {
    states.push_back(accumulator.State());
  }
  return EncodeRoundStatistics(states, task_ids);
}

absl::StatusOr<std::vector<uint64_t>> MergeEncoded(
    std::string_view bytes, std::vector<TaskAccumulator>& into) {
  ASSIGN_OR_RETURN(StoredStatistics stored, DecodeStoredStatistics(bytes));
  if (stored.states.size() != into.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        stored.states.size(), " questions, the round has ", into.size()));
  }
  for (size_t q = 0; q < into.size(); ++q) {
    RETURN_IF_ERROR(into[q].MergeState(stored.states[q]));
  }
  return std::move(stored.task_ids);
}

}  // namespace ldp
