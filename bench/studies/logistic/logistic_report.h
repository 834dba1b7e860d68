// Phase 2 of the logistic regression experiment, the report: the chosen
// setting trained on the whole train split for every ε and evaluated once
// on the test split, next to the non-private models on the same rows; the
// per-round table of one run and the summary table.
#ifndef LDP_BENCH_STUDIES_LOGISTIC_LOGISTIC_REPORT_H_
#define LDP_BENCH_STUDIES_LOGISTIC_LOGISTIC_REPORT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "bench/studies/logistic/logistic_baselines.h"
#include "bench/studies/logistic/logistic_runs.h"

namespace ldp {

struct ReportOptions {
  int seeds = 5;                 // private runs per ε: seeds 1 … N
  double baseline_l2 = 1e-3;     // L2 penalty of the Newton baseline
  double per_round_epsilon = 2;  // ε whose seed-1 run is printed per round
};

// The non-private Newton baseline's accuracy on the report's split.
struct ReportBaselines {
  double newton_train = 0;
  double newton_test = 0;
};

// Prints the report's header: the chosen setting, the split's sizes and
// the non-private Newton and GD models' accuracy. An error (nothing
// printed) if Newton's weights are not finite.
absl::StatusOr<ReportBaselines> PrintReportHeader(
    const Split& s, const LogisticSetting& chosen, const ReportOptions& options,
    const RunOptions& run_options);

// One ε of the report: options.seeds private runs of the chosen setting.
struct EpsilonRow {
  double eps = 0;
  std::vector<double> train{}, test{}, last_test{};  // accuracy per seed
  double seconds = 0;
  int64_t max_spent = 0, refused = 0;
};

// The private runs at eps, with the per-round table of seed 1's when eps
// is options.per_round_epsilon. nullopt after printing to stderr why a
// run failed.
std::optional<EpsilonRow> ReportEpsilon(const Split& s,
                                        const LogisticSetting& chosen,
                                        double eps,
                                        const ReportOptions& options,
                                        const RunOptions& run_options);

// The summary table: one line per ε, against the Newton baseline.
void PrintSummary(const std::vector<EpsilonRow>& rows,
                  const ReportBaselines& baselines, int seeds);

}  // namespace ldp

#endif  // LDP_BENCH_STUDIES_LOGISTIC_LOGISTIC_REPORT_H_
