// The Markdown and CSV rows of ldp-bench-shuffle; see the header.
#include "bench/studies/shuffle/shuffle_table.h"

#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "bench/studies/experiment_common.h"

namespace ldp::shuffle_study {
namespace {

std::string Gain(double gain) {
  return gain >= 100 ? absl::StrFormat("%.0f", gain)
                     : absl::StrFormat("%.2f", gain);
}

// measured / predicted ± the standard error the closed forms predict.
std::string Ratio(const ModelStats& stats) {
  return absl::StrFormat("%.3f ± %.3f", stats.Mse() / stats.Predicted(),
                         stats.PredictedStandardError() / stats.Predicted());
}

double MeasuredGain(const CellResult& cell) {
  return cell.local.Mse() / cell.shuffled.Mse();
}

double PredictedGain(const CellResult& cell) {
  return cell.local.Predicted() / cell.shuffled.Predicted();
}

}  // namespace

std::string Preamble(const GridOptions& options) {
  std::vector<std::string> oracles;
  for (Oracle oracle : options.oracles) {
    oracles.emplace_back(OracleName(oracle));
  }
  return absl::StrFormat(
      "Local vs shuffle model at equal central (ε, δ = %g): oracles %s over "
      "d = %u items, Zipf(s = %g) population, trials per n = %s (n = %s), "
      "seed %d, %d threads. ε0 is the largest local ε whose shuffled batch "
      "of n reports is (ε, δ)-DP (LargestEpsilon0ForTarget); \"ε0 closed "
      "form\" is what the closed form alone would allow. MSE = mean over the "
      "d bins of (f̂ − f)², f the population's empirical frequencies, mean of "
      "the trials; \"pred.\" is the estimator's closed-form Var[f̂_v] at the "
      "true f_v, averaged over bins; ratio = MSE / pred. ± the standard error "
      "the closed forms predict for it (bins' errors taken as independent "
      "Gaussians: one trial's MSE has variance 2·Σ_v Var[f̂_v]²/d²). Gain = "
      "local / shuffled.\n",
      options.delta, absl::StrJoin(oracles, ", "), options.domain_size,
      options.zipf_exponent, absl::StrJoin(options.trials, ","),
      absl::StrJoin(options.ns, ","), options.seed, options.threads);
}

void PrintTableHeader() {
  PrintMarkdownHeader({"oracle", "n", "T", "ε", "ε0", "ε0 closed form",
                       "params local → shuffled", "local MSE", "local pred.",
                       "ratio ± σ", "shuffled MSE", "shuffled pred.",
                       "ratio ± σ", "gain meas.", "gain pred."});
}

std::string MarkdownRow(const CellResult& cell) {
  return absl::StrFormat(
      "| %s | %d | %d | %g | %.3f | %.3f | %s → %s | %.3e | %.3e | %s | "
      "%.3e | %.3e | %s | %s | %s |\n",
      OracleName(cell.oracle), cell.n, cell.local.trials,
      cell.plan.target_epsilon, cell.plan.epsilon0,
      cell.plan.epsilon0_closed_form, cell.local.params, cell.shuffled.params,
      cell.local.Mse(), cell.local.Predicted(), Ratio(cell.local),
      cell.shuffled.Mse(), cell.shuffled.Predicted(), Ratio(cell.shuffled),
      Gain(MeasuredGain(cell)), Gain(PredictedGain(cell)));
}

const char* CsvHeader() {
  return "oracle,n,trials,epsilon,epsilon0,shuffled_epsilon,"
         "epsilon0_closed_form,local_params,shuffled_params,"
         "local_implemented_epsilon,shuffled_implemented_epsilon,local_mse,"
         "local_mse_se,local_predicted,local_predicted_se,shuffled_mse,"
         "shuffled_mse_se,shuffled_predicted,shuffled_predicted_se,"
         "gain_measured,gain_predicted\n";
}

std::string CsvRow(const CellResult& cell) {
  return absl::StrFormat(
      "%s,%d,%d,%.17g,%.17g,%.17g,%.17g,%s,%s,%.17g,%.17g,%.17g,%.17g,%.17g,"
      "%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n",
      OracleName(cell.oracle), cell.n, cell.local.trials,
      cell.plan.target_epsilon, cell.plan.epsilon0, cell.plan.shuffled_epsilon,
      cell.plan.epsilon0_closed_form, cell.local.params, cell.shuffled.params,
      cell.local.implemented_epsilon, cell.shuffled.implemented_epsilon,
      cell.local.Mse(), cell.local.MseStandardError(), cell.local.Predicted(),
      cell.local.PredictedStandardError(), cell.shuffled.Mse(),
      cell.shuffled.MseStandardError(), cell.shuffled.Predicted(),
      cell.shuffled.PredictedStandardError(), MeasuredGain(cell),
      PredictedGain(cell));
}

}  // namespace ldp::shuffle_study
