// Workload accuracy: for every workload, ε and population size,
// the predicted per-user variances of naive per-query answering, each fixed
// strategy and the optimized ones, next to variances measured by simulation.
//
// v_j = n·E[(answer_j − truth_j)²], answers as fractions, agents drawn iid
// from the data distribution h (truth_j = w_j·h). Two figures per mechanism:
//   v_max: the worst query at the worst point-mass data (all agents hold the
//          same item x). Measured: --reps_max runs at that x, n·mean squared
//          error of that one query's answer.
//   v_avg: the mean over queries at uniform h. Measured: runs of n agents
//          drawn from h (until the relative standard error is --target_rse,
//          at most --reps_avg runs), n·mean squared error per query averaged
//          over queries.
//   max error: the largest |answer_j − truth_j| over all queries at uniform
//          h, averaged over runs, next to the simultaneous 95% bound
//          z_{0.025/m}·sqrt(max_j v_j(uniform)/n).
// "Predicted" is at the row's n (WorkloadEstimator::Variances(h, n)): the
// server divides each group's reports by their random count, and a group
// that few agents pick (Haar's finest coefficients, naive answering's
// queries) varies more than the large-n limit — the planner's figure, shown
// as "limit". The ratio compares measured with predicted at n.
// Runs sample the server's sufficient statistics from their exact
// distribution (StrategyMechanism::SampleEstimate: binomial and multinomial
// counts), so n = 10^6 costs what n = 10^4 does; the per-agent randomizers
// are checked against the same distributions in tests/workload. The vector
// randomizer's statistic is continuous and its ŷ a plain average of iid
// reports, so n·Var does not depend on n: its v_max is the variance of one
// agent's answer over --vector_reps_max agents, its v_avg likewise from
// single agents drawn from h, its max error from --vector_reps runs of
// --vector_max_agents agents; measured once per workload and ε and shown
// for every n.
//
// Naive per-query answering splits the agents uniformly over the m queries;
// each answers its one query's bit φ_j(x) by binary randomized response at
// the full ε, and answer_j is the debiased mean of its group (0 if empty).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "absl/flags/flag.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "bench/studies/experiment_common.h"
#include "bench/studies/flag_lists.h"
#include "common/estimation/confidence_interval.h"
#include "common/workload/strategies/report_count.h"
#include "common/workload/strategies/strategy_factory.h"
#include "common/workload/strategies/strategy_planner.h"
#include "common/workload/strategies/workload.h"
#include "common/workload/strategies/workload_estimator.h"

ABSL_FLAG(std::string, workloads,
          "histogram:256,prefix:256,all_range:256,marginals:8:2,"
          "histogram:1024,prefix:1024,all_range:1024",
          "Comma-separated workloads: histogram:N, prefix:N, all_range:N, "
          "marginals:d:k, parities:d:k.");
ABSL_FLAG(std::string, epsilons, "0.5,1,2,4", "Comma-separated ε.");
ABSL_FLAG(std::string, agents, "10000,100000,1000000",
          "Comma-separated population sizes n.");
ABSL_FLAG(int, reps_max, 10000, "Runs for the measured v_max (point mass).");
ABSL_FLAG(int, reps_avg, 5000,
          "Most runs for the measured v_avg and max error (see --target_rse).");
ABSL_FLAG(
    double, target_rse, 0.02,
    "Runs for v_avg stop once its relative standard error is this small.");
ABSL_FLAG(int64_t, vector_max_agents, 2000,
          "Agents per run of the vector randomizer's max error.");
ABSL_FLAG(int, vector_reps, 100, "Runs for the vector randomizer's max error.");
ABSL_FLAG(int, vector_reps_max, 20000,
          "Single agents for the vector randomizer's v_max, and the most for "
          "its v_avg (its n·Var does not depend on n).");
ABSL_FLAG(std::string, cache_dir, "build/strategy-cache",
          "Where optimized strategies are cached (empty: none).");
ABSL_FLAG(int, optimizer_minutes, 10, "Time limit per optimization.");
ABSL_FLAG(uint64_t, seed, 1,
          "Seed of the simulation (not of any privacy noise).");
ABSL_FLAG(std::string, csv, "",
          "If set, one CSV row per result is written here.");
