// The report phase of the logistic regression experiment; see the header.
#include "bench/studies/logistic/logistic_report.h"

#include <algorithm>
#include <cstdio>

#include "bench/studies/experiment_common.h"
#include "bench/studies/logistic/logistic_figures.h"

namespace ldp {
namespace {

// The GD twin's released model before round t + 1: the mean of its
// averaging window's iterates so far (window starts at `first`), or the
// iterate itself before the window starts, as the program releases.
LogisticModel WindowMean(const std::vector<LogisticModel>& gd, int first,
                         size_t t) {
  LogisticModel released = gd[t];
  if (static_cast<int>(t) < first) return released;
  released.theta.assign(gd[t].theta.size(), 0);
  released.bias = 0;
  for (int i = first; i <= static_cast<int>(t); ++i) {
    for (size_t j = 0; j < released.theta.size(); ++j) {
      released.theta[j] += gd[i].theta[j] / (t - first + 1);
    }
    released.bias += gd[i].bias / (t - first + 1);
  }
  return released;
}

void PrintPerRound(const PrivateRun& run, const Split& s,
                   const LogisticSetting& setting, double eps,
                   const RunOptions& run_options) {
  const std::vector<LogisticModel> gd =
      GradientDescentPath(s, setting, run_options);
  std::printf(
      "## Per round, ε = %g, seed 1\n\nBefore round t + 1 (t = %d: "
      "final); \"released\" = mean of the averaging window's iterates "
      "so far (the iterate before the window starts); train/test "
      "accuracy.\n\n",
      eps, setting.rounds);
  PrintMarkdownHeader({"t", "iterate train", "iterate test", "released train",
                       "released test", "GD iterate test", "GD released test"});
  const int first = setting.rounds -
                    AveragedRounds(setting.rounds, run_options.average_tail) +
                    1;
  for (size_t t = 0; t < run.iterates.size(); ++t) {
    const LogisticModel gd_released = WindowMean(gd, first, t);
    std::printf("| %zu | %s | %s | %s | %s | %s | %s |\n", t,
                Figure(Accuracy(run.iterates[t], s.train_x, s.train_y)).c_str(),
                Figure(Accuracy(run.iterates[t], s.held_x, s.held_y)).c_str(),
                Figure(Accuracy(run.released[t], s.train_x, s.train_y)).c_str(),
                Figure(Accuracy(run.released[t], s.held_x, s.held_y)).c_str(),
                Figure(Accuracy(gd[t], s.held_x, s.held_y)).c_str(),
                Figure(Accuracy(gd_released, s.held_x, s.held_y)).c_str());
  }
  std::printf("\n");
}

}  // namespace

absl::StatusOr<ReportBaselines> PrintReportHeader(
    const Split& s, const LogisticSetting& chosen, const ReportOptions& options,
    const RunOptions& run_options) {
  const std::vector<LogisticModel> gd =
      GradientDescentPath(s, chosen, run_options);
  const LogisticModel gd_avg = TailAverage(gd, run_options.average_tail);
  const LogisticModel newton = Newton(s, options.baseline_l2);
  if (!IsFinite(newton)) return NonFiniteNewton();
  const ReportBaselines baselines{
      .newton_train = Accuracy(newton, s.train_x, s.train_y),
      .newton_test = Accuracy(newton, s.held_x, s.held_y)};
  const int per_coordinate = static_cast<int>(
      run_options.agents / chosen.rounds / (s.features.size() + 1));
  std::printf(
      "## Report: %s, trained on all %zu train rows, evaluated on %zu test "
      "rows (~%d reports per gradient coordinate per step with one "
      "coordinate per agent; k per agent gives k times as many)\n\n"
      "non-private Newton (λ = %g): train %s, test %s; non-private GD, "
      "same setting: last iterate test %s, averaged test %s\n\n",
      chosen.Name().c_str(), s.train_y.size(), s.held_y.size(), per_coordinate,
      options.baseline_l2, Figure(baselines.newton_train).c_str(),
      Figure(baselines.newton_test).c_str(),
      Figure(Accuracy(gd.back(), s.held_x, s.held_y)).c_str(),
      Figure(Accuracy(gd_avg, s.held_x, s.held_y)).c_str());
  std::fflush(stdout);
  return baselines;
}

std::optional<EpsilonRow> ReportEpsilon(const Split& s,
                                        const LogisticSetting& chosen,
                                        double eps,
                                        const ReportOptions& options,
                                        const RunOptions& run_options) {
  EpsilonRow row{.eps = eps};
  const absl::StatusOr<GradientPlan> plan =
      GradientPlanOf(s, chosen, eps, run_options);
  if (!plan.ok()) {
    std::fprintf(stderr, "ε = %g: %s\n", eps, plan.status().ToString().c_str());
    return std::nullopt;
  }
  std::printf("ε = %g, the planner's gradient reports: %s\n\n", eps,
              plan->Describe().c_str());
  for (int seed = 1; seed <= options.seeds; ++seed) {
    absl::StatusOr<PrivateRun> run =
        RunPrivate(s, chosen, eps, seed, run_options);
    if (!run.ok()) {
      std::fprintf(stderr, "ε = %g seed %d: %s\n", eps, seed,
                   run.status().ToString().c_str());
      return std::nullopt;
    }
    row.train.push_back(Accuracy(run->released.back(), s.train_x, s.train_y));
    row.test.push_back(Accuracy(run->released.back(), s.held_x, s.held_y));
    row.last_test.push_back(Accuracy(run->iterates.back(), s.held_x, s.held_y));
    row.seconds += run->seconds;
    row.max_spent = std::max(row.max_spent, run->max_spent);
    row.refused += run->refused;
    if (seed == 1 && eps == options.per_round_epsilon) {
      PrintPerRound(*run, s, chosen, eps, run_options);
    }
    std::fflush(stdout);
  }
  return row;
}

void PrintSummary(const std::vector<EpsilonRow>& rows,
                  const ReportBaselines& baselines, int seeds) {
  std::printf(
      "## Summary (%d seeds per ε, mean ± sd; gap = Newton test − "
      "private released test mean)\n\n",
      seeds);
  PrintMarkdownHeader({"ε", "released train", "released test",
                       "last iterate test", "Newton train", "Newton test",
                       "gap (points)", "max ε spent", "refused", "s/run"});
  for (const EpsilonRow& r : rows) {
    std::printf("| %g | %s | %s | %s | %s | %s | %s | %g | %lld | %s |\n",
                r.eps, MeanSd(r.train).c_str(), MeanSd(r.test).c_str(),
                MeanSd(r.last_test).c_str(),
                Figure(baselines.newton_train).c_str(),
                Figure(baselines.newton_test).c_str(),
                Figure(100 * (baselines.newton_test - Mean(r.test)), 1).c_str(),
                r.max_spent / 1e9, static_cast<long long>(r.refused),
                Figure(r.seconds / r.train.size(), 1).c_str());
  }
}

}  // namespace ldp
