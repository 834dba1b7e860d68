// `ldp plan`'s forecast and its tables; see the header.
#include "tools/plan_command/plan_command.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/base/status_macros.h"
#include "common/tasks/task.h"
#include "planning/planner.h"
#include "planning/study_forecast.h"
#include "proto/convert/study_convert.h"
#include "proto/convert/study_file.h"
#include "tools/plan_command/gamma2_text.h"
#include "tools/plan_command/shuffle_table.h"

namespace ldp {
namespace {

std::string Agents(int64_t n) {
  if (n == std::numeric_limits<int64_t>::max()) return "too many";
  return absl::StrFormat("%d", n);
}

double Epsilon(int64_t nanos) {
  return static_cast<double>(nanos) / static_cast<double>(kNanosPerEpsilon);
}

void PrintForecast(const StudyForecast& f, const ForecastOptions& options) {
  std::printf("budget: %.6g of the cap %.6g epsilon per agent (%.6g left)\n",
              Epsilon(f.epsilon_spent_nanos), Epsilon(f.epsilon_cap_nanos),
              Epsilon(f.epsilon_cap_nanos - f.epsilon_spent_nanos));
  std::printf("rounds: %d; split: %s — %s\n", f.num_rounds, f.split.c_str(),
              f.explanation.c_str());
  for (size_t i = 0; i < f.schedule.size(); ++i) {
    const ScheduledRound& r = f.schedule[i];
    std::printf("  round %zu \"%s\": agents in [%g, %g), epsilon %.6g each\n",
                i + 1, r.name.c_str(), r.slice.begin, r.slice.end,
                Epsilon(r.epsilon_nanos));
  }
  if (f.program_agents_needed > 0) {
    std::printf("the program's planner needs %s agents for its accuracy goal",
                Agents(f.program_agents_needed).c_str());
    if (f.central_learner_agents > 0) {
      std::printf("; central model: %s needs %s", f.central_learner.c_str(),
                  Agents(f.central_learner_agents).c_str());
    }
    std::printf("\n");
  }
  if (f.questions.empty()) return;
  std::printf(
      "\nper question, at confidence %g (half-width of one estimate; "
      "local = this study, central = Laplace by a trusted curator "
      "with the same per-agent epsilon split over the questions):\n",
      f.confidence);
  std::printf("%-16s %-9s %-34s %7s %6s", "question", "kind", "local mechanism",
              "eps", "share");
  if (options.num_agents > 0) {
    std::printf(" %12s %12s %9s", "local ±", "central ±", "ratio");
  }
  if (options.target_error > 0) {
    std::printf(" %14s %14s", "local n(τ)", "central n(τ)");
  }
  std::printf("\n");
  for (const QuestionForecast& q : f.questions) {
    std::printf("%-16s %-9s %-34.34s %7.4g %6.3f", q.question_id.c_str(),
                q.kind.c_str(), q.local.mechanism.c_str(), q.local.epsilon,
                q.share);
    if (options.num_agents > 0) {
      std::printf(" %12.5g %12.5g %9.3g", q.local.half_width,
                  q.central.half_width,
                  q.local.half_width / q.central.half_width);
    }
    if (options.target_error > 0) {
      std::printf(" %14s %14s", Agents(q.local.agents_needed).c_str(),
                  Agents(q.central.agents_needed).c_str());
    }
    std::printf("\n");
  }
  if (options.num_agents > 0) {
    for (const QuestionForecast& q : f.questions) {
      if (q.kind != "histogram") continue;
      std::printf(
          "%s: the top item is within %.5g (local arg max) vs %.5g "
          "(central exponential mechanism) of the largest frequency\n",
          q.question_id.c_str(), q.top_item_local_loss,
          q.top_item_central_loss);
    }
  }
}

// Each workload question's strategy as planned, what it is measured
// against, and where γ₂(W) lies: the bound every factorization mechanism's
// worst-case error is judged by (the server prints the same interval after
// `study create`).
void PrintStrategies(const StudySpec& spec, const RoundPlan& plan) {
  const std::vector<QuestionDecision>& decisions = plan.decisions().questions;
  for (size_t i = 0; i < decisions.size() && i < spec.questions.size(); ++i) {
    const auto* d = std::get_if<StrategyDecision>(&decisions[i].randomizer);
    if (d == nullptr) continue;
    std::printf(
        "%s: strategy %s, predicted per-user variance v_max %.4g, "
        "v_avg %.4g\n",
        spec.questions[i].id.c_str(), d->description.c_str(), d->v_max,
        d->v_avg);
    if (!d->best_fixed.empty()) {
      std::printf("  best fixed strategy: %s, v_max %.4g\n",
                  d->best_fixed.c_str(), d->best_fixed_v_max);
    }
    if (d->gamma2_upper > 0) {
      std::printf("  %s\n",
                  Gamma2IntervalText(d->gamma2_lower, d->gamma2_upper).c_str());
    } else {
      std::printf(
          "  gamma2(W) not computed (a named structured strategy, or "
          "a factorization too large for a task)\n");
    }
  }
}

// The smallest n meeting τ in simulation, for a scalar question: √n_q·|error|
// is scale-free, so its quantile q at the confidence gives n_q = (q/τ)²
// reports, n_q/share agents.
std::string SimulatedAgentsNeeded(const QuestionSimulation& s, double share,
                                  double confidence, double tau) {
  if (s.scaled_errors.empty() || tau <= 0) return "-";
  std::vector<double> errors = s.scaled_errors;
  const size_t k = std::min(
      errors.size() - 1,
      static_cast<size_t>(confidence * static_cast<double>(errors.size())));
  std::nth_element(errors.begin(),
                   errors.begin() + static_cast<std::ptrdiff_t>(k),
                   errors.end());
  const double q = errors[k];
  return Agents(static_cast<int64_t>(std::ceil((q / tau) * (q / tau) / share)));
}

void PrintSimulation(const std::vector<QuestionSimulation>& simulated,
                     const StudyForecast& forecast,
                     const ForecastOptions& options, int runs) {
  std::printf(
      "\nsimulation: %d runs of %lld synthetic agents (errors against "
      "each run's own population; prediction at that population):\n",
      runs, static_cast<long long>(options.num_agents));
  std::printf("%-16s %12s %14s %14s %8s %9s", "question", "reports/run",
              "predicted RMS", "observed RMS", "ratio", "coverage");
  if (options.target_error > 0)
    std::printf(" %14s %14s", "planned n(τ)", "simulated n(τ)");
  std::printf("\n");
  for (size_t i = 0; i < simulated.size(); ++i) {
    const QuestionSimulation& s = simulated[i];
    const QuestionForecast& f = forecast.questions[i];
    std::printf("%-16s %12.0f %14.5g %14.5g %8.3f %9.3f", s.question_id.c_str(),
                s.mean_reports, s.predicted_rmse, s.observed_rmse,
                s.observed_rmse / s.predicted_rmse, s.coverage);
    if (options.target_error > 0) {
      std::printf(" %14s %14s", Agents(f.local.agents_needed).c_str(),
                  SimulatedAgentsNeeded(s, f.share, forecast.confidence,
                                        options.target_error)
                      .c_str());
    }
    std::printf("\n");
  }
}

absl::StatusOr<StudySpec> ReadSpec(const std::string& study_file,
                                   double confidence) {
  ASSIGN_OR_RETURN(const v1::StudySpec proto, ReadStudySpecFile(study_file));
  ASSIGN_OR_RETURN(StudySpec spec, StudySpecFromProto(proto));
  if (confidence != 0) {
    if (!(confidence > 0 && confidence < 1)) {
      return absl::InvalidArgumentError(
          absl::StrCat("--confidence must be in (0, 1), got ", confidence));
    }
    spec.confidence = confidence;
  }
  return spec;
}

}  // namespace

absl::Status RunPlanCommand(const std::string& study_file,
                            const PlanCommandOptions& options) {
  ASSIGN_OR_RETURN(const StudySpec spec,
                   ReadSpec(study_file, options.confidence));
  if (options.simulate && options.agents < 1) {
    return absl::InvalidArgumentError("--simulate needs --agents=N (N >= 1)");
  }
  StrategyPlannerOptions strategies;
  strategies.cache_dir = options.strategy_cache_dir;
  strategies.optimizer_time_limit = options.optimizer_time_limit;
  // One plan for the forecast and the simulation (optimizing a workload
  // strategy can take minutes).
  std::optional<RoundPlan> plan;
  if (!spec.program.has_value()) {
    ASSIGN_OR_RETURN(plan, RoundPlan::Create(spec, strategies));
  }
  const RoundPlan* shared_plan = plan.has_value() ? &*plan : nullptr;
  const ForecastOptions forecast_options{.num_agents = options.agents,
                                         .target_error = options.target_error,
                                         .strategies = strategies,
                                         .plan = shared_plan};
  ASSIGN_OR_RETURN(const StudyForecast forecast,
                   ForecastStudy(spec, forecast_options));
  std::printf("study \"%s\"\n", spec.display_name.c_str());
  PrintForecast(forecast, forecast_options);
  if (shared_plan != nullptr) PrintStrategies(spec, *shared_plan);
  if (spec.shuffle.has_value()) {
    RETURN_IF_ERROR(PrintShuffleComparison(spec, forecast, forecast_options));
  }
  if (!options.simulate) return absl::OkStatus();
  ASSIGN_OR_RETURN(const std::vector<QuestionSimulation> simulated,
                   SimulateForecast(spec,
                                    {.num_agents = options.agents,
                                     .runs = options.runs,
                                     .seed = options.seed,
                                     .strategies = strategies,
                                     .plan = shared_plan},
                                    SyntheticPopulation(spec, options.seed)));
  PrintSimulation(simulated, forecast, forecast_options, options.runs);
  return absl::OkStatus();
}

}  // namespace ldp
