// Logistic regression by private gradient descent on real tabular data:
// the `logistic_regression` analyst program run through the in-process
// simulator, against non-private logistic regression on the same training
// split.
//
// Data: any CSV with a header line, real feature columns and a 0/1 label
// column (--label), comma-separated, quoted or not (RFC 4180)
// (bench/studies/logistic/tabular_data.h); default
// bench/studies/logistic/data/breast_cancer.csv.
// bench/studies/logistic/data/export_sklearn_datasets.py exports it, wine.csv
// and digits.csv from python3-sklearn. Headers that are not valid field names
// (e.g. "od280/od315_of_diluted_wines") are mapped to valid ones, and the
// mapping is printed. Rows are shuffled with
// --split_seed and split into test (--test_fraction) and train; a fixed
// share of the train rows (--validation_fraction) is the validation split.
//
// Two phases, so that no hyperparameter is tuned on the test split:
// 1. Selection: every setting of the grid (--grid_* flags: step size,
//    rounds, clip, schedule) is trained on train minus validation, at
//    ε = --select_epsilon with seeds 1001 … 1000 + --select_seeds (not the
//    report's seeds), and scored on the validation rows: highest mean
//    validation accuracy, ties broken by lower mean validation log-loss.
// 2. Report: the chosen setting is trained on the whole train split for
//    every ε of --epsilon with seeds 1 … --seeds, and evaluated once on the
//    test split, next to the non-private models on the same train split.
//
// Bounds: a feature's schema bounds [lo, hi] are the public bounds declared
// for it with --bounds (NAME=LO:HI, NAME as the CSV header spells it, or
// *=LO:HI for every feature not named), else the training rows' min and max
// (the public preprocessing assumption). The program scales by the
// schema's bounds, and an agent clamps its value into them (so held-out
// rows outside them are clamped too, for every model alike). A feature
// without declared bounds that is constant on the training rows is left
// out of that phase's model, with a note (why:
// bench/studies/logistic/tabular_data.cc). Bounds, scaled data and every split
// are checked before any figure is computed: bad data fails with a message
// naming the column, never with a figure computed from NaN.
//
// Agents: agent i's record is training row SplitMix64(seed, i) mod n_rows —
// rows resampled uniformly with replacement, computed on demand (no table
// of 10^6 agents). Coins come from a seeded generator for reproducibility.
//
// Baselines, on the same scaled features: (a) "GD": the same T full-batch
// gradient steps with the same η_t, radius, λ and iterate averaging, exact
// and unclipped — what the private run would do without noise; (b)
// "Newton": the logistic regression optimum (Newton's method with L2
// --baseline_l2, to convergence), the non-private model the target compares
// against.
//
// Code: this file holds the flags and wires the phases together; the work
// is in bench/studies/logistic/logistic_input.h (CSV, bounds, row splits and
// their notes), bench/studies/logistic/logistic_runs.h (a setting, the private
// run and its GD twin), bench/studies/logistic/logistic_selection.h (the grid
// and phase 1), bench/studies/logistic/logistic_report.h (phase 2, the
// per-round and summary tables), bench/studies/logistic/logistic_figures.h (how
// figures are printed), bench/studies/logistic/logistic_baselines.h (split,
// accuracy, Newton) and bench/studies/logistic/tabular_data.h (the CSV).
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "bench/studies/experiment_common.h"
#include "bench/studies/logistic/logistic_input.h"
#include "bench/studies/logistic/logistic_report.h"
#include "bench/studies/logistic/logistic_runs.h"
#include "bench/studies/logistic/logistic_selection.h"

ABSL_FLAG(std::string, csv, "bench/studies/logistic/data/breast_cancer.csv",
          "CSV with a header line, comma-separated, quoted or not (RFC "
          "4180, as R and pandas write it); every column "
          "but --label is a real feature.");
ABSL_FLAG(std::string, label, "label",
          "The 0/1 label column (its CSV header).");
ABSL_FLAG(std::string, bounds, "",
          "Public bounds known in advance, NAME=LO:HI,... (NAME: a feature's "
          "CSV header as spelled in the file; *=LO:HI: every feature not "
          "named), e.g. '*=0:16'; they replace the training rows' min and "
          "max for those features. Empty: none.");
ABSL_FLAG(int64_t, agents, 1'000'000,
          "Simulated agents per run (at most 10^6): training rows resampled.");
ABSL_FLAG(std::string, epsilon, "0.5,1,2,4",
          "Comma-separated per-agent caps ε reported on the test split.");
ABSL_FLAG(std::string, grid_learning_rate, "2,4,8",
          "Step sizes η the selection tries (comma-separated).");