ABSL_FLAG(std::string, mechanisms, "",
          "Comma-separated substrings (e.g. haar,naive): only mechanisms whose "
          "description contains one are measured; empty: all. Without "
          "\"optimized\" and \"factorization\" the optimizers are not run, and "
          "no row is marked as the planner's choice.");

namespace ldp {
namespace {

struct Row {
  std::string workload, mechanism;
  uint32_t domain_size = 0;
  uint64_t num_queries = 0;
  double epsilon = 0;
  int64_t agents = 0;
  double predicted_max = 0, measured_max = 0, limit_max = 0;
  double predicted_avg = 0, measured_avg = 0, limit_avg = 0;
  double bound_max_error = 0, measured_max_error = 0;
  int reps_max = 0, reps_avg = 0;
  double gamma2_lower = 0, gamma2_upper = 0;
};

absl::StatusOr<WorkloadSpec> ParseWorkload(const std::string& text) {
  std::vector<std::string> parts = absl::StrSplit(text, ':');
  auto number = [&](size_t i) -> uint32_t {
    uint32_t v = 0;
    if (i >= parts.size() || !absl::SimpleAtoi(parts[i], &v)) return 0;
    return v;
  };
  WorkloadSpec spec;
  if (parts[0] == "histogram")
    spec.kind = WorkloadKind::kHistogram;
  else if (parts[0] == "prefix")
    spec.kind = WorkloadKind::kPrefix;
  else if (parts[0] == "all_range")
    spec.kind = WorkloadKind::kAllRange;
  else if (parts[0] == "marginals")
    spec.kind = WorkloadKind::kMarginals;
  else if (parts[0] == "parities")
    spec.kind = WorkloadKind::kParities;
  else
    return absl::InvalidArgumentError("unknown workload \"" + text + "\"");
  if (spec.kind == WorkloadKind::kMarginals ||
      spec.kind == WorkloadKind::kParities) {
    spec.num_bits = number(1);
    spec.order = number(2);
  } else {
    spec.domain_size = number(1);
  }
  return spec;
}

// Row j of R = W·B.
Eigen::VectorXd ReconstructionRow(const WorkloadEstimator& estimator,
                                  uint64_t j) {
  Eigen::VectorXd row;
  estimator.workload().ForEachProjectedBlock(
      estimator.reconstruction(), 4096,
      [&](uint64_t first, const Eigen::MatrixXd& rows) {
        if (j >= first && j < first + rows.rows())
          row = rows.row(j - first).transpose();
      });
  return row;
}

// Whether --mechanisms selects the mechanism with this description.
bool Selected(const std::string& description) {
  const std::string flag = absl::GetFlag(FLAGS_mechanisms);
  if (flag.empty()) return true;
  for (absl::string_view part : absl::StrSplit(flag, ',', absl::SkipEmpty())) {
    if (absl::StrContains(description, part)) return true;
  }
  return false;
}

struct Measured {
  double v_max = 0, v_avg = 0, max_error = 0;
  int reps_max = 0, reps_avg = 0;
};

Measured MeasureStrategy(const WorkloadEstimator& estimator,
                         const VarianceSummary& predicted, int64_t n,
                         bool per_agent, std::mt19937_64& gen) {
  const Workload& workload = estimator.workload();
  const StrategyMechanism& strategy = estimator.strategy();
  const uint32_t domain = workload.domain_size();
  Measured out;
  // v_max: one query, one point mass (one agent at a time for the vector
  // randomizer: n·Var of an average of n iid reports is one report's Var).
  {
    const Eigen::VectorXd r =
        ReconstructionRow(estimator, predicted.worst_query);
    const int64_t agents = per_agent ? 1 : n;
    std::vector<int64_t> counts(domain, 0);
    counts[predicted.worst_item] = agents;
    Eigen::VectorXd h = Eigen::VectorXd::Zero(domain);
    h[predicted.worst_item] = 1;
    const double truth = workload.Answer(h)[predicted.worst_query];
    const int reps = per_agent ? absl::GetFlag(FLAGS_vector_reps_max)
                               : absl::GetFlag(FLAGS_reps_max);
    double sum_sq = 0;
    for (int rep = 0; rep < reps; ++rep) {
      const double err = r.dot(strategy.SampleEstimate(counts, gen)) - truth;
      sum_sq += err * err;
    }
    out.v_max = double(agents) * sum_sq / reps;
    out.reps_max = reps;
  }
  // v_avg: every query, agents iid from the uniform h (one agent per run
  // for the vector randomizer). Runs go on until the measured v_avg's
  // relative standard error, from the runs' own spread, is at most
  // --target_rse (at least 100 runs, at most --reps_avg, or
  // --vector_reps_max for the vector randomizer): strongly correlated
  // queries (prefixes) need thousands of runs, a histogram a hundred.
  const Eigen::VectorXd h = Eigen::VectorXd::Constant(domain, 1.0 / domain);
  const Eigen::VectorXd truth = workload.Answer(h);
  auto run = [&](int64_t agents) {
    const Eigen::VectorXd h_hat =
        estimator.reconstruction() * strategy.SampleIidEstimate(h, agents, gen);
    return Eigen::VectorXd(workload.Answer(h_hat) - truth);
  };
  {
    const int64_t agents = per_agent ? 1 : n;
    const int cap = per_agent ? absl::GetFlag(FLAGS_vector_reps_max)
                              : absl::GetFlag(FLAGS_reps_avg);
    const double target = absl::GetFlag(FLAGS_target_rse);
    double sum = 0, sum_sq = 0, sum_max = 0;
    int reps = 0;
    while (reps < cap) {
      const Eigen::VectorXd err = run(agents);
      const double s = double(agents) * err.squaredNorm() / double(err.size());
      sum += s;
      sum_sq += s * s;
      sum_max += err.cwiseAbs().maxCoeff();
      ++reps;
      if (reps >= 100 && reps % 25 == 0) {
        const double mean = sum / reps;
        const double var =
            std::max(0.0, sum_sq / reps - mean * mean) * reps / (reps - 1);
        if (std::sqrt(var / reps) <= target * mean) break;
      }
    }
    out.v_avg = sum / reps;
    out.reps_avg = reps;
    out.max_error = sum_max / reps;
  }
  // Max error of the vector randomizer: --vector_reps runs of
  // --vector_max_agents agents, scaled to n (an error shrinks as 1/√n).
  if (per_agent) {
    const int64_t agents =
        std::min<int64_t>(n, absl::GetFlag(FLAGS_vector_max_agents));
    const int reps = absl::GetFlag(FLAGS_vector_reps);
    double sum_max = 0;
    for (int rep = 0; rep < reps; ++rep) {
      sum_max +=
          run(agents).cwiseAbs().maxCoeff() * std::sqrt(double(agents) / n);
    }
    out.max_error = sum_max / reps;
  }
  return out;
}

// Naive per-query answering (see the file comment).
Row NaiveRow(const Workload& workload, double epsilon, int64_t n,
             std::mt19937_64& gen) {
  const uint64_t m = workload.num_queries();
  const uint32_t domain = workload.domain_size();
  const double p = std::exp(epsilon) / (1 + std::exp(epsilon)), q = 1 - p;
  const double scale = 1.0 / ((p - q) * (p - q));
  // Query j's group holds N_j ~ Binomial(n, 1/m) agents; given N_j > 0 its
  // answer has variance P(1−P)/((p−q)²·N_j), P = q + (p−q)·F_j, and an empty
  // group answers 0 (error F_j). In the limit: m·P(1−P)/(p−q)².
  const ReportCountMoments moments = MomentsOfReportCount(n, 1.0 / double(m));
  auto variance = [&](double f) {
    const double big_p = q + (p - q) * f;
    return double(n) * (moments.inverse_mean * big_p * (1 - big_p) * scale +
                        moments.empty * f * f);
  };
  auto limit = [&](double f) {
    const double big_p = q + (p - q) * f;
    return double(m) * big_p * (1 - big_p) * scale;
  };
  Row row;
  row.num_queries = m;
  // Point masses: F_j ∈ {0, 1}; the worst is F_j = 1 (query 0 at item 0).
  row.predicted_max = variance(1);
  row.limit_max = limit(1);
  const Eigen::VectorXd truth =
      workload.Answer(Eigen::VectorXd::Constant(domain, 1.0 / domain));
  double v_sum = 0, limit_sum = 0, v_top = 0;
  for (uint64_t j = 0; j < m; ++j) {
    v_sum += variance(truth[j]);
    limit_sum += limit(truth[j]);
    v_top = std::max(v_top, variance(truth[j]));
  }
  row.predicted_avg = v_sum / m;
  row.limit_avg = limit_sum / m;
  row.bound_max_error = NormalQuantile(1 - 0.025 / m) * std::sqrt(v_top / n);
  // One query: group size, then the agents holding a 1 (iid from h), then
  // randomized response.
  auto answer = [&](int64_t n_j, double f) {
    const int64_t ones = std::binomial_distribution<int64_t>(n_j, f)(gen);
    const int64_t said =
        std::binomial_distribution<int64_t>(ones, p)(gen) +
        std::binomial_distribution<int64_t>(n_j - ones, q)(gen);
    return n_j == 0 ? 0.0 : (double(said) / n_j - q) / (p - q);
  };
  const int reps_max = absl::GetFlag(FLAGS_reps_max);
  // The m queries' groups are independent: 40 runs average 40·m squared
  // errors.
  const int reps_avg = 40;
  {
    // Query 0 at the point mass on item 0: F_0 = 1.
    Eigen::VectorXd h = Eigen::VectorXd::Zero(domain);
    h[0] = 1;
    const double f = workload.Answer(h)[0];
    double sum_sq = 0;
    for (int rep = 0; rep < reps_max; ++rep) {
      const int64_t n_0 =
          std::binomial_distribution<int64_t>(n, 1.0 / double(m))(gen);
      const double err = answer(n_0, f) - f;
      sum_sq += err * err;
    }
    row.measured_max = n * sum_sq / reps_max;
  }
  // Every query at uniform h: group sizes multinomial(n, 1/m).
  Eigen::VectorXd answers(m);
  double sum_sq = 0, sum_max = 0;
  for (int rep = 0; rep < reps_avg; ++rep) {
    int64_t left = n;
    for (uint64_t j = 0; j < m; ++j) {
      const int64_t n_j = j + 1 == m ? left
                                     : std::binomial_distribution<int64_t>(
                                           left, 1.0 / double(m - j))(gen);
      left -= n_j;
      answers[j] = answer(n_j, truth[j]);
    }
    sum_sq += (answers - truth).squaredNorm() / m;
    sum_max += (answers - truth).cwiseAbs().maxCoeff();
  }
  row.measured_avg = n * sum_sq / reps_avg;
  row.measured_max_error = sum_max / reps_avg;
  row.reps_max = reps_max;
  row.reps_avg = reps_avg;
  return row;
}

void Print(const Row& r, CsvOutput& csv) {
  std::printf(
      "%-16s %-5.2g %-8lld %-34s %9.2f %9.2f %9.2f %6.3f %9.2f %9.2f %9.2f "
      "%6.3f "
      "%8.4f %8.4f\n",
      r.workload.c_str(), r.epsilon, static_cast<long long>(r.agents),
      r.mechanism.c_str(), r.limit_max, r.predicted_max, r.measured_max,
      r.measured_max / r.predicted_max, r.limit_avg, r.predicted_avg,
      r.measured_avg, r.measured_avg / r.predicted_avg, r.bound_max_error,
      r.measured_max_error);
  std::fflush(stdout);
  if (csv.file() != nullptr) {
    absl::FPrintF(csv.file(),
                  "%s,%u,%u,%g,%d,\"%s\",%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%."
                  "6g,%d,%d,%.6g,"
                  "%.6g\n",
                  r.workload, r.domain_size, r.num_queries, r.epsilon, r.agents,
                  r.mechanism, r.limit_max, r.predicted_max, r.measured_max,
                  r.limit_avg, r.predicted_avg, r.measured_avg,
                  r.bound_max_error, r.measured_max_error, r.reps_max,
                  r.reps_avg, r.gamma2_lower, r.gamma2_upper);
    csv.Flush();
  }
}

// The planner's candidates for one workload and ε (only those --mechanisms
// selects are measured; the optimizers run only if selected), with the
// planning time on a comment line. `full_plan`: both optimizers ran, so the
// chosen candidate is the planner's real choice.
absl::StatusOr<StrategyPlan> PlanCandidates(const std::string& text,
                                            const Workload& workload,
                                            double epsilon, bool& full_plan) {
  StrategyPlannerOptions options;
  options.include_optimized_matrix = Selected("optimized matrix");
  options.include_factorization = Selected("factorization");
  full_plan = options.include_optimized_matrix && options.include_factorization;
  options.cache_dir = absl::GetFlag(FLAGS_cache_dir);
  options.optimizer_time_limit =
      absl::Minutes(absl::GetFlag(FLAGS_optimizer_minutes));
  const auto started = std::chrono::steady_clock::now();
  absl::StatusOr<StrategyPlan> plan = PlanStrategy(workload, epsilon, options);
  if (!plan.ok()) return plan;
  std::printf(
      "# %s ε=%g: planned %zu candidates in %.1f s; chosen: %s\n", text.c_str(),
      epsilon, plan->candidates.size(),
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started)
          .count(),
      plan->chosen.description.c_str());
  return plan;
}

using Estimators = std::vector<std::shared_ptr<const WorkloadEstimator>>;

// Every selected candidate's estimator (nullptr for the others), built once
// per workload and ε; nullopt after printing why one cannot be built.
std::optional<Estimators> BuildEstimators(const Workload& workload,
                                          const StrategyPlan& plan) {
  Estimators estimators;
  for (const StrategyCandidate& candidate : plan.candidates) {
    if (!Selected(candidate.description)) {
      estimators.push_back(nullptr);
      continue;
    }
    absl::StatusOr<std::unique_ptr<StrategyMechanism>> strategy =
        CreateStrategy(candidate.spec);
    if (!strategy.ok()) {
      std::fprintf(stderr, "%s: %s\n", candidate.description.c_str(),
                   strategy.status().ToString().c_str());
      return std::nullopt;
    }
    absl::StatusOr<std::shared_ptr<const WorkloadEstimator>> estimator =
        WorkloadEstimator::Create(workload, std::move(*strategy));
    if (!estimator.ok()) {
      std::fprintf(stderr, "%s: %s\n", candidate.description.c_str(),
                   estimator.status().ToString().c_str());
      return std::nullopt;
    }
    estimators.push_back(*std::move(estimator));
  }
  return estimators;
}

// The row of one candidate at n agents: its limit (the planner's figures),
// the prediction at n and what was measured.
Row CandidateRow(const std::string& text, const StrategyCandidate& candidate,
                 const WorkloadEstimator& estimator, const Measured& measured,
                 double epsilon, int64_t n) {
  const Workload& workload = estimator.workload();
  const uint32_t domain = workload.domain_size();
  const Eigen::VectorXd uniform =
      Eigen::VectorXd::Constant(domain, 1.0 / domain);
  Eigen::VectorXd point = Eigen::VectorXd::Zero(domain);
  point[candidate.variance.worst_item] = 1;
  const Eigen::VectorXd v_uniform = estimator.Variances(uniform, n);
  Row row;
  row.workload = text;
  row.mechanism = candidate.description;
  row.domain_size = domain;
  row.num_queries = workload.num_queries();
  row.epsilon = epsilon;
  row.agents = n;
  row.limit_max = candidate.variance.v_max;
  row.predicted_max =
      estimator.Variances(point, n)[candidate.variance.worst_query];
  row.measured_max = measured.v_max;
  row.limit_avg = candidate.variance.v_avg;
  row.predicted_avg = v_uniform.mean();
  row.measured_avg = measured.v_avg;
  row.bound_max_error =
      NormalQuantile(1 - 0.025 / double(workload.num_queries())) *
      std::sqrt(v_uniform.maxCoeff() / n);
  row.measured_max_error = measured.max_error;
  row.reps_max = measured.reps_max;
  row.reps_avg = measured.reps_avg;
  row.gamma2_lower = candidate.gamma2_lower;
  row.gamma2_upper = candidate.gamma2_upper;
  return row;
}

// Naive answering's row, then every selected candidate's, for each n of
// --agents.
void MeasureAll(const std::string& text, const Workload& workload,
                double epsilon, const std::vector<int64_t>& agents,
                const StrategyPlan& plan, bool full_plan,
                const Estimators& estimators, std::mt19937_64& gen,
                CsvOutput& csv) {
  // The vector randomizer's figures do not depend on n: measured once
  // (at the first n; its max error then scales as 1/√n).
  std::vector<std::optional<std::pair<Measured, int64_t>>> per_agent_measured(
      estimators.size());
  const uint32_t domain = workload.domain_size();
  for (int64_t n : agents) {
    if (Selected("naive (split, RR)")) {
      Row naive = NaiveRow(workload, epsilon, n, gen);
      naive.workload = text;
      naive.mechanism = "naive (split, RR)";
      naive.domain_size = domain;
      naive.epsilon = epsilon;
      naive.agents = n;
      Print(naive, csv);
    }
    for (size_t c = 0; c < plan.candidates.size(); ++c) {
      const StrategyCandidate& candidate = plan.candidates[c];
      if (!Selected(candidate.description)) continue;
      const WorkloadEstimator& estimator = *estimators[c];
      const bool per_agent =
          candidate.spec.kind == StrategyKind::kFactorization;
      Measured measured;
      if (per_agent && per_agent_measured[c].has_value()) {
        measured = per_agent_measured[c]->first;
        measured.max_error *=
            std::sqrt(double(per_agent_measured[c]->second) / n);
      } else {
        measured =
            MeasureStrategy(estimator, candidate.variance, n, per_agent, gen);
        if (per_agent) per_agent_measured[c] = std::make_pair(measured, n);
      }
      Row row = CandidateRow(text, candidate, estimator, measured, epsilon, n);
      if (full_plan && candidate.description == plan.chosen.description) {
        row.mechanism += " *";
      }
      Print(row, csv);
    }
  }
}

int Run() {
  std::vector<double> epsilons;
  std::vector<int64_t> agents;
  if (!ParseList(absl::GetFlag(FLAGS_epsilons), "epsilons", epsilons) ||
      !ParseList(absl::GetFlag(FLAGS_agents), "agents", agents)) {
    return 2;
  }
  CsvOutput csv;
  if (!csv.Open(
          absl::GetFlag(FLAGS_csv),
          "workload,N,m,epsilon,n,mechanism,limit_v_max,predicted_v_max,"
          "measured_v_max,limit_v_avg,predicted_v_avg,measured_v_avg,"
          "bound_max_error_95,"
          "measured_max_error,reps_max,reps_avg,gamma2_lower,gamma2_upper\n")) {
    std::fprintf(stderr, "cannot write %s\n", absl::GetFlag(FLAGS_csv).c_str());
    return 1;
  }
  std::printf("%-16s %-5s %-8s %-34s %9s %9s %9s %6s %9s %9s %9s %6s %8s %8s\n",
              "workload", "eps", "n", "mechanism", "vmax_lim", "vmax",
              "vmax_obs", "ratio", "vavg_lim", "vavg", "vavg_obs", "ratio",
              "err95", "err_obs");
  std::mt19937_64 gen(absl::GetFlag(FLAGS_seed));
  const std::vector<std::string> workloads =
      absl::StrSplit(absl::GetFlag(FLAGS_workloads), ',');
  for (const std::string& text : workloads) {
    absl::StatusOr<WorkloadSpec> spec = ParseWorkload(text);
    if (!spec.ok()) {
      std::fprintf(stderr, "%s\n", spec.status().ToString().c_str());
      return 2;
    }
    absl::StatusOr<Workload> workload = Workload::Create(*spec);
    if (!workload.ok()) {
      std::fprintf(stderr, "%s: %s\n", text.c_str(),
                   workload.status().ToString().c_str());
      return 2;
    }
    for (double epsilon : epsilons) {
      bool full_plan = false;
      absl::StatusOr<StrategyPlan> plan =
          PlanCandidates(text, *workload, epsilon, full_plan);
      if (!plan.ok()) {
        std::fprintf(stderr, "%s ε=%g: %s\n", text.c_str(), epsilon,
                     plan.status().ToString().c_str());
        return 1;
      }
      const std::optional<Estimators> estimators =
          BuildEstimators(*workload, *plan);
      if (!estimators.has_value()) return 1;
      MeasureAll(text, *workload, epsilon, agents, *plan, full_plan,
                 *estimators, gen, csv);
    }
  }
  return 0;
}

}  // namespace
}  // namespace ldp

int main(int argc, char** argv) {
  return ldp::ExperimentMain(
      argc, argv,
      "Predicted vs measured per-user "
      "variance (v_max, v_avg) and max error of naive answering, every fixed "
      "strategy and the optimized ones, per workload, ε and n.\nusage: "
      "workload_accuracy_experiment [--workloads=prefix:256,...] "
      "[--epsilons=...] [--agents=...] [--csv=FILE]",
      [&] {
        // The command that made the results, on their first line.
        std::printf("# command:");
        for (int i = 0; i < argc; ++i) std::printf(" %s", argv[i]);
        std::printf("\n");
        return ldp::Run();
      });
}
