// Logistic regression by private gradient descent on real tabular data
// (issue: interactive learning, "Logistic regression by private gradient
// descent"): the `logistic_regression` analyst program run through the
// in-process simulator, against non-private logistic regression on the same
// training split.
//
// Data: any CSV with a header line, real feature columns and a 0/1 label
// column (--label), comma-separated, unquoted (bench/tabular_data.h);
// default bench/data/breast_cancer.csv. bench/data/export_sklearn_datasets.py
// exports it, wine.csv and digits.csv from python3-sklearn. Headers that
// are not valid field names (e.g. "od280/od315_of_diluted_wines") are
// mapped to valid ones, and the mapping is printed. Rows are shuffled with
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
// out of that phase's model, with a note (why: bench/tabular_data.cc).
// Bounds, scaled data and every split are checked before any figure is
// computed: bad data fails with a message naming the column, never with a
// figure computed from NaN.
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
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "bench/experiment_common.h"
#include "bench/experiment_simulation.h"
#include "bench/logistic_baselines.h"
#include "bench/tabular_data.h"
#include "planning/program_simulator.h"
#include "planning/programs/logistic_regression.h"

ABSL_FLAG(std::string, csv, "bench/data/breast_cancer.csv",
          "CSV with a header line, comma-separated, unquoted; every column "
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

// One hyperparameter setting of the program.
struct Setting {
  double learning_rate = 1;
  int rounds = 50;
  double clip = 0.25;
  std::string schedule = "constant";

  std::string Name() const {
    return absl::StrFormat("η = %g, T = %d, c = %g, %s", learning_rate, rounds,
                           clip, schedule);
  }
};

int AveragedRounds(int rounds) {
  return std::max(1, static_cast<int>(std::ceil(
                         absl::GetFlag(FLAGS_average_tail) * rounds - 1e-9)));
}

// The mean of the last AveragedRounds(T) models of a path θ_0 … θ_T.
LogisticModel TailAverage(const std::vector<LogisticModel>& path) {
  const int rounds = static_cast<int>(path.size()) - 1;
  const int k = AveragedRounds(rounds);
  LogisticModel mean{.theta = std::vector<double>(path[0].theta.size())};
  for (int t = rounds - k + 1; t <= rounds; ++t) {
    for (size_t j = 0; j < mean.theta.size(); ++j) mean.theta[j] += path[t].theta[j] / k;
    mean.bias += path[t].bias / k;
  }
  return mean;
}

// The non-private twin of the program's T steps (same η_t, λ, projection):
// iterates θ_0 … θ_T.
std::vector<LogisticModel> GradientDescentPath(const Split& s,
                                               const Setting& setting) {
  const double l2 = absl::GetFlag(FLAGS_l2);
  const double radius = absl::GetFlag(FLAGS_radius);
  const size_t d = s.train_x[0].size();
  LogisticModel m{.theta = std::vector<double>(d)};
  std::vector<LogisticModel> path = {m};
  for (int t = 0; t < setting.rounds; ++t) {
    const std::vector<double> g = Gradient(m, s);
    const double step = setting.schedule == "inverse_sqrt"
                            ? setting.learning_rate / std::sqrt(t + 1.0)
                            : setting.learning_rate;
    for (size_t j = 0; j < d; ++j) m.theta[j] -= step * (g[j] + l2 * m.theta[j]);
    m.bias -= step * g[d];
    const double norm = std::sqrt(std::inner_product(
        m.theta.begin(), m.theta.end(), m.theta.begin(), m.bias * m.bias));
    if (norm > radius) {
      for (double& v : m.theta) v *= radius / norm;
      m.bias *= radius / norm;
    }
    path.push_back(m);
  }
  return path;
}

struct Run {
  std::vector<LogisticModel> iterates{};  // θ_0 … θ_T
  std::vector<LogisticModel> released{};  // released model at each t
  double seconds = 0;
  int64_t max_spent = 0;
  int64_t refused = 0;
};

absl::StatusOr<Run> RunPrivate(const Split& s, const Setting& setting,
                               double eps, uint64_t seed) {
  std::vector<FieldSpec> fields;
  for (size_t k = 0; k < s.features.size(); ++k) {
    fields.push_back(FieldSpec::Real(s.features[k], s.bounds.bounds[k].lo,
                                     s.bounds.bounds[k].hi));
  }
  fields.push_back(FieldSpec::Bool(s.label));
  absl::StatusOr<RecordSchema> schema = RecordSchema::Create(std::move(fields));
  if (!schema.ok()) return schema.status();
  const StudySpec study{
      .display_name = "logistic regression",
      .schema = *schema,
      .epsilon_cap_nanos = std::llround(eps * 1e9),
      .mode = StudyMode::kInteractive,
      .program = ProgramSpec{
          .name = "logistic_regression",
          .parameters = {
              {"features", absl::StrJoin(s.features, ",")},
              {"label", s.label},
              {"rounds", absl::StrCat(setting.rounds)},
              {"learning_rate", absl::StrCat(setting.learning_rate)},
              {"schedule", setting.schedule},
              {"average_tail", absl::StrCat(absl::GetFlag(FLAGS_average_tail))},
              {"clip", absl::StrCat(setting.clip)},
              {"radius", absl::StrCat(absl::GetFlag(FLAGS_radius))},
              {"l2", absl::StrCat(absl::GetFlag(FLAGS_l2))}}}};
  const size_t n_train = s.train_records.size();
  const RecordSource records = [&s, seed, n_train](uint64_t agent) {
    return s.train_records[SplitMix64(seed * 0xD1B54A32D192ED03 + agent) %
                           n_train];
  };
  std::mt19937_64 coins(seed * 1000003 + std::llround(eps * 1000));
  const TimedSimulation timed =
      SimulateTimed(study, absl::GetFlag(FLAGS_agents), records, coins);
  const absl::StatusOr<SimulationResult>& result = timed.run;
  if (!result.ok()) return result.status();
  Run run{.seconds = timed.seconds,
          .max_spent = result->max_spent_nanos,
          .refused = result->refused_over_cap};
  const int d = static_cast<int>(s.features.size());
  std::vector<const ProgramResult*> results;
  for (const SimulatedRound& r : result->rounds) results.push_back(&r.result_before);
  results.push_back(&result->result);
  for (const ProgramResult* r : results) {
    absl::StatusOr<LogisticModel> iterate = LogisticIterateFromResult(*r, d);
    if (!iterate.ok()) return iterate.status();
    run.iterates.push_back(*std::move(iterate));
    absl::StatusOr<LogisticModel> released = LogisticModelFromResult(*r, d);
    if (!released.ok()) return released.status();
    if (!IsFinite(run.iterates.back()) || !IsFinite(*released)) {
      return absl::InternalError(absl::StrCat(
          "the private run (seed ", seed, ", ε = ", eps,
          ") released a model with a non-finite weight"));
    }
    run.released.push_back(*std::move(released));
  }
  return run;
}

// A printed figure: v with `digits` decimals, or "n/a" when it is not
// finite (the splits and models are checked before anything is computed,
// so this is the last guard: no NaN is ever printed as a result).
std::string Figure(double v, int digits = 3) {
  return std::isfinite(v) ? absl::StrFormat("%.*f", digits, v) : "n/a";
}

std::string MeanSd(const std::vector<double>& v) {
  const double mean = std::accumulate(v.begin(), v.end(), 0.0) / v.size();
  double ss = 0;
  for (double x : v) ss += (x - mean) * (x - mean);
  const double sd = v.size() > 1 ? std::sqrt(ss / (v.size() - 1)) : 0;
  if (v.empty() || !std::isfinite(mean) || !std::isfinite(sd)) return "n/a";
  return absl::StrFormat("%.3f ± %.3f", mean, sd);
}

double Mean(const std::vector<double>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0) / v.size();
}

