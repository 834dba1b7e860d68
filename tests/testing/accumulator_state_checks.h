// Checks of an accumulator's stored state (accumulator_state.h) that do not
// depend on its kind: a state damaged in any of the ways a store could
// damage it is refused and changes nothing. The kind-specific checks (a
// round trip, halves merged through their states) live beside each kind's
// merge checks: frequency_oracle_checks.h, strategy_checks.h.
#ifndef LDP_TESTS_TESTING_ACCUMULATOR_STATE_CHECKS_H_
#define LDP_TESTS_TESTING_ACCUMULATOR_STATE_CHECKS_H_

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "common/estimation/accumulator_state.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace ldp::testing {

// The first state, depth first from `state`, for which `has` holds (a
// grouped strategy keeps its counts in its parts); null if none. `State`
// is AccumulatorState, const or not.
template <typename State>
State* FirstStateWith(State& state,
                      const std::function<bool(const AccumulatorState&)>& has) {
  if (has(state)) return &state;
  for (State& part : state.parts) {
    if (State* found = FirstStateWith(part, has)) return found;
  }
  return nullptr;
}

// `good` (the state of an accumulator holding reports) damaged one way at
// a time, each with its name. Every accumulator must refuse all of them.
// The first count of every layout is one that cannot be negative nor
// exceed its num_reports (an item, output, row or cohort count).
inline std::vector<std::pair<std::string, AccumulatorState>> MalformedStates(
    const AccumulatorState& good) {
  std::vector<std::pair<std::string, AccumulatorState>> bad;
  const auto add = [&](std::string name,
                       const std::function<void(AccumulatorState&)>& damage) {
    AccumulatorState state = good;
    damage(state);
    bad.emplace_back(std::move(name), std::move(state));
  };
  add("negative num_reports", [](AccumulatorState& s) { s.num_reports = -1; });
  add("num_reports that overflows", [](AccumulatorState& s) {
    s.num_reports = std::numeric_limits<int64_t>::max();
  });
  add("one count too many", [](AccumulatorState& s) { s.counts.push_back(0); });
  add("one real too many", [](AccumulatorState& s) { s.reals.push_back(0); });
  add("one part too many", [](AccumulatorState& s) { s.parts.emplace_back(); });
  if (!good.counts.empty()) {
    add("one count too few", [](AccumulatorState& s) { s.counts.pop_back(); });
  }
  if (!good.reals.empty()) {
    add("one real too few", [](AccumulatorState& s) { s.reals.pop_back(); });
  }
  if (!good.parts.empty()) {
    add("one part too few", [](AccumulatorState& s) { s.parts.pop_back(); });
  }
  const auto has_counts = [](const AccumulatorState& s) {
    return !s.counts.empty();
  };
  if (FirstStateWith(good, has_counts)) {
    add("a negative count", [&](AccumulatorState& s) {
      FirstStateWith(s, has_counts)->counts[0] = -1;
    });
    add("a count above num_reports", [&](AccumulatorState& s) {
      AccumulatorState* leaf = FirstStateWith(s, has_counts);
      leaf->counts[0] = leaf->num_reports + 1;
    });
  }
  const auto has_reals = [](const AccumulatorState& s) {
    return !s.reals.empty();
  };
  if (FirstStateWith(good, has_reals)) {
    add("a NaN real", [&](AccumulatorState& s) {
      FirstStateWith(s, has_reals)->reals[0] = std::nan("");
    });
    add("an infinite real", [&](AccumulatorState& s) {
      FirstStateWith(s, has_reals)->reals[0] =
          std::numeric_limits<double>::infinity();
    });
  }
  return bad;
}

// Each of MalformedStates(good) merged into `target` is InvalidArgument
// and leaves its state as it was. `target` must hold reports (an overflow
// of num_reports needs some), and `Accumulator` has State() and
// MergeState().
template <typename Accumulator>
void ExpectMalformedStatesRejected(Accumulator& target,
                                   const AccumulatorState& good) {
  const AccumulatorState before = target.State();
  for (const auto& [name, state] : MalformedStates(good)) {
    SCOPED_TRACE(name);
    EXPECT_THAT(target.MergeState(state),
                StatusIs(absl::StatusCode::kInvalidArgument));
    EXPECT_TRUE(target.State() == before);
  }
}

// Stored states, for accumulators of one kind, `make()` giving an empty
// one, where `all` holds the reports of `left` and `right` together:
// all.State() merged into an empty accumulator reproduces `all` exactly;
// the halves' states merged into `via_states` (empty), with an empty
// accumulator's state, estimate exactly what `all` does; and every
// malformed state (MalformedStates) is InvalidArgument and changes
// nothing. `expect_same(a, b)` checks two estimates are equal.
template <typename Accumulator, typename Make, typename ExpectSame>
void ExpectStatesMergeLikeAccumulatorsOf(const Make& make,
                                         const Accumulator& all,
                                         const Accumulator& left,
                                         const Accumulator& right,
                                         Accumulator& via_states,
                                         const ExpectSame& expect_same) {
  const AccumulatorState state = all.State();
  EXPECT_EQ(state.num_reports, all.num_reports());
  const auto copy = make();
  ASSERT_OK(copy->MergeState(state));
  EXPECT_TRUE(copy->State() == state);
  expect_same(copy->Estimate(), all.Estimate());
  ASSERT_OK(via_states.MergeState(left.State()));
  ASSERT_OK(via_states.MergeState(right.State()));
  ASSERT_OK(via_states.MergeState(make()->State()));
  EXPECT_EQ(via_states.num_reports(), all.num_reports());
  expect_same(via_states.Estimate(), all.Estimate());
  ExpectMalformedStatesRejected(*copy, state);
  expect_same(copy->Estimate(), all.Estimate());
}

}  // namespace ldp::testing

#endif  // LDP_TESTS_TESTING_ACCUMULATOR_STATE_CHECKS_H_
