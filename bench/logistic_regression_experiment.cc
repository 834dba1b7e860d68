// Logistic regression by private gradient descent on real tabular data
// (issue: interactive learning, "Logistic regression by private gradient
// descent"): the `logistic_regression` analyst program run through the
// in-process simulator, against non-private logistic regression on the same
// training split.
//
// Data: a CSV with a header, real feature columns and a 0/1 label column
// (default: bench/data/breast_cancer.csv, exported from python3-sklearn by
// bench/data/export_breast_cancer.py). Rows are shuffled with --split_seed
// and split into train and test (--test_fraction); the test rows are never
// used for training or scaling.
//
// Public preprocessing assumption: every feature's schema bounds [lo, hi]
// are the train split's min and max. The program scales by the schema's
// bounds, and an agent clamps its value into them (so test rows outside
// them are clamped too, for every model alike).
//
// Agents: agent i's record is train row SplitMix64(seed, i) mod n_train —
// rows resampled uniformly with replacement, computed on demand (no table
// of 10^6 agents). Coins come from a seeded generator for reproducibility.
//
// Baselines, on the same scaled features: (a) "GD": the same T full-batch
// gradient steps with the same η, radius and λ, exact and unclipped — what
// the private run would do without noise; (b) "Newton": the logistic
// regression optimum (Newton's method with L2 --baseline_l2, to
// convergence), the non-private model the target compares against.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "server/program_simulator.h"
#include "server/programs/logistic_regression.h"

ABSL_FLAG(std::string, csv, "bench/data/breast_cancer.csv",
          "CSV with a header; every column but --label is a real feature.");
ABSL_FLAG(std::string, label, "label", "The 0/1 label column.");
ABSL_FLAG(int64_t, agents, 1'000'000,
          "Simulated agents per run (at most 10^6): train rows resampled.");
ABSL_FLAG(std::string, epsilon, "0.5,1,2,4",
          "Comma-separated per-agent caps ε (one summary row each).");
ABSL_FLAG(int, rounds, 50, "Gradient steps T (one disjoint slice each).");
ABSL_FLAG(double, learning_rate, 4, "Step size η.");
ABSL_FLAG(std::string, schedule, "constant", "constant or inverse_sqrt.");
ABSL_FLAG(double, clip, 0.25, "Clip bound c of each gradient coordinate.");
ABSL_FLAG(double, radius, 20, "Projection radius R of (θ, b).");
ABSL_FLAG(double, l2, 0, "L2 penalty λ of the private run and the GD baseline.");
ABSL_FLAG(double, baseline_l2, 1e-3,
          "L2 penalty of the Newton baseline (keeps it finite if separable).");
ABSL_FLAG(int, seeds, 3, "Private runs per ε (seeds 1..N).");
ABSL_FLAG(uint64_t, split_seed, 1, "Seed of the train/test shuffle.");
ABSL_FLAG(double, test_fraction, 0.2, "Share of rows held out for test.");
ABSL_FLAG(double, per_round_epsilon, 2,
          "Print the per-round table for the seed-1 run at this ε (0: none).");

namespace ldp {
namespace {

struct Data {
  std::vector<std::string> features{};
  std::vector<std::vector<double>> x{};  // raw rows
  std::vector<int> y{};
};

absl::StatusOr<Data> ReadCsv(const std::string& path, const std::string& label) {
  std::ifstream in(path);
  if (!in) {
    return absl::NotFoundError(absl::StrCat(
        "cannot read ", path, " (run bench/data/export_breast_cancer.py, "
        "or pass --csv)"));
  }
  std::string line;
  std::getline(in, line);
  const std::vector<std::string> header = absl::StrSplit(line, ',');
  const auto label_it = std::find(header.begin(), header.end(), label);
  if (label_it == header.end()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, " has no column \"", label, "\""));
  }
  const size_t label_col = label_it - header.begin();
  Data data;
  for (size_t c = 0; c < header.size(); ++c) {
    if (c != label_col) data.features.push_back(header[c]);
  }
  for (int row = 2; std::getline(in, line); ++row) {
    if (line.empty()) continue;
    const std::vector<std::string> cells = absl::StrSplit(line, ',');
    if (cells.size() != header.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ":", row, ": ", cells.size(), " cells, want ",
                       header.size()));
    }
    std::vector<double> x;
    for (size_t c = 0; c < cells.size(); ++c) {
      double v = 0;
      if (!absl::SimpleAtod(cells[c], &v) || !std::isfinite(v)) {
        return absl::InvalidArgumentError(
            absl::StrCat(path, ":", row, ": bad number \"", cells[c], "\""));
      }
      if (c == label_col) {
        if (v != 0 && v != 1) {
          return absl::InvalidArgumentError(
              absl::StrCat(path, ":", row, ": label must be 0 or 1"));
        }
        data.y.push_back(static_cast<int>(v));
      } else {
        x.push_back(v);
      }
    }
    data.x.push_back(std::move(x));
  }
  return data;
}

