// The selection phase of the logistic regression experiment; see the
// header.
#include "bench/studies/logistic/logistic_selection.h"

#include <cmath>
#include <cstdio>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "bench/studies/experiment_common.h"
#include "bench/studies/logistic/logistic_figures.h"

namespace ldp {
namespace {

// A setting's mean validation figures over the selection's seeds.
struct Score {
  double accuracy = 0;
  double log_loss = 0;
};

// The search's header: what is searched, and the non-private Newton model
// on the same rows as the yardstick. Prints nothing if Newton fails.
absl::Status PrintSelectionHeader(const Split& sel, size_t settings,
                                  const SelectionOptions& options) {
  const LogisticModel newton = Newton(sel, options.baseline_l2);
  if (!IsFinite(newton)) return NonFiniteNewton();
  std::printf(
      "## Selection: %zu settings × %d seeds (1001 …) at ε = %g; trained on "
      "%zu rows, scored on %zu validation rows\n\nnon-private Newton on the "
      "same rows: validation accuracy %s, log-loss %s\n\n",
      settings, options.seeds, options.epsilon, sel.train_y.size(),
      sel.held_y.size(),
      Figure(Accuracy(newton, sel.held_x, sel.held_y)).c_str(),
      Figure(LogLoss(newton, sel.held_x, sel.held_y)).c_str());
  PrintMarkdownHeader({"setting", "validation accuracy", "validation log-loss",
                       "GD (averaged) validation accuracy"});
  std::fflush(stdout);
  return absl::OkStatus();
}

// One setting's private runs (seeds 1001 …), scored on the validation rows
// and printed as a table row next to its non-private GD twin.
absl::StatusOr<Score> ScoreSetting(const Split& sel,
                                   const LogisticSetting& setting,
                                   const SelectionOptions& options,
                                   const RunOptions& run_options) {
  std::vector<double> acc, loss;
  for (int seed = 1001; seed <= 1000 + options.seeds; ++seed) {
    absl::StatusOr<PrivateRun> run =
        RunPrivate(sel, setting, options.epsilon, seed, run_options);
    if (!run.ok()) return run.status();
    acc.push_back(Accuracy(run->released.back(), sel.held_x, sel.held_y));
    loss.push_back(LogLoss(run->released.back(), sel.held_x, sel.held_y));
  }
  const LogisticModel gd = TailAverage(
      GradientDescentPath(sel, setting, run_options), run_options.average_tail);
  std::printf("| %s | %s | %s | %s |\n", setting.Name().c_str(),
              MeanSd(acc).c_str(), MeanSd(loss).c_str(),
              Figure(Accuracy(gd, sel.held_x, sel.held_y)).c_str());
  std::fflush(stdout);
  return Score{.accuracy = Mean(acc), .log_loss = Mean(loss)};
}

}  // namespace

absl::StatusOr<std::vector<double>> ParsePositiveList(const std::string& flag,
                                                      const std::string& text) {
  std::vector<double> values;
  for (absl::string_view e : absl::StrSplit(text, ',')) {
    double v = 0;
    if (!absl::SimpleAtod(e, &v) || !(v > 0)) {
      return absl::InvalidArgumentError(
          absl::StrCat("bad --", flag, " entry \"", e, "\" (want > 0)"));
    }
    values.push_back(v);
  }
  return values;
}

absl::StatusOr<std::vector<LogisticSetting>> ParseGrid(const GridLists& lists) {
  std::vector<LogisticSetting> grid;
  absl::StatusOr<std::vector<double>> etas =
      ParsePositiveList("grid_learning_rate", lists.learning_rate);
  absl::StatusOr<std::vector<double>> rounds =
      ParsePositiveList("grid_rounds", lists.rounds);
  absl::StatusOr<std::vector<double>> clips =
      ParsePositiveList("grid_clip", lists.clip);
  for (const auto* list : {&etas, &rounds, &clips}) {
    if (!list->ok()) return list->status();
  }
  const std::vector<std::string> schedules =
      absl::StrSplit(lists.schedule, ',');
  for (double eta : *etas) {
    for (double t : *rounds) {
      for (double c : *clips) {
        for (const std::string& schedule : schedules) {
          grid.push_back({.learning_rate = eta,
                          .rounds = static_cast<int>(t),
                          .clip = c,
                          .schedule = schedule});
        }
      }
    }
  }
  return grid;
}

absl::StatusOr<LogisticSetting> Select(const Split& sel,
                                       const std::vector<LogisticSetting>& grid,
                                       const SelectionOptions& options,
                                       const RunOptions& run_options) {
  const absl::Status header = PrintSelectionHeader(sel, grid.size(), options);
  if (!header.ok()) return header;
  size_t best = 0;
  double best_acc = -1, best_loss = INFINITY;
  for (size_t k = 0; k < grid.size(); ++k) {
    absl::StatusOr<Score> score =
        ScoreSetting(sel, grid[k], options, run_options);
    if (!score.ok()) return score.status();
    if (score->accuracy > best_acc ||
        (score->accuracy == best_acc && score->log_loss < best_loss)) {
      best = k, best_acc = score->accuracy, best_loss = score->log_loss;
    }
  }
  std::printf("\nchosen: %s (validation accuracy %s, log-loss %s)\n\n",
              grid[best].Name().c_str(), Figure(best_acc).c_str(),
              Figure(best_loss).c_str());
  return grid[best];
}

}  // namespace ldp
