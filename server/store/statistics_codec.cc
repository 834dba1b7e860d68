// Round statistics as protobuf; see the header.
#include "server/store/statistics_codec.h"

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

std::string EncodeRoundStatistics(const std::vector<AccumulatorState>& states) {
  pb::RoundStatistics message;
  for (const AccumulatorState& state : states) {
    WriteState(state, *message.add_questions());
  }
  return DeterministicBytes(message);
}

absl::StatusOr<std::vector<AccumulatorState>> DecodeRoundStatistics(
    std::string_view bytes) {
  pb::RoundStatistics message;
  if (!message.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return absl::InvalidArgumentError("stored round statistics are malformed");
  }
  std::vector<AccumulatorState> states;
  states.reserve(static_cast<size_t>(message.questions_size()));
  for (const pb::AccumulatorState& question : message.questions()) {
    states.push_back(ReadState(question));
  }
  if (EncodeRoundStatistics(states) != bytes) {
    return absl::InvalidArgumentError(
        "stored round statistics are not in the form this server writes");
  }
  return states;
}

}  // namespace ldp