// The train split's rows, already scaled to x̃ ∈ [−1, 1] by its bounds.
struct Split {
  std::vector<double> lo{}, hi{};
  std::vector<std::vector<double>> train_x{}, test_x{};  // scaled
  std::vector<int> train_y{}, test_y{};
  std::vector<Record> train_records{};  // raw values, for the agents
};

double ScaleValue(double v, double lo, double hi) {
  return 2 * (std::clamp(v, lo, hi) - lo) / (hi - lo) - 1;
}

Split MakeSplit(const Data& data, uint64_t seed, double test_fraction,
                const std::string& label) {
  std::vector<size_t> order(data.y.size());
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 gen(seed);
  std::shuffle(order.begin(), order.end(), gen);
  const size_t n_test = std::llround(test_fraction * order.size());
  const size_t d = data.features.size();
  Split s{.lo = std::vector<double>(d, INFINITY),
          .hi = std::vector<double>(d, -INFINITY)};
  for (size_t k = n_test; k < order.size(); ++k) {
    for (size_t j = 0; j < d; ++j) {
      s.lo[j] = std::min(s.lo[j], data.x[order[k]][j]);
      s.hi[j] = std::max(s.hi[j], data.x[order[k]][j]);
    }
  }
  for (size_t k = 0; k < order.size(); ++k) {
    const size_t i = order[k];
    std::vector<double> scaled(d);
    for (size_t j = 0; j < d; ++j) {
      scaled[j] = ScaleValue(data.x[i][j], s.lo[j], s.hi[j]);
    }
    if (k < n_test) {
      s.test_x.push_back(std::move(scaled));
      s.test_y.push_back(data.y[i]);
      continue;
    }
    s.train_x.push_back(std::move(scaled));
    s.train_y.push_back(data.y[i]);
    Record r;
    for (size_t j = 0; j < d; ++j) r.values[data.features[j]] = data.x[i][j];
    r.values[label] = data.y[i] == 1;
    s.train_records.push_back(std::move(r));
  }
  return s;
}

double Sigmoid(double z) {
  const double e = std::exp(-std::fabs(z));
  return z >= 0 ? 1 / (1 + e) : e / (1 + e);
}

double Margin(const LogisticModel& m, const std::vector<double>& x) {
  return std::inner_product(x.begin(), x.end(), m.theta.begin(), m.bias);
}

double Accuracy(const LogisticModel& m,
                const std::vector<std::vector<double>>& x,
                const std::vector<int>& y) {
  int correct = 0;
  for (size_t i = 0; i < y.size(); ++i) correct += (Margin(m, x[i]) > 0) == (y[i] == 1);
  return static_cast<double>(correct) / y.size();
}

// Mean logistic-loss gradient (θ-part then bias) over the train split.
std::vector<double> Gradient(const LogisticModel& m, const Split& s) {
  const size_t d = m.theta.size();
  std::vector<double> g(d + 1, 0);
  for (size_t i = 0; i < s.train_y.size(); ++i) {
    const double r = Sigmoid(Margin(m, s.train_x[i])) - s.train_y[i];
    for (size_t j = 0; j < d; ++j) g[j] += r * s.train_x[i][j];
    g[d] += r;
  }
  for (double& v : g) v /= s.train_y.size();
  return g;
}

