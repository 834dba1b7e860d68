// Shape and bound checks of a stored accumulator state; see
// accumulator_state.h.
#include "common/estimation/accumulator_state.h"

#include <cmath>
#include <limits>
#include <string>

#include "absl/strings/str_cat.h"

namespace ldp {
namespace {

// absl::StrCat takes neither __int128 nor (in Debian's Abseil)
// std::string_view.
std::string Decimal(__int128 value) {
  if (value == 0) return "0";
  const bool negative = value < 0;
  unsigned __int128 magnitude = negative
                                    ? -static_cast<unsigned __int128>(value)
                                    : static_cast<unsigned __int128>(value);
  std::string digits;
  for (; magnitude != 0; magnitude /= 10) {
    digits.insert(digits.begin(), static_cast<char>('0' + magnitude % 10));
  }
  return negative ? "-" + digits : digits;
}

absl::Status LengthError(std::string_view accumulator, std::string_view what,
                         size_t found, size_t expected) {
  return absl::InvalidArgumentError(absl::StrCat(
      std::string(accumulator), " state: ", std::string(what), " has ", found,
      " values, expected ", expected,
      " (a state of another oracle, other parameters, or a damaged store)"));
}

}  // namespace

absl::Status ValidateStateShape(const AccumulatorState& state,
                                std::string_view accumulator,
                                const StateShape& shape, int64_t num_reports) {
  const std::string name(accumulator);
  if (state.num_reports < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        name, " state: num_reports is ", state.num_reports, ", negative"));
  }
  if (state.num_reports > std::numeric_limits<int64_t>::max() - num_reports) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, " state: num_reports ", state.num_reports,
                     " overflows the ", num_reports, " already held"));
  }
  if (state.counts.size() != shape.counts) {
    return LengthError(accumulator, "counts", state.counts.size(),
                       shape.counts);
  }
  if (state.reals.size() != shape.reals) {
    return LengthError(accumulator, "reals", state.reals.size(), shape.reals);
  }
  if (state.parts.size() != shape.parts) {
    return LengthError(accumulator, "parts", state.parts.size(), shape.parts);
  }
  for (size_t i = 0; i < state.reals.size(); ++i) {
    if (!std::isfinite(state.reals[i])) {
      return absl::InvalidArgumentError(absl::StrCat(
          name, " state: reals[", i, "] is ", state.reals[i], ", not finite"));
    }
  }
  return absl::OkStatus();
}

absl::Status ValidateStateRange(absl::Span<const int64_t> values,
                                std::string_view accumulator,
                                std::string_view what, int64_t lo, int64_t hi) {
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i] < lo || values[i] > hi) {
      return absl::InvalidArgumentError(absl::StrCat(
          std::string(accumulator), " state: ", std::string(what), " #", i,
          " is ", values[i], ", outside [", lo, ", ", hi, "]"));
    }
  }
  return absl::OkStatus();
}

absl::Status ValidateStateSum(absl::Span<const int64_t> values,
                              std::string_view accumulator,
                              std::string_view what, __int128 expected) {
  __int128 sum = 0;
  for (int64_t v : values) sum += v;
  if (sum != expected) {
    return absl::InvalidArgumentError(absl::StrCat(
        std::string(accumulator), " state: the ", std::string(what), " sum to ",
        Decimal(sum), "; its num_reports requires ", Decimal(expected)));
  }
  return absl::OkStatus();
}

void AppendInt128(__int128 value, std::vector<int64_t>& counts) {
  const auto bits = static_cast<unsigned __int128>(value);
  counts.push_back(static_cast<int64_t>(static_cast<uint64_t>(bits >> 64)));
  counts.push_back(static_cast<int64_t>(static_cast<uint64_t>(bits)));
}

__int128 Int128At(absl::Span<const int64_t> counts, size_t i) {
  return static_cast<__int128>(
      (static_cast<unsigned __int128>(static_cast<uint64_t>(counts[i])) << 64) |
      static_cast<uint64_t>(counts[i + 1]));
}

absl::Status MergeCounts(const AccumulatorState& state,
                         std::string_view accumulator, int64_t per_report,
                         std::vector<int64_t>* counts, int64_t* num_reports) {
  absl::Status valid = ValidateStateShape(
      state, accumulator, {.counts = counts->size()}, *num_reports);
  if (valid.ok()) {
    valid = ValidateStateRange(state.counts, accumulator, "count", 0,
                               state.num_reports);
  }
  if (valid.ok()) {
    valid =
        ValidateStateSum(state.counts, accumulator, "counts",
                         static_cast<__int128>(per_report) * state.num_reports);
  }
  if (!valid.ok()) return valid;
  for (size_t o = 0; o < counts->size(); ++o) (*counts)[o] += state.counts[o];
  *num_reports += state.num_reports;
  return absl::OkStatus();
}

}  // namespace ldp
