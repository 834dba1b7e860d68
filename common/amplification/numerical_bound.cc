// The numerical amplification bound; see the header. The divergence sum
// visits the blocks from the heaviest outward, downward first (D_c grows as
// c falls), so a too-small ε is rejected after a few blocks.
#include "common/amplification/numerical_bound.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/amplification/clone_count.h"
#include "common/amplification/clone_divergence.h"
#include "common/amplification/closed_form.h"
#include "common/amplification/shuffle_inputs.h"
#include "common/base/status_macros.h"

namespace ldp {
namespace {

constexpr double kAbsoluteTolerance = 1e-12;

// The bound on δ(ε) over `blocks`; returns early, with a partial sum already
// above it, once the sum exceeds `stop_above`.
double DeltaOverBlocks(double epsilon0, double epsilon,
                       const CloneCountBlocks& blocks, double stop_above) {
  const CloneDivergence divergence(epsilon0, epsilon);
  std::vector<double> at_edge(blocks.edges.size(), -1);
  auto edge_value = [&](size_t i) {
    if (at_edge[i] < 0) at_edge[i] = divergence.UpperBound(blocks.edges[i]);
    return at_edge[i];
  };
  double total = blocks.outside_mass;  // D_c ≤ 1 outside the blocks
  auto add_block = [&](size_t i) {
    total += blocks.masses[i] * std::max(edge_value(i), edge_value(i + 1));
    return total > stop_above;
  };
  for (size_t i = blocks.peak + 1; i-- > 0;) {
    if (add_block(i)) return total;
  }
  for (size_t i = blocks.peak + 1; i < blocks.masses.size(); ++i) {
    if (add_block(i)) return total;
  }
  return total;
}

absl::Status ValidateOptions(const NumericalBoundOptions& options) {
  if (options.step < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "shuffle amplification: step must be >= 0 (0 picks one), got ",
        options.step));
  }
  if (!(options.relative_tolerance >= 1e-12 &&
        options.relative_tolerance <= 0.1)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "shuffle amplification: relative_tolerance must be in [1e-12, 0.1], "
        "got ",
        options.relative_tolerance));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<double> ShuffledDeltaBound(double epsilon0, int64_t n,
                                          double epsilon, double outside_mass,
                                          int64_t step) {
  RETURN_IF_ERROR(ValidateEpsilon0(epsilon0));
  RETURN_IF_ERROR(ValidateShuffledReports(n));
  if (!(epsilon >= 0) || !std::isfinite(epsilon)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "shuffle amplification: epsilon must be finite and >= 0, got ",
        epsilon));
  }
  if (!(outside_mass > 0 && outside_mass < 1)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "shuffle amplification: outside_mass must be in (0, 1), got ",
        outside_mass));
  }
  RETURN_IF_ERROR(ValidateOptions({.step = step}));
  const CloneCountBlocks blocks =
      MakeCloneCountBlocks(epsilon0, n, step, outside_mass);
  return DeltaOverBlocks(epsilon0, epsilon, blocks, INFINITY);
}

absl::StatusOr<double> NumericalShuffledEpsilon(
    double epsilon0, int64_t n, double delta,
    const NumericalBoundOptions& options) {
  RETURN_IF_ERROR(ValidateShuffleInputs(epsilon0, n, delta));
  RETURN_IF_ERROR(ValidateOptions(options));
  const CloneCountBlocks blocks = MakeCloneCountBlocks(
      epsilon0, n, options.step, kTailShareOfDelta * delta);
  auto holds = [&](double epsilon) {
    return DeltaOverBlocks(epsilon0, epsilon, blocks, delta) <= delta;
  };
  double low = 0;
  double high = epsilon0;  // holds with δ = 0
  // The closed form, where it applies, is usually a good first upper end.
  if (ClosedFormApplies(epsilon0, n, delta)) {
    ASSIGN_OR_RETURN(const double closed,
                     ClosedFormShuffledEpsilon(epsilon0, n, delta));
    (holds(closed) ? high : low) = closed;
  }
  while (high - low >
         std::max(options.relative_tolerance * high, kAbsoluteTolerance)) {
    const double middle = low + (high - low) / 2;
    (holds(middle) ? high : low) = middle;
  }
  return high;
}

absl::StatusOr<double> ShuffledEpsilon(double epsilon0, int64_t n,
                                       double delta) {
  ASSIGN_OR_RETURN(const double numerical,
                   NumericalShuffledEpsilon(epsilon0, n, delta));
  ASSIGN_OR_RETURN(const double closed,
                   ClosedFormShuffledEpsilon(epsilon0, n, delta));
  return std::min(numerical, closed);
}

}  // namespace ldp
