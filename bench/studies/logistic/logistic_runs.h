// One training run of the logistic regression experiment, private or not:
// a hyperparameter setting, the private run of the `logistic_regression`
// analyst program through the in-process simulator, and its non-private
// gradient descent twin. Both the selection
// (bench/studies/logistic/logistic_selection.h) and the report
// (bench/studies/logistic/logistic_report.h) train through these.
#ifndef LDP_BENCH_STUDIES_LOGISTIC_LOGISTIC_RUNS_H_
#define LDP_BENCH_STUDIES_LOGISTIC_LOGISTIC_RUNS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "bench/studies/logistic/logistic_baselines.h"
#include "planning/programs/gradient_plan.h"
#include "planning/programs/logistic_regression.h"

namespace ldp {

// One hyperparameter setting of the program: what the selection searches.
struct LogisticSetting {
  double learning_rate = 1;
  int rounds = 50;
  double clip = 0.25;
  std::string schedule = "constant";  // "constant" or "inverse_sqrt"

  // "η = …, T = …, c = …, schedule", as the tables print it.
  std::string Name() const;
};

// What every run shares and the selection does not search.
struct RunOptions {
  int64_t agents = 1'000'000;  // simulated agents per private run
  double average_tail = 0.5;   // share of the last iterates averaged
  double radius = 20;          // projection radius R of (θ, b)
  double l2 = 0;               // L2 penalty λ of the program and GD
  // The program's coordinates_per_agent: "auto" (the planner's k) or k.
  std::string coordinates_per_agent = "auto";
};

// How many of T iterates the released model averages (at least one).
int AveragedRounds(int rounds, double average_tail);

// The mean of the last AveragedRounds(T) models of a path θ_0 … θ_T.
LogisticModel TailAverage(const std::vector<LogisticModel>& path,
                          double average_tail);

// How the program's agents report each gradient at cap ε = eps for s's
// features: the program's own plan (PlanGradientReports), which the
// report prints. InvalidArgument for a bad options.coordinates_per_agent.
absl::StatusOr<GradientPlan> GradientPlanOf(const Split& s,
                                            const LogisticSetting& setting,
                                            double eps,
                                            const RunOptions& options);

// The non-private twin of the program's T steps (same η_t, λ, projection),
// exact and unclipped, on s's training rows: iterates θ_0 … θ_T.
std::vector<LogisticModel> GradientDescentPath(const Split& s,
                                               const LogisticSetting& setting,
                                               const RunOptions& options);

// One private run: the models before every round and after the last.
struct PrivateRun {
  std::vector<LogisticModel> iterates{};  // θ_0 … θ_T
  std::vector<LogisticModel> released{};  // released model at each t
  double seconds = 0;
  int64_t max_spent = 0;
  int64_t refused = 0;
};

// The program with `setting` run by options.agents simulated agents, each
// holding training row SplitMix64(seed, agent) mod n of s, at cap ε = eps;
// coins seeded by (seed, eps). An error if the simulation fails or a model
// has a non-finite weight.
absl::StatusOr<PrivateRun> RunPrivate(const Split& s,
                                      const LogisticSetting& setting,
                                      double eps, uint64_t seed,
                                      const RunOptions& options);

// The error both phases return when the Newton baseline is not finite.
absl::Status NonFiniteNewton();

}  // namespace ldp

#endif  // LDP_BENCH_STUDIES_LOGISTIC_LOGISTIC_RUNS_H_
