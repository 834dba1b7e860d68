// The check of a forecast: a noninteractive study run in process, many
// times, on synthetic agents, with the observed error, the predicted error
// at that population and the intervals' coverage per question. Planning's
// own test of its closed forms (`ldp plan --simulate`, study_forecast_test).
#ifndef LDP_PLANNING_FORECAST_SIMULATION_H_
#define LDP_PLANNING_FORECAST_SIMULATION_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/queries/record_schema.h"
#include "common/tasks/study_spec.h"
#include "common/workload/strategies/strategy_planner.h"
#include "planning/planner.h"

namespace ldp {

struct SimulationOptions {
  int64_t num_agents = 0;  // ≥ 1
  int runs = 200;          // ≥ 1
  uint64_t seed = 1;       // population and randomizer coins
  StrategyPlannerOptions strategies{};
  const RoundPlan* plan = nullptr;  // as in ForecastOptions
};

// A question's predicted vs observed error over the runs.
struct QuestionSimulation {
  std::string question_id{};
  double mean_reports = 0;  // per run
  // Root-mean-square over runs and estimates of (estimate − truth), the
  // truth being the simulated population's own value; the prediction is
  // the closed-form variance at that population.
  double predicted_rmse = 0;
  double observed_rmse = 0;
  // Fraction of estimates whose interval (band, for workloads) at the
  // study's confidence held the truth.
  double coverage = 0;
  // Scalar questions: √n_q·|estimate − truth| of every run, for quantiles.
  std::vector<double> scaled_errors{};
};

// The record of agent `agent_id` in population number `run`.
using PopulationFactory = std::function<Record(int run, uint64_t agent_id)>;

// Runs a noninteractive study `options.runs` times over `num_agents` agents
// (a fresh population from `population` each run); InvalidArgument for an
// interactive study or bad options.
absl::StatusOr<std::vector<QuestionSimulation>> SimulateForecast(
    const StudySpec& spec, const SimulationOptions& options,
    const PopulationFactory& population);

// The synthetic population (common/queries/synthetic_records.h) of `spec`, one
// seed per run derived from `seed`.
PopulationFactory SyntheticPopulation(const StudySpec& spec, uint64_t seed);

}  // namespace ldp

#endif  // LDP_PLANNING_FORECAST_SIMULATION_H_