absl::StatusOr<std::vector<double>> ParseList(const std::string& flag,
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

absl::StatusOr<std::vector<Setting>> Grid() {
  std::vector<Setting> grid;
  absl::StatusOr<std::vector<double>> etas =
      ParseList("grid_learning_rate", absl::GetFlag(FLAGS_grid_learning_rate));
  absl::StatusOr<std::vector<double>> rounds =
      ParseList("grid_rounds", absl::GetFlag(FLAGS_grid_rounds));
  absl::StatusOr<std::vector<double>> clips =
      ParseList("grid_clip", absl::GetFlag(FLAGS_grid_clip));
  for (const auto* list : {&etas, &rounds, &clips}) {
    if (!list->ok()) return list->status();
  }
  const std::vector<std::string> schedules =
      absl::StrSplit(absl::GetFlag(FLAGS_grid_schedule), ',');
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

absl::Status NonFiniteNewton() {
  return absl::InternalError(
      "the non-private Newton baseline has a non-finite weight; try a larger "
      "--baseline_l2");
}

// Phase 1: the grid setting with the best validation accuracy at
// --select_epsilon (ties: lower validation log-loss), trained on train minus
// validation. Prints the whole search.
absl::StatusOr<Setting> Select(const Split& sel,
                               const std::vector<Setting>& grid) {
  const double eps = absl::GetFlag(FLAGS_select_epsilon);
  const int seeds = absl::GetFlag(FLAGS_select_seeds);
  const LogisticModel newton = Newton(sel, absl::GetFlag(FLAGS_baseline_l2));
  if (!IsFinite(newton)) return NonFiniteNewton();
  std::printf(
      "## Selection: %zu settings × %d seeds (1001 …) at ε = %g; trained on "
      "%zu rows, scored on %zu validation rows\n\nnon-private Newton on the "
      "same rows: validation accuracy %s, log-loss %s\n\n",
      grid.size(), seeds, eps, sel.train_y.size(), sel.held_y.size(),
      Figure(Accuracy(newton, sel.held_x, sel.held_y)).c_str(),
      Figure(LogLoss(newton, sel.held_x, sel.held_y)).c_str());
  PrintMarkdownHeader({"setting", "validation accuracy", "validation log-loss",
                       "GD (averaged) validation accuracy"});
  std::fflush(stdout);
  size_t best = 0;
  double best_acc = -1, best_loss = INFINITY;
  for (size_t k = 0; k < grid.size(); ++k) {
    std::vector<double> acc, loss;
    for (int seed = 1001; seed <= 1000 + seeds; ++seed) {
      absl::StatusOr<Run> run = RunPrivate(sel, grid[k], eps, seed);
      if (!run.ok()) return run.status();
      acc.push_back(Accuracy(run->released.back(), sel.held_x, sel.held_y));
      loss.push_back(LogLoss(run->released.back(), sel.held_x, sel.held_y));
    }
    const LogisticModel gd = TailAverage(GradientDescentPath(sel, grid[k]));
    std::printf("| %s | %s | %s | %s |\n", grid[k].Name().c_str(),
                MeanSd(acc).c_str(), MeanSd(loss).c_str(),
                Figure(Accuracy(gd, sel.held_x, sel.held_y)).c_str());
    std::fflush(stdout);
    if (Mean(acc) > best_acc || (Mean(acc) == best_acc && Mean(loss) < best_loss)) {
      best = k, best_acc = Mean(acc), best_loss = Mean(loss);
    }
  }
  std::printf("\nchosen: %s (validation accuracy %s, log-loss %s)\n\n",
              grid[best].Name().c_str(), Figure(best_acc).c_str(),
              Figure(best_loss).c_str());
  return grid[best];
}

void PrintPerRound(const Run& run, const Split& s, const Setting& setting,
                   double eps) {
  const std::vector<LogisticModel> gd = GradientDescentPath(s, setting);
  std::printf("## Per round, ε = %g, seed 1\n\nBefore round t + 1 (t = %d: "
              "final); \"released\" = mean of the averaging window's iterates "
              "so far (the iterate before the window starts); train/test "
              "accuracy.\n\n",
              eps, setting.rounds);
  PrintMarkdownHeader({"t", "iterate train", "iterate test", "released train",
                       "released test", "GD iterate test", "GD released test"});
  const int first = setting.rounds - AveragedRounds(setting.rounds) + 1;
  for (size_t t = 0; t < run.iterates.size(); ++t) {
    // The GD twin's released model: the mean of its window's iterates so far.
    LogisticModel gd_released = gd[t];
    if (static_cast<int>(t) >= first) {
      gd_released.theta.assign(gd[t].theta.size(), 0);
      gd_released.bias = 0;
      for (int i = first; i <= static_cast<int>(t); ++i) {
        for (size_t j = 0; j < gd_released.theta.size(); ++j) {
          gd_released.theta[j] += gd[i].theta[j] / (t - first + 1);
        }
        gd_released.bias += gd[i].bias / (t - first + 1);
      }
    }
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

// The rows of the CSV, shuffled once by --split_seed: test rows first, then
// validation, then the rest of train. `fit` is train minus validation.
struct RowSplit {
  std::vector<size_t> test, validation, fit, train;
};

RowSplit ShuffleRows(size_t rows) {
  std::vector<size_t> order(rows);
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 gen(absl::GetFlag(FLAGS_split_seed));
  std::shuffle(order.begin(), order.end(), gen);
  const size_t n_test =
      std::llround(absl::GetFlag(FLAGS_test_fraction) * order.size());
  const size_t n_val = std::llround(absl::GetFlag(FLAGS_validation_fraction) *
                                    (order.size() - n_test));
  return RowSplit{
      .test = std::vector<size_t>(order.begin(), order.begin() + n_test),
      .validation = std::vector<size_t>(order.begin() + n_test,
                                        order.begin() + n_test + n_val),
      .fit = std::vector<size_t>(order.begin() + n_test + n_val, order.end()),
      .train = std::vector<size_t>(order.begin() + n_test, order.end())};
}

// The non-private baselines on the report's split.
struct Baselines {
  double newton_train = 0;
  double newton_test = 0;
};

absl::StatusOr<Baselines> PrintReportHeader(const Split& s,
                                            const Setting& chosen) {
  const std::vector<LogisticModel> gd = GradientDescentPath(s, chosen);
  const LogisticModel gd_avg = TailAverage(gd);
  const LogisticModel newton = Newton(s, absl::GetFlag(FLAGS_baseline_l2));
  if (!IsFinite(newton)) return NonFiniteNewton();
  const Baselines baselines{
      .newton_train = Accuracy(newton, s.train_x, s.train_y),
      .newton_test = Accuracy(newton, s.held_x, s.held_y)};
  const int per_coordinate = static_cast<int>(
      absl::GetFlag(FLAGS_agents) / chosen.rounds / (s.features.size() + 1));
  std::printf(
      "## Report: %s, trained on all %zu train rows, evaluated on %zu test "
      "rows (~%d reports per gradient coordinate per round)\n\n"
      "non-private Newton (λ = %g): train %s, test %s; non-private GD, "
      "same setting: last iterate test %s, averaged test %s\n\n",
      chosen.Name().c_str(), s.train_y.size(), s.held_y.size(), per_coordinate,
      absl::GetFlag(FLAGS_baseline_l2), Figure(baselines.newton_train).c_str(),
      Figure(baselines.newton_test).c_str(),
      Figure(Accuracy(gd.back(), s.held_x, s.held_y)).c_str(),
      Figure(Accuracy(gd_avg, s.held_x, s.held_y)).c_str());
  std::fflush(stdout);
  return baselines;
}

// One ε of the report: --seeds private runs of the chosen setting.
struct Row {
  double eps = 0;
  std::vector<double> train{}, test{}, last_test{};
  double seconds = 0;
  int64_t max_spent = 0, refused = 0;
  std::string mechanism{};
};

// nullopt after printing why a run failed.
std::optional<Row> ReportEpsilon(const Split& s, const Setting& chosen,
                                 double eps) {
  Row row{.eps = eps};
  for (int seed = 1; seed <= absl::GetFlag(FLAGS_seeds); ++seed) {
    absl::StatusOr<Run> run = RunPrivate(s, chosen, eps, seed);
    if (!run.ok()) {
      std::fprintf(stderr, "ε = %g seed %d: %s\n", eps, seed,
                   run.status().ToString().c_str());
      return std::nullopt;
    }
    row.train.push_back(Accuracy(run->released.back(), s.train_x, s.train_y));
    row.test.push_back(Accuracy(run->released.back(), s.held_x, s.held_y));
    row.last_test.push_back(
        Accuracy(run->iterates.back(), s.held_x, s.held_y));
    row.seconds += run->seconds;
    row.max_spent = std::max(row.max_spent, run->max_spent);
    row.refused += run->refused;
    if (seed == 1 && eps == absl::GetFlag(FLAGS_per_round_epsilon)) {
      PrintPerRound(*run, s, chosen, eps);
    }
    std::fflush(stdout);
  }
  return row;
}

void PrintSummary(const std::vector<Row>& rows, const Baselines& baselines) {
  std::printf("## Summary (%d seeds per ε, mean ± sd; gap = Newton test − "
              "private released test mean)\n\n", absl::GetFlag(FLAGS_seeds));
  PrintMarkdownHeader({"ε", "released train", "released test",
                       "last iterate test", "Newton train", "Newton test",
                       "gap (points)", "max ε spent", "refused", "s/run"});
  for (const Row& r : rows) {
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

// The flags that are not lists, checked before the data is read.
absl::Status CheckFlags() {
  const int64_t agents = absl::GetFlag(FLAGS_agents);
  const double test = absl::GetFlag(FLAGS_test_fraction);
  const double validation = absl::GetFlag(FLAGS_validation_fraction);
  if (agents < 1 || agents > 1'000'000) {
    return absl::InvalidArgumentError("--agents must be in [1, 10^6]");
  }
  if (absl::GetFlag(FLAGS_seeds) < 1 || absl::GetFlag(FLAGS_select_seeds) < 1) {
    return absl::InvalidArgumentError("--seeds and --select_seeds must be >= 1");
  }
  if (!(test > 0 && test < 1) || !(validation >= 0 && validation < 1)) {
    return absl::InvalidArgumentError(
        "--test_fraction must be in (0, 1), --validation_fraction in [0, 1)");
  }
  return absl::OkStatus();
}

// The rows of --csv and the --bounds declared for its features. Prints the
// headers renamed to valid field names, once, if any was.
struct Input {
  TabularData data;
  DeclaredBounds declared;
};

absl::StatusOr<Input> ReadInput() {
  absl::StatusOr<TabularData> data =
      ReadTabularCsv(absl::GetFlag(FLAGS_csv), absl::GetFlag(FLAGS_label));
  if (absl::IsNotFound(data.status())) {
    return absl::NotFoundError(absl::StrCat(
        std::string(data.status().message()), " (pass --csv=FILE: any CSV with a header "
        "line, real features and a 0/1 --label column; "
        "bench/data/export_sklearn_datasets.py writes bench/data/"
        "breast_cancer.csv, wine.csv and digits.csv)"));
  }
  if (!data.ok()) return data.status();
  absl::StatusOr<DeclaredBounds> declared = ParseDeclaredBounds(
      absl::GetFlag(FLAGS_bounds), data->headers, data->label_header);
  if (!declared.ok()) return declared.status();
  std::vector<std::string> headers = data->headers, names = data->features;
  headers.push_back(data->label_header);
  names.push_back(data->label_field);
  const std::string renames = DescribeRenames(headers, names);
  if (!renames.empty()) {
    std::printf("CSV headers renamed to valid field names:\n%s\n",
                renames.c_str());
  }
  return Input{.data = *std::move(data), .declared = *std::move(declared)};
}

// The features a phase's model leaves out (constant on its training rows,
// no declared bounds) and the training values clamped into declared bounds.
void PrintBoundsNotes(const char* phase, const TabularData& data,
                      const Split& s) {
  const FeatureBounds& f = s.bounds;
  if (!f.dropped.empty()) {
    std::vector<std::string> left_out;
    for (size_t k = 0; k < f.dropped.size(); ++k) {
      left_out.push_back(absl::StrFormat("\"%s\" (= %g)",
                                         data.headers[f.dropped[k]],
                                         f.dropped_value[k]));
    }
    std::printf("%s: %zu of %zu features are constant on its %zu training "
                "rows and have no declared bounds, so its model leaves them "
                "out: %s\n\n", phase, f.dropped.size(), data.headers.size(),
                s.train_y.size(), absl::StrJoin(left_out, ", ").c_str());
  }
  if (f.clamped_values > 0) {
    std::printf("%s: %lld training values lie outside their declared bounds "
                "and are clamped into them\n\n", phase,
                static_cast<long long>(f.clamped_values));
  }
}

// Both phases' splits, checked before anything is computed from them; the
// selection split only when there is a grid to search.
struct Splits {
  std::optional<Split> selection;
  Split report;
};

absl::StatusOr<Splits> MakeSplits(const Input& in, const RowSplit& rows,
                                  bool select) {
  if (rows.test.empty() || rows.fit.empty() ||
      (select && rows.validation.empty())) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%zu rows are too few for --test_fraction=%g and "
        "--validation_fraction=%g: the test, validation and training splits "
        "each need at least one row", in.data.y.size(),
        absl::GetFlag(FLAGS_test_fraction),
        absl::GetFlag(FLAGS_validation_fraction)));
  }
  Splits splits;
  const auto too_many = [](const Split& s) {
    return s.features.size() > static_cast<size_t>(kMaxLogisticFeatures);
  };
  if (select) {
    absl::StatusOr<Split> sel =
        MakeSplit(in.data, rows.fit, rows.validation, in.declared);
    if (!sel.ok()) return sel.status();
    splits.selection = *std::move(sel);
  }
  absl::StatusOr<Split> report =
      MakeSplit(in.data, rows.train, rows.test, in.declared);
  if (!report.ok()) return report.status();
  splits.report = *std::move(report);
  if (too_many(splits.report) ||
      (select && too_many(*splits.selection))) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the model would use more than ", kMaxLogisticFeatures,
        " features, the logistic_regression program's limit; use fewer "
        "columns"));
  }
  return splits;
}

