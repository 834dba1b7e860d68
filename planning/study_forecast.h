// What a study will deliver before it is deployed: for every question, the
// error at n agents or the agents needed for a target error, next to what a
// trusted curator (the central model) would achieve with the same per-agent
// ε — the price of locality — and an in-process simulation that checks the
// prediction against reality.
//
// Everything runs through the code of the real protocol: RoundPlan decides
// the split, the εₜ and every randomizer exactly as CreateStudy would; the
// predictions are the randomizers' closed-form variances; the simulation
// draws a synthetic population, randomizes each agent's record with the
// task's TaskMechanism and estimates with TaskAccumulator and
// AddSamplingVariance, as the server does. Left out: the network and the
// store (tested elsewhere).
//
// Error of one estimate at n agents, answers in their own units (fractions
// for histograms and workloads, the query's range for statistical queries):
// with n_q = share·n reports, Var = u/n_q where the per-report variance
// u = (the randomizer's variance, worst case over the values the question
// can take) + (the spread of the values)·(1 − share). The second term is
// sample splitting's: only a random share answers, so its mean differs from
// the population's. Predictions are worst cases over data; the simulation
// compares the observed error with the prediction at the simulated
// population, which it knows.
#ifndef LDP_PLANNING_STUDY_FORECAST_H_
#define LDP_PLANNING_STUDY_FORECAST_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/queries/record_schema.h"
#include "common/tasks/study_spec.h"
#include "common/workload/strategies/strategy_planner.h"
#include "planning/forecast_simulation.h"
#include "planning/planner.h"
#include "planning/programs/program_schedule.h"

namespace ldp {

struct ForecastOptions {
  // n: the agents the study will reach (0 = no error figures at n).
  int64_t num_agents = 0;
  // τ > 0: also the agents needed for every estimate of every question to
  // be within τ at the study's confidence (0 = not asked).
  double target_error = 0;
  // How workload strategies are planned (as the server would).
  StrategyPlannerOptions strategies{};
  // The study's plan, if already made (RoundPlan::Create(spec, strategies)
  // otherwise): planning an optimized strategy can take minutes, so a
  // forecast and a simulation of one study share one.
  const RoundPlan* plan = nullptr;
};

// One side (local or central) of a question's forecast.
struct ErrorForecast {
  std::string mechanism{};
  // Per-agent ε this question gets.
  double epsilon = 0;
  // At ForecastOptions::num_agents: the root-mean-square error of the
  // worst estimate, and the half-width that holds for one estimate with
  // probability ≥ confidence.
  double rmse = 0;
  double half_width = 0;
  // Agents needed so that half_width ≤ τ (0 when τ was not given).
  int64_t agents_needed = 0;
};

struct QuestionForecast {
  std::string question_id{};
  std::string kind{};         // "query", "histogram" or "workload"
  int64_t num_estimates = 1;  // items of a histogram, queries of a workload
  // Fraction of the agents that answer (1 under ε splitting).
  double share = 1;
  // Per-report variance u (see the header comment), worst case.
  double unit_variance = 0;
  ErrorForecast local{};
  // Laplace mechanism on the whole population's answer at ε/m (the curator
  // splits the per-agent ε between the m questions).
  ErrorForecast central{};
  // Histograms only: how far below the most frequent item's frequency the
  // reported top item can be, at confidence: locally the arg max of the
  // estimate (twice the simultaneous half-width), centrally the exponential
  // mechanism's utility bound. 0 otherwise.
  double top_item_local_loss = 0;
  double top_item_central_loss = 0;
};

struct StudyForecast {
  // The split (sample or ε splitting) and why, as the planner explains it.
  std::string split{};
  std::string explanation{};
  double confidence = 0.95;
  // ε charged per agent and the cap: what is left for later studies.
  int64_t epsilon_spent_nanos = 0;
  int64_t epsilon_cap_nanos = 0;
  // Noninteractive studies: one round. Interactive ones: the program's
  // schedule (rounds, slices, εₜ); their questions depend on answers, so
  // `questions` is empty.
  int num_rounds = 1;
  std::vector<ScheduledRound> schedule{};
  // Programs that state it: the agents their own planner needs for their
  // accuracy goal (0 if unknown), and the central model's counterpart where
  // the library has one (threshold_learner: the private PAC learner over
  // the same N + 1 thresholds at the same ε, α and β).
  int64_t program_agents_needed = 0;
  std::string central_learner{};
  int64_t central_learner_agents = 0;
  std::vector<QuestionForecast> questions{};
};

// InvalidArgument for a spec the planner refuses or bad options.
absl::StatusOr<StudyForecast> ForecastStudy(const StudySpec& spec,
                                            const ForecastOptions& options);

}  // namespace ldp

#endif  // LDP_PLANNING_STUDY_FORECAST_H_