// The non-private twin of the program's T steps (same η_t, λ, projection).
std::vector<LogisticModel> GradientDescentPath(const Split& s, int rounds,
                                               double eta, bool inverse_sqrt,
                                               double l2, double radius) {
  const size_t d = s.train_x[0].size();
  LogisticModel m{.theta = std::vector<double>(d)};
  std::vector<LogisticModel> path = {m};
  for (int t = 0; t < rounds; ++t) {
    const std::vector<double> g = Gradient(m, s);
    const double step = inverse_sqrt ? eta / std::sqrt(t + 1.0) : eta;
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

// argmin of mean logistic loss + (λ/2)‖θ‖² (bias unpenalized), by Newton.
LogisticModel Newton(const Split& s, double l2) {
  const size_t d = s.train_x[0].size(), p = d + 1;
  LogisticModel m{.theta = std::vector<double>(d)};
  for (int iter = 0; iter < 100; ++iter) {
    std::vector<double> g = Gradient(m, s);
    for (size_t j = 0; j < d; ++j) g[j] += l2 * m.theta[j];
    std::vector<std::vector<double>> h(p, std::vector<double>(p + 1, 0));
    for (size_t i = 0; i < s.train_y.size(); ++i) {
      const double q = Sigmoid(Margin(m, s.train_x[i]));
      const double w = q * (1 - q) / s.train_y.size();
      for (size_t a = 0; a < p; ++a) {
        const double xa = a < d ? s.train_x[i][a] : 1;
        for (size_t b = 0; b < p; ++b) {
          h[a][b] += w * xa * (b < d ? s.train_x[i][b] : 1);
        }
      }
    }
    for (size_t j = 0; j < d; ++j) h[j][j] += l2;
    for (size_t a = 0; a < p; ++a) h[a][p] = g[a];
    // Gaussian elimination with partial pivoting: h·step = g.
    for (size_t c = 0; c < p; ++c) {
      size_t pivot = c;
      for (size_t r = c + 1; r < p; ++r) {
        if (std::fabs(h[r][c]) > std::fabs(h[pivot][c])) pivot = r;
      }
      std::swap(h[c], h[pivot]);
      for (size_t r = 0; r < p; ++r) {
        if (r == c || h[c][c] == 0) continue;
        const double f = h[r][c] / h[c][c];
        for (size_t k = c; k <= p; ++k) h[r][k] -= f * h[c][k];
      }
    }
    double change = 0;
    for (size_t a = 0; a < p; ++a) {
      const double step = h[a][a] == 0 ? 0 : h[a][p] / h[a][a];
      (a < d ? m.theta[a] : m.bias) -= step;
      change = std::max(change, std::fabs(step));
    }
    if (change < 1e-10) break;
  }
  return m;
}

uint64_t SplitMix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EB;
  return x ^ (x >> 31);
}

struct Run {
  std::vector<LogisticModel> path{};  // model before each round, then final
  double seconds = 0;
  int64_t max_spent = 0;
  int64_t refused = 0;
};

absl::StatusOr<Run> RunPrivate(const Split& s, const Data& data, double eps,
                               uint64_t seed) {
  std::vector<FieldSpec> fields;
  for (size_t j = 0; j < data.features.size(); ++j) {
    fields.push_back(FieldSpec::Real(data.features[j], s.lo[j], s.hi[j]));
  }
  const std::string label = absl::GetFlag(FLAGS_label);
  fields.push_back(FieldSpec::Bool(label));
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
              {"features", absl::StrJoin(data.features, ",")},
              {"label", label},
              {"rounds", absl::StrCat(absl::GetFlag(FLAGS_rounds))},
              {"learning_rate", absl::StrCat(absl::GetFlag(FLAGS_learning_rate))},
              {"schedule", absl::GetFlag(FLAGS_schedule)},
              {"clip", absl::StrCat(absl::GetFlag(FLAGS_clip))},
              {"radius", absl::StrCat(absl::GetFlag(FLAGS_radius))},
              {"l2", absl::StrCat(absl::GetFlag(FLAGS_l2))}}}};
  const size_t n_train = s.train_records.size();
  const RecordSource records = [&s, seed, n_train](uint64_t agent) {
    return s.train_records[SplitMix64(seed * 0xD1B54A32D192ED03 + agent) %
                           n_train];
  };
  std::mt19937_64 coins(seed * 1000003 + std::llround(eps * 1000));
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<SimulationResult> result =
      SimulateStudy(study, absl::GetFlag(FLAGS_agents), records, coins);
  if (!result.ok()) return result.status();
  Run run{.seconds = std::chrono::duration<double>(
                         std::chrono::steady_clock::now() - start)
                         .count(),
          .max_spent = result->max_spent_nanos,
          .refused = result->refused_over_cap};
  const int d = static_cast<int>(data.features.size());
  for (const SimulatedRound& r : result->rounds) {
    absl::StatusOr<LogisticModel> m = LogisticModelFromResult(r.result_before, d);
    if (!m.ok()) return m.status();
    run.path.push_back(*std::move(m));
  }
  absl::StatusOr<LogisticModel> m = LogisticModelFromResult(result->result, d);
  if (!m.ok()) return m.status();
  run.path.push_back(*std::move(m));
  return run;
}

