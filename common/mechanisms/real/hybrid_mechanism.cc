// The hybrid of the piecewise and Duchi mechanisms; see hybrid_mechanism.h.
#include "common/mechanisms/real/hybrid_mechanism.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/mechanisms/real/piecewise_quadratic.h"
#include "common/mechanisms/real/worst_case_memo.h"

namespace ldp {

absl::StatusOr<std::unique_ptr<HybridMechanism>> HybridMechanism::Create(
    const HybridOptions& options) {
  ASSIGN_OR_RETURN(
      std::unique_ptr<PiecewiseMechanism> piecewise,
      PiecewiseMechanism::Create({.epsilon = options.epsilon,
                                  .bound = options.bound,
                                  .num_cells = options.num_cells}));
  ASSIGN_OR_RETURN(std::unique_ptr<DuchiMechanism> duchi,
                   DuchiMechanism::Create(
                       {.epsilon = options.epsilon, .bound = options.bound}));
  // α need not be exact: any input-independent branch coin keeps ε.
  const CoinProbability alpha =
      options.epsilon > kPiecewiseThreshold
          ? CoinProbability::RoundDown(-std::expm1(-options.epsilon / 2))
          : CoinProbability::FromNumerator(0);
  auto mechanism = std::unique_ptr<HybridMechanism>(
      new HybridMechanism(std::move(piecewise), std::move(duchi), alpha));
  return mechanism;
}

double HybridMechanism::WorstCaseVariance() const {
  absl::call_once(worst_case_once_, [this] {
    // Duchi's variance follows from its bound and output magnitude, whose
    // square is its worst case.
    const std::string key =
        absl::StrCat("hybrid/", piecewise_->VarianceKey(), "/",
                     alpha_.numerator(), "/", ExactKeyPart(duchi_->bound()),
                     ExactKeyPart(duchi_->WorstCaseVariance()));
    worst_case_variance_ = MemoizedWorstCase(key, [this] {
      return MaxOfPiecewiseQuadratic([this](double x) { return Variance(x); },
                                     piecewise_->InputGrid());
    });
  });
  return worst_case_variance_;
}

HybridMechanism::HybridMechanism(std::unique_ptr<PiecewiseMechanism> piecewise,
                                 std::unique_ptr<DuchiMechanism> duchi,
                                 CoinProbability alpha)
    : piecewise_(std::move(piecewise)),
      duchi_(std::move(duchi)),
      alpha_(alpha),
      epsilon_(alpha.numerator() == 0
                   ? duchi_->epsilon()
                   : std::max(duchi_->epsilon(), piecewise_->epsilon())) {}

ScalarReport HybridMechanism::Randomize(double x, absl::BitGenRef gen) const {
  if (FlipCoin(alpha_, gen)) return piecewise_->Randomize(x, gen);
  const bool plus = duchi_->Randomize(x, gen).level == DuchiMechanism::kPlus;
  return {.level = plus ? duchi_plus_level() : duchi_minus_level()};
}

ScalarReport HybridMechanism::DuchiReport(int64_t level) const {
  return {.level = level == duchi_plus_level() ? DuchiMechanism::kPlus
                                               : DuchiMechanism::kMinus};
}

double HybridMechanism::Probability(double x,
                                    const ScalarReport& report) const {
  if (report.level >= 0 && report.level < piecewise_->num_cells()) {
    return alpha_.value() * piecewise_->Probability(x, report);
  }
  if (report.level == duchi_minus_level() ||
      report.level == duchi_plus_level()) {
    return alpha_.Complement().value() *
           duchi_->Probability(x, DuchiReport(report.level));
  }
  return 0;
}

absl::Status HybridMechanism::Validate(const ScalarReport& report) const {
  // A piecewise cell is invalid when the branch is never used: such a
  // report cannot be honest.
  const int64_t lowest = alpha_.numerator() == 0 ? duchi_minus_level() : 0;
  if (report.level < lowest || report.level > duchi_plus_level()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "hybrid report level must be in [", lowest, ", ", duchi_plus_level(),
        "] (piecewise cells, then Duchi's - and +), got ", report.level));
  }
  return absl::OkStatus();
}

double HybridMechanism::Decode(const ScalarReport& report) const {
  if (report.level < piecewise_->num_cells()) {
    return piecewise_->Decode(report);
  }
  return duchi_->Decode(DuchiReport(report.level));
}

// Validate accepts piecewise cells only when that branch is used.
double HybridMechanism::DecodeBound() const {
  const double duchi = duchi_->DecodeBound();
  return alpha_.numerator() == 0 ? duchi
                                 : std::max(duchi, piecewise_->DecodeBound());
}

double HybridMechanism::Variance(double x) const {
  const double alpha = alpha_.value();
  return alpha * piecewise_->Variance(x) + (1 - alpha) * duchi_->Variance(x);
}

}  // namespace ldp
