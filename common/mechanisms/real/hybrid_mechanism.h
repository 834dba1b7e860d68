// The hybrid mechanism of Wang et al. (ICDE 2019, arXiv 1907.00782): with
// probability α = 1 − e^{−ε/2} the agent runs the piecewise mechanism, and
// otherwise Duchi et al.'s one-bit mechanism, both at the full ε.
//
// Why: this α makes the x² terms of the two variances cancel, so the
// hybrid's variance is (nearly) constant in x and its worst case is below
// either component's. For ε ≤ 0.61 the paper shows Duchi alone is better,
// so α = 0 there.
//
// The branch coin is a CoinProbability drawn independently of x, so the
// output is a mixture of two ε-LDP randomizers with disjoint outputs, and
// the implemented ε is the larger of the implemented ε of the branches in
// use. Report levels say which branch produced them: piecewise cells are
// [0, L), Duchi's − and + are L and L + 1.
#ifndef LDP_COMMON_MECHANISMS_REAL_HYBRID_MECHANISM_H_
#define LDP_COMMON_MECHANISMS_REAL_HYBRID_MECHANISM_H_

#include <cstdint>
#include <memory>

#include "absl/base/call_once.h"
#include "absl/random/bit_gen_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/base/coin.h"
#include "common/mechanisms/real/duchi_mechanism.h"
#include "common/mechanisms/real/piecewise_mechanism.h"
#include "common/mechanisms/real/real_mechanism.h"

namespace ldp {

struct HybridOptions {
  double epsilon = 1.0;
  double bound = 1.0;
  // Output cells of the piecewise branch (PiecewiseOptions::num_cells).
  int64_t num_cells = 2048;
};

class HybridMechanism final : public RealMechanism {
 public:
  // Below this ε the piecewise branch is never used (the paper's ε*).
  static constexpr double kPiecewiseThreshold = 0.61;

  static absl::StatusOr<std::unique_ptr<HybridMechanism>> Create(
      const HybridOptions& options);

  RealMechanismKind kind() const override { return RealMechanismKind::kHybrid; }
  double epsilon() const override { return epsilon_; }
  double bound() const override { return duchi_->bound(); }

  ScalarReport Randomize(double x, absl::BitGenRef gen) const override;
  double Probability(double x, const ScalarReport& report) const override;
  absl::Status Validate(const ScalarReport& report) const override;
  double Decode(const ScalarReport& report) const override;
  double DecodeBound() const override;
  // α·Var_PM(x) + (1 − α)·Var_Duchi(x). Both branches are unbiased up to
  // their rounding coins' 2^-32 resolution, so the mixture's between-branch
  // term, α(1 − α)(mean_PM − mean_Duchi)², is below 1e-18·b² and omitted.
  double Variance(double x) const override;
  // Exact (O(grid) evaluations), computed on first use: agents build a
  // mechanism per task and never ask.
  double WorstCaseVariance() const override;

  // Pr[piecewise branch], the implemented α.
  CoinProbability piecewise_probability() const { return alpha_; }
  const PiecewiseMechanism& piecewise() const { return *piecewise_; }
  const DuchiMechanism& duchi() const { return *duchi_; }
  // The levels of Duchi's − and + reports (L and L + 1).
  int64_t duchi_minus_level() const { return piecewise_->num_cells(); }
  int64_t duchi_plus_level() const { return piecewise_->num_cells() + 1; }

 private:
  HybridMechanism(std::unique_ptr<PiecewiseMechanism> piecewise,
                  std::unique_ptr<DuchiMechanism> duchi, CoinProbability alpha);

  // The Duchi report a level stands for; only for Duchi levels.
  ScalarReport DuchiReport(int64_t level) const;

  std::unique_ptr<PiecewiseMechanism> piecewise_;
  std::unique_ptr<DuchiMechanism> duchi_;
  CoinProbability alpha_;
  double epsilon_;
  mutable absl::once_flag worst_case_once_;
  mutable double worst_case_variance_ = 0;
};

}  // namespace ldp

#endif  // LDP_COMMON_MECHANISMS_REAL_HYBRID_MECHANISM_H_
