// ldp-plan (also `ldp plan`): before a study is deployed, how many agents
// it needs, what error it will have, what it costs each agent, and what a
// trusted curator would achieve instead — computed by the server's own
// planner and randomizers (server/study_forecast.h), no server needed.
// --simulate runs the study in process on a synthetic population and prints
// predicted against observed error.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "common/flags_usage.h"
#include "common/task.h"
#include "proto/convert/study_convert.h"
#include "proto/convert/study_file.h"
#include "server/planner.h"
#include "server/study_forecast.h"

ABSL_FLAG(int64_t, agents, 0,
          "Agents the study will reach: print the error at this n (0 = only "
          "the agents needed for --target_error).");
ABSL_FLAG(double, target_error, 0,
          "τ > 0: print the agents needed for every estimate to be within τ "
          "(answers as fractions, or in a query's own units).");
ABSL_FLAG(double, confidence, 0,
          "1 − β of every half-width and of --target_error (0 = the study's).");
ABSL_FLAG(bool, simulate, false,
          "Also run the study --runs times on a synthetic population of "
          "--agents agents, in process, and print predicted vs observed error.");
ABSL_FLAG(int, runs, 200, "Runs of --simulate.");
ABSL_FLAG(uint64_t, seed, 1, "Seed of --simulate's population and coins.");
ABSL_FLAG(std::string, strategy_cache_dir, "",
          "Where optimized workload strategies are cached (share it with "
          "ldp-server's, <db>.strategies, to plan each workload once).");
ABSL_FLAG(int, optimizer_minutes, 10,
          "Time limit of each workload strategy optimization.");

namespace ldp {
namespace {

constexpr char kUsage[] =
    "Forecast a study before deploying it: error at n agents or agents "
    "needed for a target error, per question, next to the central-model "
    "(trusted curator) baseline; optionally check the forecast by "
    "simulation.\n"
    "Usage: ldp plan STUDY_FILE [--agents=N] [--target_error=TAU]\n"
    "                 [--confidence=P] [--simulate [--runs=R] [--seed=S]]\n"
    "STUDY_FILE is an ldp.v1.StudySpec in text format, or JSON if named "
    "*.json (as for `ldp study create`).";

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
  std::printf("\nper question, at confidence %g (half-width of one estimate; "
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
                q.kind.c_str(), q.local.mechanism.c_str(), q.local.epsilon, q.share);
    if (options.num_agents > 0) {
      std::printf(" %12.5g %12.5g %9.3g", q.local.half_width, q.central.half_width,
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
      std::printf("%s: the top item is within %.5g (local arg max) vs %.5g "
                  "(central exponential mechanism) of the largest frequency\n",
                  q.question_id.c_str(), q.top_item_local_loss,
                  q.top_item_central_loss);
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
  const size_t k = std::min(errors.size() - 1,
                            static_cast<size_t>(confidence * static_cast<double>(errors.size())));
  std::nth_element(errors.begin(), errors.begin() + static_cast<std::ptrdiff_t>(k),
                   errors.end());
  const double q = errors[k];
  return Agents(static_cast<int64_t>(std::ceil((q / tau) * (q / tau) / share)));
}

void PrintSimulation(const std::vector<QuestionSimulation>& simulated,
                     const StudyForecast& forecast, const ForecastOptions& options,
                     int runs) {
  std::printf("\nsimulation: %d runs of %lld synthetic agents (errors against "
              "each run's own population; prediction at that population):\n",
              runs, static_cast<long long>(options.num_agents));
  std::printf("%-16s %12s %14s %14s %8s %9s", "question", "reports/run",
              "predicted RMS", "observed RMS", "ratio", "coverage");
  if (options.target_error > 0) std::printf(" %14s %14s", "planned n(τ)", "simulated n(τ)");
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

absl::Status Run(const std::vector<char*>& args) {
  if (args.size() != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected exactly one STUDY_FILE\n", kUsage));
  }
  absl::StatusOr<v1::StudySpec> proto = ReadStudySpecFile(args[1]);
  if (!proto.ok()) return proto.status();
  absl::StatusOr<StudySpec> spec = StudySpecFromProto(*proto);
  if (!spec.ok()) return spec.status();
  const double confidence = absl::GetFlag(FLAGS_confidence);
  if (confidence != 0) {
    if (!(confidence > 0 && confidence < 1)) {
      return absl::InvalidArgumentError(
          absl::StrCat("--confidence must be in (0, 1), got ", confidence));
    }
    spec->confidence = confidence;
  }
  const int64_t agents = absl::GetFlag(FLAGS_agents);
  const bool simulate = absl::GetFlag(FLAGS_simulate);
  if (simulate && agents < 1) {
    return absl::InvalidArgumentError("--simulate needs --agents=N (N >= 1)");
  }
  StrategyPlannerOptions strategies;
  strategies.cache_dir = absl::GetFlag(FLAGS_strategy_cache_dir);
  strategies.optimizer_time_limit = absl::Minutes(absl::GetFlag(FLAGS_optimizer_minutes));
  // One plan for the forecast and the simulation (optimizing a workload
  // strategy can take minutes).
  std::optional<RoundPlan> plan;
  if (!spec->program.has_value()) {
    absl::StatusOr<RoundPlan> made = RoundPlan::Create(*spec, strategies);
    if (!made.ok()) return made.status();
    plan = *std::move(made);
  }
  const RoundPlan* shared_plan = plan.has_value() ? &*plan : nullptr;
  const ForecastOptions options{.num_agents = agents,
                                .target_error = absl::GetFlag(FLAGS_target_error),
                                .strategies = strategies,
                                .plan = shared_plan};
  absl::StatusOr<StudyForecast> forecast = ForecastStudy(*spec, options);
  if (!forecast.ok()) return forecast.status();
  std::printf("study \"%s\"\n", spec->display_name.c_str());
  PrintForecast(*forecast, options);
  if (!simulate) return absl::OkStatus();
  const int runs = absl::GetFlag(FLAGS_runs);
  absl::StatusOr<std::vector<QuestionSimulation>> simulated = SimulateForecast(
      *spec,
      {.num_agents = agents, .runs = runs, .seed = absl::GetFlag(FLAGS_seed),
       .strategies = strategies, .plan = shared_plan},
      SyntheticPopulation(*spec, absl::GetFlag(FLAGS_seed)));
  if (!simulated.ok()) return simulated.status();
  PrintSimulation(*simulated, *forecast, options, runs);
  return absl::OkStatus();
}

}  // namespace
}  // namespace ldp

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(ldp::kUsage);
  ldp::ShowOnlyFlagsFrom("plan_main");
  const std::vector<char*> args = absl::ParseCommandLine(argc, argv);
  const absl::Status status = ldp::Run(args);
  if (status.ok()) return 0;
  std::fprintf(stderr, "ldp plan: %s\n", status.ToString().c_str());
  return status.code() == absl::StatusCode::kInvalidArgument ? 2 : 1;
}