ABSL_FLAG(std::string, grid_rounds, "25,50,100",
          "Gradient steps T the selection tries (one disjoint slice each).");
ABSL_FLAG(std::string, grid_clip, "0.1,0.25",
          "Clip bounds c of each gradient coordinate the selection tries.");
ABSL_FLAG(std::string, grid_schedule, "constant,inverse_sqrt",
          "Step schedules the selection tries: constant (η_t = η) and/or "
          "inverse_sqrt (η_t = η/√(t+1)).");
ABSL_FLAG(double, average_tail, 0.5,
          "Share of the last iterates the released model averages (fixed, "
          "not searched; 0 = last iterate).");
ABSL_FLAG(double, radius, 20, "Projection radius R of (θ, b) (fixed).");
ABSL_FLAG(double, l2, 0,
          "L2 penalty λ of the private run and the GD baseline (fixed).");
ABSL_FLAG(std::string, coordinates_per_agent, "auto",
          "The program's coordinates_per_agent k (gradient coordinates each "
          "agent reports per step, each at ε/k): auto = the planner's choice "
          "at each ε, or an integer in [1, min(features + 1, 16)].");
ABSL_FLAG(double, baseline_l2, 1e-3,
          "L2 penalty of the Newton baseline (keeps it finite if separable).");
ABSL_FLAG(double, select_epsilon, 2, "ε at which the grid is searched.");
ABSL_FLAG(int, select_seeds, 2,
          "Private runs per grid setting (seeds 1001 … 1000 + N).");
ABSL_FLAG(int, seeds, 5, "Private runs per reported ε (seeds 1 … N).");
ABSL_FLAG(uint64_t, split_seed, 1, "Seed of the row shuffle.");
ABSL_FLAG(double, test_fraction, 0.2, "Share of all rows held out for test.");
ABSL_FLAG(double, validation_fraction, 0.2,
          "Share of the train rows held out for the selection's validation.");
ABSL_FLAG(double, per_round_epsilon, 2,
          "Print the per-round table of the chosen setting's seed-1 run at "
          "this ε (0: none).");