void PrintDataLine(const Input& in, const RowSplit& rows) {
  const size_t declared = std::count_if(
      in.declared.begin(), in.declared.end(),
      [](const std::optional<ValueRange>& b) { return b.has_value(); });
  std::printf(
      "data %s: %zu rows, %zu features (%zu with declared bounds, the rest "
      "bounded by the training rows' min and max); test %zu, train %zu "
      "(validation %zu of them); n = %lld agents; average_tail = %g, R = %g, "
      "λ = %g\n\n",
      absl::GetFlag(FLAGS_csv).c_str(), in.data.y.size(),
      in.data.headers.size(), declared, rows.test.size(), rows.train.size(),
      rows.validation.size(),
      static_cast<long long>(absl::GetFlag(FLAGS_agents)),
      absl::GetFlag(FLAGS_average_tail), absl::GetFlag(FLAGS_radius),
      absl::GetFlag(FLAGS_l2));
}

int Fail(const absl::Status& status, int code) {
  std::fprintf(stderr, "%s\n", status.ToString().c_str());
  return code;
}

int Main() {
  absl::StatusOr<std::vector<double>> epsilons =
      ParseList("epsilon", absl::GetFlag(FLAGS_epsilon));
  absl::StatusOr<std::vector<Setting>> grid = Grid();
  for (const absl::Status& status :
       {CheckFlags(), epsilons.status(), grid.status()}) {
    if (!status.ok()) return Fail(status, 2);
  }
  absl::StatusOr<Input> in = ReadInput();
  if (!in.ok()) return Fail(in.status(), 1);
  const RowSplit rows = ShuffleRows(in->data.y.size());
  absl::StatusOr<Splits> splits = MakeSplits(*in, rows, grid->size() > 1);
  if (!splits.ok()) return Fail(splits.status(), 1);
  PrintDataLine(*in, rows);
  if (splits->selection.has_value()) {
    PrintBoundsNotes("selection split", in->data, *splits->selection);
  }
  PrintBoundsNotes("report split", in->data, splits->report);

  Setting chosen = grid->front();
  if (splits->selection.has_value()) {
    absl::StatusOr<Setting> selected = Select(*splits->selection, *grid);
    if (!selected.ok()) return Fail(selected.status(), 1);
    chosen = *selected;
  }
  const absl::StatusOr<Baselines> baselines =
      PrintReportHeader(splits->report, chosen);
  if (!baselines.ok()) return Fail(baselines.status(), 1);
  std::vector<Row> report;
  for (double eps : *epsilons) {
    std::optional<Row> row = ReportEpsilon(splits->report, chosen, eps);
    if (!row.has_value()) return 1;
    report.push_back(*std::move(row));
  }
  PrintSummary(report, *baselines);
  return 0;
}

}  // namespace
}  // namespace ldp

int main(int argc, char** argv) {
  return ldp::ExperimentMain(argc, argv, "Logistic regression by private "
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
      "logistic_regression_experiment [--csv=bench/data/breast_cancer.csv] "
      "[--label=label] [--bounds=NAME=LO:HI,...|'*=LO:HI'] "
      "[--epsilon=0.5,1,2,4] [--agents=1000000] [--seeds=5] "
      "[--grid_learning_rate=2,4,8] [--grid_rounds=25,50,100] "
      "[--grid_clip=0.1,0.25] [--grid_schedule=constant,inverse_sqrt]\n"
      "Example: logistic_regression_experiment --csv=bench/data/digits.csv "
      "--bounds='*=0:16'",
      ldp::Main);
}
