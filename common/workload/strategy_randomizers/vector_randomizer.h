// The ℓ2-ball randomizer of Duchi, Jordan and Wainwright for a
// factorization's strategy A (rank d × N, columns of norm ≤ 1), as the
// agent runs it: a public random direction (sent as a seed) and one sign.
// Without Eigen, for the agent; the server's VectorStrategy
// (vector_strategy.h) wraps this object and decodes with its directions.
#ifndef LDP_COMMON_WORKLOAD_STRATEGY_RANDOMIZERS_VECTOR_RANDOMIZER_H_
#define LDP_COMMON_WORKLOAD_STRATEGY_RANDOMIZERS_VECTOR_RANDOMIZER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/random/bit_gen_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/base/coin.h"
#include "common/workload/specs/strategy_spec.h"
#include "common/workload/strategy_randomizers/strategy_randomizer.h"

namespace ldp {

// The public unit direction (d values) a report's seed names; identical on
// agent and server (see vector_randomizer.cc).
std::vector<double> UnitDirection(uint64_t seed, int64_t d);

// Immutable; build it with CreateVectorRandomizer.
class VectorRandomizer final : public StrategyRandomizer {
 public:
  // Filled by CreateVectorRandomizer.
  struct Parts {
    StrategySpec spec;                  // with its matrix A (row-major d×N)
    std::vector<double> directions;     // N×d: a_x/‖a_x‖, item-major
    std::vector<CoinProbability> plus;  // per item: Pr[Ṽ = +a_x/‖a_x‖]
    CoinProbability agree = CoinProbability::Half();  // π
    double epsilon = 0;
  };
  explicit VectorRandomizer(Parts parts) : parts_(std::move(parts)) {}

  std::string Describe() const override;
  uint32_t domain_size() const override { return parts_.spec.domain_size; }
  double epsilon() const override { return parts_.epsilon; }
  // Three draws whatever the item is: the Ṽ coin, the public seed, the π
  // coin.
  WorkloadReport Randomize(uint32_t item, absl::BitGenRef gen) const override;
  double Probability(uint32_t item,
                     const WorkloadReport& report) const override;
  absl::Status Validate(const WorkloadReport& report) const override;

  int64_t rank() const { return parts_.spec.rows; }  // d
  const StrategySpec& spec() const { return parts_.spec; }
  // π = Pr[the sign agrees with Ṽ], an exact coin.
  CoinProbability agree() const { return parts_.agree; }

 private:
  // ⟨U, a_x/‖a_x‖⟩ for the direction U; one expression for Randomize and
  // Probability, so both see the same sign.
  double Projection(const std::vector<double>& u, int64_t x) const;

  Parts parts_;
};

// spec.kind == kFactorization; columns of A must have norm ≤ 1 (+1e-9).
absl::StatusOr<std::shared_ptr<const VectorRandomizer>> CreateVectorRandomizer(
    const StrategySpec& spec);

}  // namespace ldp

#endif  // LDP_COMMON_WORKLOAD_STRATEGY_RANDOMIZERS_VECTOR_RANDOMIZER_H_