namespace ldp {
namespace {

// The flags, as the typed options the phases take.
RunOptions RunOptionsFromFlags() {
  return RunOptions{
      .agents = absl::GetFlag(FLAGS_agents),
      .average_tail = absl::GetFlag(FLAGS_average_tail),
      .radius = absl::GetFlag(FLAGS_radius),
      .l2 = absl::GetFlag(FLAGS_l2),
      .coordinates_per_agent = absl::GetFlag(FLAGS_coordinates_per_agent)};
}

SplitOptions SplitOptionsFromFlags() {
  return SplitOptions{
      .seed = absl::GetFlag(FLAGS_split_seed),
      .test_fraction = absl::GetFlag(FLAGS_test_fraction),
      .validation_fraction = absl::GetFlag(FLAGS_validation_fraction)};
}

GridLists GridListsFromFlags() {
  return GridLists{.learning_rate = absl::GetFlag(FLAGS_grid_learning_rate),
                   .rounds = absl::GetFlag(FLAGS_grid_rounds),
                   .clip = absl::GetFlag(FLAGS_grid_clip),
                   .schedule = absl::GetFlag(FLAGS_grid_schedule)};
}

// The flags that are not lists, checked before the data is read.
absl::Status CheckFlags() {
  const int64_t agents = absl::GetFlag(FLAGS_agents);
  const double test = absl::GetFlag(FLAGS_test_fraction);
  const double validation = absl::GetFlag(FLAGS_validation_fraction);
  if (agents < 1 || agents > 1'000'000) {
    return absl::InvalidArgumentError("--agents must be in [1, 10^6]");
  }
  if (absl::GetFlag(FLAGS_seeds) < 1 || absl::GetFlag(FLAGS_select_seeds) < 1) {
    return absl::InvalidArgumentError(
        "--seeds and --select_seeds must be >= 1");
  }
  if (!(test > 0 && test < 1) || !(validation >= 0 && validation < 1)) {
    return absl::InvalidArgumentError(
        "--test_fraction must be in (0, 1), --validation_fraction in [0, 1)");
  }
  return absl::OkStatus();
}

int Fail(const absl::Status& status, int code) {
  std::fprintf(stderr, "%s\n", status.ToString().c_str());
  return code;
}

// Both phases on checked splits: the selection when the grid has more than
// one setting (else its only setting), then the report for every ε.
int RunPhases(const PhaseSplits& splits,
              const std::vector<LogisticSetting>& grid,
              const std::vector<double>& epsilons,
              const RunOptions& run_options) {
  LogisticSetting chosen = grid.front();
  if (splits.selection.has_value()) {
    const SelectionOptions options{
        .epsilon = absl::GetFlag(FLAGS_select_epsilon),
        .seeds = absl::GetFlag(FLAGS_select_seeds),
        .baseline_l2 = absl::GetFlag(FLAGS_baseline_l2)};
    absl::StatusOr<LogisticSetting> selected =
        Select(*splits.selection, grid, options, run_options);
    if (!selected.ok()) return Fail(selected.status(), 1);
    chosen = *selected;
  }
  const ReportOptions options{
      .seeds = absl::GetFlag(FLAGS_seeds),
      .baseline_l2 = absl::GetFlag(FLAGS_baseline_l2),
      .per_round_epsilon = absl::GetFlag(FLAGS_per_round_epsilon)};
  const absl::StatusOr<ReportBaselines> baselines =
      PrintReportHeader(splits.report, chosen, options, run_options);
  if (!baselines.ok()) return Fail(baselines.status(), 1);
  std::vector<EpsilonRow> report;
  for (double eps : epsilons) {
    std::optional<EpsilonRow> row =
        ReportEpsilon(splits.report, chosen, eps, options, run_options);
    if (!row.has_value()) return 1;
    report.push_back(*std::move(row));
  }
  PrintSummary(report, *baselines, options.seeds);
  return 0;
}

// Exit code 2 for bad flags, 1 for bad data or a failed run.
int Main() {
  absl::StatusOr<std::vector<double>> epsilons =
      ParsePositiveList("epsilon", absl::GetFlag(FLAGS_epsilon));
  absl::StatusOr<std::vector<LogisticSetting>> grid =
      ParseGrid(GridListsFromFlags());
  for (const absl::Status& status :
       {CheckFlags(), epsilons.status(), grid.status()}) {
    if (!status.ok()) return Fail(status, 2);
  }
  absl::StatusOr<LogisticInput> in =
      ReadInput(InputOptions{.csv = absl::GetFlag(FLAGS_csv),
                             .label = absl::GetFlag(FLAGS_label),
                             .bounds = absl::GetFlag(FLAGS_bounds)});
  if (!in.ok()) return Fail(in.status(), 1);
  const SplitOptions split_options = SplitOptionsFromFlags();
  const RowSplit rows = ShuffleRows(in->data.y.size(), split_options);
  absl::StatusOr<PhaseSplits> splits =
      MakeSplits(*in, rows, grid->size() > 1, split_options);
  if (!splits.ok()) return Fail(splits.status(), 1);
  const RunOptions run_options = RunOptionsFromFlags();
  PrintDataLine(absl::GetFlag(FLAGS_csv), *in, rows, run_options);
  if (splits->selection.has_value()) {
    PrintBoundsNotes("selection split", in->data, *splits->selection);
  }
  PrintBoundsNotes("report split", in->data, splits->report);
  return RunPhases(*splits, *grid, *epsilons, run_options);
}

}  // namespace
}  // namespace ldp

int main(int argc, char** argv) {
  return ldp::ExperimentMain(
      argc, argv,
      "Logistic regression by private "
      "gradient descent (analyst program logistic_regression) on any CSV of "
      "real features and a 0/1 label: selects (step size, rounds, clip, "
      "schedule) from the --grid_* flags by validation accuracy at "
      "--select_epsilon on a validation split carved from train (skipped "
      "when every grid has one value), then reports test accuracy of the "
      "chosen setting for every --epsilon, against non-private GD and Newton "
      "on the same train split; simulated agents = training rows resampled. "
      "Headers that are not valid field names are renamed (printed); "
      "feature bounds are --bounds where declared, else the training rows' "
      "min and max; a constant feature without declared bounds is left out "
      "(noted). Prints markdown tables.\nUsage: "
      "logistic_regression_experiment "
      "[--csv=bench/studies/logistic/data/breast_cancer.csv] "
      "[--label=label] [--bounds=NAME=LO:HI,...|'*=LO:HI'] "
      "[--epsilon=0.5,1,2,4] [--agents=1000000] [--seeds=5] "
      "[--grid_learning_rate=2,4,8] [--grid_rounds=25,50,100] "
      "[--grid_clip=0.1,0.25] [--grid_schedule=constant,inverse_sqrt]\n"
      "Example: logistic_regression_experiment "
      "--csv=bench/studies/logistic/data/digits.csv "
      "--bounds='*=0:16'",
      ldp::Main);
}
