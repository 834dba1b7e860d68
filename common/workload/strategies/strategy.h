// The contract every workload strategy (the A of W = R·A, with its
// ε-LDP randomizer) meets on the server: the randomizer the agent runs
// (strategy_randomizer.h) plus the linear structure the estimator needs.
//
// A strategy is a linear mechanism: each report decodes to an unbiased
// estimate of A·e_x for the agent's item x (A is k×N), the server averages
// them into ŷ ≈ A·h, and the workload estimator (workload_estimator.h)
// answers R·ŷ with R = W·B, B the weighted least-squares inverse of A.
// Three families implement it: grouped strategies (each agent samples one
// group of A's rows — a tree level, a Haar coefficient, a Fourier parity —
// and reports its row in that group through randomized response or unary
// encoding), an optimized finite output matrix Q, and a factorization with
// an ℓ2-ball vector randomizer.
//
// The agent half is not implemented here: every StrategyMechanism wraps
// the family's StrategyRandomizer, the very object an agent builds, and
// forwards to it, so there is one Randomize, Probability and Validate per
// family and the agent needs no Eigen.
#ifndef LDP_COMMON_WORKLOAD_STRATEGIES_STRATEGY_H_
#define LDP_COMMON_WORKLOAD_STRATEGIES_STRATEGY_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "Eigen/Core"
#include "absl/random/bit_gen_ref.h"
#include "absl/status/status.h"
#include "absl/types/span.h"
#include "common/estimation/accumulator_state.h"
#include "common/workload/specs/workload_report.h"
#include "common/workload/strategy_randomizers/strategy_randomizer.h"

namespace ldp {

// Server-side sufficient statistics of one strategy's reports. Mergeable,
// thread-compatible.
class StrategyAccumulator {
 public:
  virtual ~StrategyAccumulator() = default;
  // Validates and counts one report; an invalid report changes nothing.
  virtual absl::Status Add(const WorkloadReport& report) = 0;
  // InvalidArgument unless `other` comes from the same strategy.
  virtual absl::Status Merge(const StrategyAccumulator& other) = 0;
  virtual int64_t num_reports() const = 0;
  // ŷ, the unbiased estimate of A·h (k values). Grouped strategies
  // normalize each group by its own report count (a group with no reports
  // estimates zeros). Empty accumulator: zeros.
  virtual Eigen::VectorXd Estimate() const = 0;

  // The sufficient statistics as plain numbers (accumulator_state.h), so a
  // shard's statistics can be stored and merged later. Each accumulator
  // documents its layout; none holds strategy parameters.
  virtual AccumulatorState State() const = 0;
  // Adds a state read from an accumulator of the same strategy:
  // a.MergeState(b.State()) leaves `a` exactly as a.Merge(b) would (the same
  // Estimate, bit for bit). A trust boundary, as for frequency
  // accumulators (frequency_oracle.h): InvalidArgument, and no change,
  // unless the state has exactly this accumulator's shape, num_reports ≥ 0,
  // counts within what num_reports allows and finite reals.
  virtual absl::Status MergeState(const AccumulatorState& state) = 0;
};

class StrategyMechanism : public StrategyRandomizer {
 public:
  // --- Agent side, the wrapped randomizer's.
  std::string Describe() const final { return randomizer_->Describe(); }
  uint32_t domain_size() const final { return randomizer_->domain_size(); }
  double epsilon() const final { return randomizer_->epsilon(); }
  WorkloadReport Randomize(uint32_t item, absl::BitGenRef gen) const final {
    return randomizer_->Randomize(item, gen);
  }
  double Probability(uint32_t item, const WorkloadReport& report) const final {
    return randomizer_->Probability(item, report);
  }
  absl::Status Validate(const WorkloadReport& report) const final {
    return randomizer_->Validate(report);
  }
  const std::shared_ptr<const StrategyRandomizer>& randomizer() const {
    return randomizer_;
  }

  // --- Server side: the linear structure.
  // k, the number of rows of A.
  virtual uint32_t output_dimension() const = 0;
  // A (k×N): E[decoded report | x] = A·e_x.
  virtual Eigen::MatrixXd StrategyMatrix() const = 0;
  // Positive weights (k values) for the weighted least-squares inverse of
  // A: the inverse per-user variance of each coordinate of ŷ at uniform data.
  virtual Eigen::VectorXd ReconstructionWeights() const = 0;
  virtual std::unique_ptr<StrategyAccumulator> NewAccumulator() const = 0;

  // Per-user variance v = n·Var(r·ŷ) of the answers r_j·ŷ for a block of
  // reconstruction rows (b×k): at point-mass data (all agents hold x),
  // b×N; and at histogram h (N values summing to 1), b values.
  virtual Eigen::MatrixXd PointMassVariances(
      const Eigen::MatrixXd& rows) const = 0;
  virtual Eigen::VectorXd Variances(const Eigen::MatrixXd& rows,
                                    const Eigen::VectorXd& h) const = 0;
  // The same at n agents drawn iid from h: n·E[(r·ŷ − r·A·h)²] for ŷ as the
  // server computes it. Variances is its limit as n grows; they agree for
  // strategies whose ŷ is a plain average of decoded reports (the default).
  // Grouped strategies normalize each group by its random report count
  // and estimate an empty group as zeros, which costs more when n·π_g is
  // small (Haar's finest coefficients at n = 10^4).
  virtual Eigen::VectorXd FiniteSampleVariances(const Eigen::MatrixXd& rows,
                                                const Eigen::VectorXd& h,
                                                int64_t n) const {
    return Variances(rows, h);
  }

  // Draws ŷ exactly as the server would compute it from `counts[x]` agents
  // holding each x (N values), without randomizing agent by agent: the
  // sufficient statistics are sampled from their exact joint distribution
  // (binomial and multinomial counts). For benchmarks and statistical tests
  // at n = 10^6; the vector randomizer, whose statistic is continuous,
  // samples its agents one by one.
  virtual Eigen::VectorXd SampleEstimate(absl::Span<const int64_t> counts,
                                         absl::BitGenRef gen) const = 0;
  // The same for n agents drawn iid from the histogram h (N values summing
  // to 1). The default draws multinomial counts and calls SampleEstimate;
  // a strategy whose reports are iid from a mixture draws them directly.
  virtual Eigen::VectorXd SampleIidEstimate(const Eigen::VectorXd& h, int64_t n,
                                            absl::BitGenRef gen) const;

 protected:
  explicit StrategyMechanism(
      std::shared_ptr<const StrategyRandomizer> randomizer)
      : randomizer_(std::move(randomizer)) {}

 private:
  std::shared_ptr<const StrategyRandomizer> randomizer_;
};

// Counts of n draws from the distribution p (sequential binomials; the
// last category takes the rest). For the samplers above.
std::vector<int64_t> SampleMultinomialCounts(const Eigen::VectorXd& p,
                                             int64_t n, absl::BitGenRef gen);

}  // namespace ldp

#endif  // LDP_COMMON_WORKLOAD_STRATEGIES_STRATEGY_H_
