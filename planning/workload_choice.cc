// A workload question's strategy, chosen or named; see the header.
#include "planning/workload_choice.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/workload/strategies/strategy_factory.h"
#include "common/workload/strategies/workload.h"

namespace ldp {
namespace {

ChosenStrategy FromCandidate(
    const StrategyCandidate& candidate,
    std::shared_ptr<const WorkloadEstimator> estimator) {
  return {.decision = {.spec = candidate.spec,
                       .description = candidate.description,
                       .v_max = candidate.variance.worst(),
                       .v_avg = candidate.variance.v_avg},
          .estimator = std::move(estimator)};
}

// A strategy of the named kind the planner did not propose (e.g. a
// branching it did not try), built with default parameters: Fourier over
// the workload's bits up to its order (or over all log2 N bits), uniform
// level weights.
absl::StatusOr<ChosenStrategy> BuildNamedStrategy(const StrategyChoice& choice,
                                                  const Workload& workload,
                                                  double epsilon) {
  StrategySpec spec;
  spec.kind = choice.kind;
  spec.epsilon = epsilon;
  spec.domain_size = workload.domain_size();
  spec.branching = choice.branching;
  if (choice.kind == StrategyKind::kHierarchical && spec.branching == 0) {
    spec.branching = 2;
  }
  if (choice.kind == StrategyKind::kFourier) {
    const WorkloadSpec& w = workload.spec();
    if (w.num_bits > 0) {
      spec.num_bits = w.num_bits;
      spec.order = w.order;
    } else {
      while ((uint64_t{1} << spec.num_bits) < workload.domain_size()) {
        ++spec.num_bits;
      }
      spec.order = spec.num_bits;
    }
    spec.level_weights.assign(spec.order, 1.0);
  }
  if (IsAttributeKind(choice.kind)) {
    spec.attribute_sizes = WorkloadAttributeSizes(workload);
    if (spec.attribute_sizes.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the ", std::string(StrategyKindName(choice.kind)),
          " strategy answers 1-way marginals (ATTRIBUTE_MARGINALS, or "
          "MARGINALS of order 1), not ",
          workload.Describe()));
    }
  }
  ASSIGN_OR_RETURN(std::shared_ptr<const StrategyMechanism> strategy,
                   CreateStrategy(spec));
  absl::StatusOr<std::shared_ptr<const WorkloadEstimator>> estimator =
      WorkloadEstimator::Create(workload, strategy);
  if (!estimator.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the ", std::string(StrategyKindName(choice.kind)),
                     " strategy cannot answer ", workload.Describe(), ": ",
                     estimator.status().message()));
  }
  const VarianceSummary variance = (*estimator)->Variance();
  return ChosenStrategy{.decision = {.spec = std::move(spec),
                                     .description = strategy->Describe(),
                                     .v_max = variance.worst(),
                                     .v_avg = variance.v_avg},
                        .estimator = *std::move(estimator)};
}

// Whether the analyst's choice names `spec`: its kind (SAMPLING_FAKE_DATA
// names all three RS+FD forms, the planner taking the most accurate) and,
// if given, its branching.
bool Names(const StrategyChoice& choice, const StrategySpec& spec) {
  if (choice.kind == StrategyKind::kRandomSamplingFakeData) {
    return IsFakeDataKind(spec.kind);
  }
  return spec.kind == choice.kind &&
         (choice.branching == 0 || spec.branching == choice.branching);
}

// Fills in what the chosen strategy is measured against (StrategyDecision).
ChosenStrategy WithComparison(ChosenStrategy chosen, const StrategyPlan& plan) {
  StrategyDecision& d = chosen.decision;
  for (const StrategyCandidate& c : plan.candidates) {
    if (c.spec.kind == StrategyKind::kFactorization) {
      d.gamma2_lower = c.gamma2_lower;
      d.gamma2_upper = c.gamma2_upper;
      continue;
    }
    if (c.spec.kind == StrategyKind::kMatrix) continue;
    if (d.best_fixed.empty() || c.variance.worst() < d.best_fixed_v_max) {
      d.best_fixed = c.description;
      d.best_fixed_v_max = c.variance.worst();
    }
  }
  return chosen;
}

}  // namespace

absl::StatusOr<ChosenStrategy> PlanWorkload(
    const WorkloadQuestion& question, double epsilon,
    const StrategyPlannerOptions& base) {
  ASSIGN_OR_RETURN(const Workload workload,
                   Workload::Create(question.workload));
  StrategyPlannerOptions options = base;
  options.wire_sized_only = true;  // the task must carry it
  if (!question.strategy.has_value()) {
    ASSIGN_OR_RETURN(StrategyPlan plan,
                     PlanStrategy(workload, epsilon, options));
    return WithComparison(FromCandidate(plan.chosen, plan.estimator), plan);
  }
  // Named: the planner's best candidate of that kind (and branching), with
  // only the optimizer that kind needs (if the options allow it at all).
  const StrategyChoice& choice = *question.strategy;
  options.include_optimized_matrix =
      base.include_optimized_matrix && choice.kind == StrategyKind::kMatrix;
  options.include_factorization =
      base.include_factorization && choice.kind == StrategyKind::kFactorization;
  ASSIGN_OR_RETURN(StrategyPlan plan, PlanStrategy(workload, epsilon, options));
  for (const StrategyCandidate& c : plan.candidates) {
    if (!Names(choice, c.spec)) continue;
    return WithComparison(
        FromCandidate(c, c.spec == plan.chosen.spec ? plan.estimator : nullptr),
        plan);
  }
  if (choice.kind == StrategyKind::kMatrix ||
      choice.kind == StrategyKind::kFactorization) {
    return absl::InvalidArgumentError(absl::StrCat(
        "no ", std::string(StrategyKindName(choice.kind)), " strategy for ",
        workload.Describe(), " fits in a task (at most ",
        kMaxStrategyMatrixEntries,
        " matrix entries); choose another strategy or let the planner choose"));
  }
  ASSIGN_OR_RETURN(ChosenStrategy named,
                   BuildNamedStrategy(choice, workload, epsilon));
  return WithComparison(std::move(named), plan);
}

}  // namespace ldp
