// The agent half of a workload strategy: the ε-LDP randomizer alone, in
// std and absl types, so that the agent builds it without Eigen or BLAS.
// The server's linear algebra (StrategyMechanism, strategy.h) extends this
// interface and delegates to the very same object, so agent and server
// draw and check reports with one implementation.
//
// Like the frequency oracles it is *transparent*: `Probability` gives
// Pr[R(x) = report] exactly, so tests can check the e^ε ratio bound by
// enumeration, and `epsilon()` is the ε it implements (never more than the
// ε it was created for).
#ifndef LDP_COMMON_WORKLOAD_STRATEGY_RANDOMIZERS_STRATEGY_RANDOMIZER_H_
#define LDP_COMMON_WORKLOAD_STRATEGY_RANDOMIZERS_STRATEGY_RANDOMIZER_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/random/bit_gen_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/workload/specs/strategy_spec.h"
#include "common/workload/specs/workload_report.h"

namespace ldp {

// Immutable, thread-safe.
class StrategyRandomizer {
 public:
  virtual ~StrategyRandomizer() = default;

  // "hierarchical b=4, OUE", "optimized matrix K=1024", ...
  virtual std::string Describe() const = 0;
  virtual uint32_t domain_size() const = 0;  // N
  // Implemented ε: max over x, x', report of ln(Pr[R(x)=r] / Pr[R(x')=r]).
  virtual double epsilon() const = 0;

  // Items ≥ N are clamped to N − 1 (DESIGN invariant 8).
  virtual WorkloadReport Randomize(uint32_t item,
                                   absl::BitGenRef gen) const = 0;
  // Exact Pr[R(item) = report] (a density in the sign bit for the vector
  // randomizer, conditioned on the public direction). Zero for reports R
  // never outputs.
  virtual double Probability(uint32_t item,
                             const WorkloadReport& report) const = 0;
  // InvalidArgument unless `report` has a shape this strategy can output.
  virtual absl::Status Validate(const WorkloadReport& report) const = 0;
};

// InvalidArgument (naming the field) for ε ≤ 0 or non-finite, N outside
// [1, kMaxWorkloadDomainSize], b < 2, N ≠ 2^d, k outside [1, d], weights
// not k positive finite numbers, a matrix of the wrong size or over
// kMaxInProcessStrategyMatrixEntries (tasks carry at most
// kMaxStrategyMatrixEntries; the wire edges check that), a Q that is not
// column-stochastic or whose implemented ε exceeds spec.epsilon, an
// all-zero Q row, a factorization column outside the unit ball. Every
// check a strategy makes lives here, so agent and server accept exactly
// the same specs.
absl::StatusOr<std::shared_ptr<const StrategyRandomizer>>
CreateStrategyRandomizer(const StrategySpec& spec);

}  // namespace ldp

#endif  // LDP_COMMON_WORKLOAD_STRATEGY_RANDOMIZERS_STRATEGY_RANDOMIZER_H_
