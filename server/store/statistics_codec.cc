// Round statistics as protobuf; see the header.
#include "server/store/statistics_codec.h"

#include <algorithm>
#include <functional>
#include <utility>

#include "proto/convert/deterministic_bytes.h"
#include "proto/ldp/storage/v1/storage.pb.h"

namespace ldp {
namespace {

namespace pb = ::ldp::storage::v1;

void WriteState(const AccumulatorState& state, pb::AccumulatorState& out) {
  out.set_num_reports(state.num_reports);
  out.mutable_counts()->Add(state.counts.begin(), state.counts.end());
  out.mutable_reals()->Add(state.reals.begin(), state.reals.end());
  for (const AccumulatorState& part : state.parts) {
    WriteState(part, *out.add_parts());
  }
}

AccumulatorState ReadState(const pb::AccumulatorState& in) {
  AccumulatorState state;
  state.num_reports = in.num_reports();
  state.counts.assign(in.counts().begin(), in.counts().end());
  state.reals.assign(in.reals().begin(), in.reals().end());
  state.parts.reserve(static_cast<size_t>(in.parts_size()));
  for (const pb::AccumulatorState& part : in.parts()) {
    state.parts.push_back(ReadState(part));
  }
  return state;
}

}  // namespace

std::string EncodeRoundStatistics(const std::vector<AccumulatorState>& states,
                                  absl::Span<const uint64_t> task_ids) {
  pb::RoundStatistics message;
  for (const AccumulatorState& state : states) {
    WriteState(state, *message.add_questions());
  }
  message.mutable_task_ids()->Add(task_ids.begin(), task_ids.end());
  return DeterministicBytes(message);
}

absl::StatusOr<StoredStatistics> DecodeStoredStatistics(
    std::string_view bytes) {
  pb::RoundStatistics message;
  if (!message.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return absl::InvalidArgumentError("stored round statistics are malformed");
  }
  StoredStatistics stored;
  stored.states.reserve(static_cast<size_t>(message.questions_size()));
  for (const pb::AccumulatorState& question : message.questions()) {
    stored.states.push_back(ReadState(question));
  }
  stored.task_ids.assign(message.task_ids().begin(), message.task_ids().end());
  if (std::adjacent_find(stored.task_ids.begin(), stored.task_ids.end(),
                         std::greater_equal<>()) != stored.task_ids.end() ||
      EncodeRoundStatistics(stored.states, stored.task_ids) != bytes) {
    return absl::InvalidArgumentError(
        "stored round statistics are not in the form this server writes");
  }
  return stored;
}

absl::StatusOr<std::vector<AccumulatorState>> DecodeRoundStatistics(
    std::string_view bytes) {
  absl::StatusOr<StoredStatistics> stored = DecodeStoredStatistics(bytes);
  if (!stored.ok()) return stored.status();
  return std::move(stored->states);
}

}  // namespace ldp
