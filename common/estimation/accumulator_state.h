// An accumulator's sufficient statistics as plain numbers.
//
// Why: a server keeps statistics per shard and per database, stores them,
// and merges them later, long after the accumulators that gathered them
// are gone. Every accumulator (frequency_oracle.h, strategy.h,
// mean_accumulator.h) reads its statistics out into this one shape and
// merges one back in, so a single storage format holds every oracle and a
// stored state can be checked against the accumulator it is merged into
// before it changes anything. Each accumulator documents its layout.
//
// A state carries no oracle parameters: as with Merge, pairing a state with
// an accumulator of the oracle that wrote it is the caller's job. What the
// numbers themselves can show (lengths, signs, bounds implied by
// num_reports) the accumulator checks, with the helpers below.
#ifndef LDP_COMMON_ESTIMATION_ACCUMULATOR_STATE_H_
#define LDP_COMMON_ESTIMATION_ACCUMULATOR_STATE_H_

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"

namespace ldp {

struct AccumulatorState {
  int64_t num_reports = 0;
  std::vector<int64_t> counts;  // integer sufficient statistics
  // Real-valued sufficient statistics (a compensated sum is its sum, then
  // its compensation).
  std::vector<double> reals;
  // Nested accumulators (a grouped strategy's groups), in order.
  std::vector<AccumulatorState> parts;
  friend bool operator==(const AccumulatorState&,
                         const AccumulatorState&) = default;
};

// The lengths an accumulator's parameters fix.
struct StateShape {
  size_t counts = 0;
  size_t reals = 0;
  size_t parts = 0;
};

// InvalidArgument unless `state` has exactly `shape`, num_reports ≥ 0 that
// can be added to the `num_reports` already held without overflow, and
// finite reals. Messages start with `accumulator` (what the state was
// offered to) and name the vector and the lengths found and expected.
absl::Status ValidateStateShape(const AccumulatorState& state,
                                std::string_view accumulator,
                                const StateShape& shape, int64_t num_reports);

// InvalidArgument unless every values[i] lies in [lo, hi]; `what` names the
// values in the message (e.g. "item count").
absl::Status ValidateStateRange(absl::Span<const int64_t> values,
                                std::string_view accumulator,
                                std::string_view what, int64_t lo, int64_t hi);

// InvalidArgument unless the values sum to exactly `expected` (summed
// without overflow).
absl::Status ValidateStateSum(absl::Span<const int64_t> values,
                              std::string_view accumulator,
                              std::string_view what, __int128 expected);

// Exact sums are kept in 128 bits and stored as two counts: the high, then
// the low 64 bits.
void AppendInt128(__int128 value, std::vector<int64_t>& counts);
// The 128-bit value at counts[i] and counts[i + 1] (which must exist).
__int128 Int128At(absl::Span<const int64_t> counts, size_t i);

// Merges the state of an accumulator that counts, for each report, exactly
// `per_report` of counts->size() items or outputs (counts: one per item,
// each at most num_reports, summing to per_report · num_reports) into
// `*counts` and `*num_reports`, after the checks above; InvalidArgument
// and no change otherwise.
absl::Status MergeCounts(const AccumulatorState& state,
                         std::string_view accumulator, int64_t per_report,
                         std::vector<int64_t>* counts, int64_t* num_reports);

}  // namespace ldp

#endif  // LDP_COMMON_ESTIMATION_ACCUMULATOR_STATE_H_