std::string MeanSd(const std::vector<double>& v) {
  const double mean = std::accumulate(v.begin(), v.end(), 0.0) / v.size();
  double ss = 0;
  for (double x : v) ss += (x - mean) * (x - mean);
  const double sd = v.size() > 1 ? std::sqrt(ss / (v.size() - 1)) : 0;
  return absl::StrFormat("%.3f ± %.3f", mean, sd);
}

int Main() {
  if (absl::GetFlag(FLAGS_agents) < 1 ||
      absl::GetFlag(FLAGS_agents) > 1'000'000) {
    std::fprintf(stderr, "--agents must be in [1, 10^6]\n");
    return 2;
  }
  std::vector<double> epsilons;
  for (absl::string_view e : absl::StrSplit(absl::GetFlag(FLAGS_epsilon), ',')) {
    double v = 0;
    if (!absl::SimpleAtod(e, &v) || !(v > 0)) {
      std::fprintf(stderr, "bad --epsilon entry \"%s\"\n", std::string(e).c_str());
      return 2;
    }
    epsilons.push_back(v);
  }
  absl::StatusOr<Data> data =
      ReadCsv(absl::GetFlag(FLAGS_csv), absl::GetFlag(FLAGS_label));
  if (!data.ok()) {
    std::fprintf(stderr, "%s\n", data.status().ToString().c_str());
    return 1;
  }
  const Split s = MakeSplit(*data, absl::GetFlag(FLAGS_split_seed),
                            absl::GetFlag(FLAGS_test_fraction),
                            absl::GetFlag(FLAGS_label));
  const int rounds = absl::GetFlag(FLAGS_rounds);
  const std::vector<LogisticModel> gd = GradientDescentPath(
      s, rounds, absl::GetFlag(FLAGS_learning_rate),
      absl::GetFlag(FLAGS_schedule) == "inverse_sqrt", absl::GetFlag(FLAGS_l2),
      absl::GetFlag(FLAGS_radius));
  const LogisticModel newton = Newton(s, absl::GetFlag(FLAGS_baseline_l2));
  const double newton_train = Accuracy(newton, s.train_x, s.train_y);
  const double newton_test = Accuracy(newton, s.test_x, s.test_y);
  std::printf(
      "data %s: %zu train / %zu test rows, %zu features; n = %lld agents, "
      "T = %d rounds (%lld agents per round, ~%lld per gradient coordinate), "
      "η = %g (%s), c = %g, R = %g, λ = %g\n",
      absl::GetFlag(FLAGS_csv).c_str(), s.train_y.size(), s.test_y.size(),
      data->features.size(), static_cast<long long>(absl::GetFlag(FLAGS_agents)),
      rounds, static_cast<long long>(absl::GetFlag(FLAGS_agents) / rounds),
      static_cast<long long>(absl::GetFlag(FLAGS_agents) / rounds /
                             (data->features.size() + 1)),
      absl::GetFlag(FLAGS_learning_rate), absl::GetFlag(FLAGS_schedule).c_str(),
      absl::GetFlag(FLAGS_clip), absl::GetFlag(FLAGS_radius),
      absl::GetFlag(FLAGS_l2));
  std::printf(
      "non-private Newton (λ = %g): train %.3f, test %.3f; non-private GD "
      "after %d steps: train %.3f, test %.3f\n\n",
      absl::GetFlag(FLAGS_baseline_l2), newton_train, newton_test, rounds,
      Accuracy(gd.back(), s.train_x, s.train_y),
      Accuracy(gd.back(), s.test_x, s.test_y));

  struct Row {
    double eps = 0;
    std::vector<double> train{}, test{};
    double seconds = 0;
    int64_t max_spent = 0, refused = 0;
    std::string mechanism{};
  };
  std::vector<Row> rows;
  for (double eps : epsilons) {
    Row row{.eps = eps};
    absl::StatusOr<RealMechanismKind> kind =
        ChosenMechanism(eps, absl::GetFlag(FLAGS_clip));
    row.mechanism = kind.ok() ? std::string(RealMechanismKindName(*kind)) : "?";
    for (int seed = 1; seed <= absl::GetFlag(FLAGS_seeds); ++seed) {
      absl::StatusOr<Run> run = RunPrivate(s, *data, eps, seed);
      if (!run.ok()) {
        std::fprintf(stderr, "ε = %g seed %d: %s\n", eps, seed,
                     run.status().ToString().c_str());
        return 1;
      }
      row.train.push_back(Accuracy(run->path.back(), s.train_x, s.train_y));
      row.test.push_back(Accuracy(run->path.back(), s.test_x, s.test_y));
      row.seconds += run->seconds;
      row.max_spent = std::max(row.max_spent, run->max_spent);
      row.refused += run->refused;
      if (seed == 1 && eps == absl::GetFlag(FLAGS_per_round_epsilon)) {
        std::printf("per round, ε = %g, seed 1 (accuracy of the model before "
                    "round t; t = %d is the final model):\n\n", eps, rounds);
        std::printf("| t | private train | private test | GD train | GD test "
                    "| Newton train | Newton test |\n|---|---|---|---|---|---|---|\n");
        for (size_t t = 0; t < run->path.size(); ++t) {
          std::printf("| %zu | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f |\n", t,
                      Accuracy(run->path[t], s.train_x, s.train_y),
                      Accuracy(run->path[t], s.test_x, s.test_y),
                      Accuracy(gd[t], s.train_x, s.train_y),
                      Accuracy(gd[t], s.test_x, s.test_y), newton_train,
                      newton_test);
        }
        std::printf("\n");
      }
      std::fflush(stdout);
    }
    rows.push_back(std::move(row));
  }
  std::printf("summary (%d seeds per ε, mean ± sd; gap = Newton test − "
              "private test mean):\n\n", absl::GetFlag(FLAGS_seeds));
  std::printf("| ε | mechanism | private train | private test | Newton train "
              "| Newton test | gap (points) | max ε spent | refused | s/run |\n"
              "|---|---|---|---|---|---|---|---|---|---|\n");
  for (const Row& r : rows) {
    const double mean_test =
        std::accumulate(r.test.begin(), r.test.end(), 0.0) / r.test.size();
    std::printf("| %g | %s | %s | %s | %.3f | %.3f | %.1f | %g | %lld | %.1f |\n",
                r.eps, r.mechanism.c_str(), MeanSd(r.train).c_str(),
                MeanSd(r.test).c_str(), newton_train, newton_test,
                100 * (newton_test - mean_test), r.max_spent / 1e9,
                static_cast<long long>(r.refused), r.seconds / r.train.size());
  }
  return 0;
}

}  // namespace
}  // namespace ldp

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "Logistic regression by private gradient descent (analyst program "
      "logistic_regression) on a CSV's train split, simulated agents = train "
      "rows resampled, against non-private GD and Newton on the same split; "
      "prints per-round and summary markdown tables.\nUsage: "
      "logistic_regression_experiment [--csv=bench/data/breast_cancer.csv] "
      "[--epsilon=0.5,1,2,4] [--agents=1000000] [--rounds=50] [--seeds=3]");
  absl::ParseCommandLine(argc, argv);
  return ldp::Main();
}
