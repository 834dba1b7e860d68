// Phase 1 of the logistic regression experiment, the selection: the grid
// of hyperparameter settings parsed from its comma-separated lists, and
// the search that picks one by validation accuracy, so that no
// hyperparameter is tuned on the test split.
#ifndef LDP_BENCH_STUDIES_LOGISTIC_LOGISTIC_SELECTION_H_
#define LDP_BENCH_STUDIES_LOGISTIC_LOGISTIC_SELECTION_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "bench/studies/logistic/logistic_baselines.h"
#include "bench/studies/logistic/logistic_runs.h"

namespace ldp {

// The values of a comma-separated list, each > 0. InvalidArgument
// "bad --FLAG entry …" naming `flag` on the first entry that is not.
absl::StatusOr<std::vector<double>> ParsePositiveList(const std::string& flag,
                                                      const std::string& text);

// The grid as given on the command line: comma-separated lists.
struct GridLists {
  std::string learning_rate;  // step sizes η
  std::string rounds;         // gradient steps T
  std::string clip;           // clip bounds c
  std::string schedule;       // "constant" and/or "inverse_sqrt"
};

// Every combination of the lists, η outermost, schedule innermost. The
// numeric lists are checked by ParsePositiveList (errors name the
// grid_* flag); schedules are taken as given.
absl::StatusOr<std::vector<LogisticSetting>> ParseGrid(const GridLists& lists);

struct SelectionOptions {
  double epsilon = 2;  // ε at which the grid is searched
  int seeds = 2;       // private runs per setting: seeds 1001 … 1000 + N
  double baseline_l2 = 1e-3;  // L2 penalty of the Newton reference
};

// The grid setting with the best mean validation accuracy at
// options.epsilon (ties: lower mean validation log-loss), each trained on
// sel's training rows (train minus validation) and scored on its held-out
// (validation) rows. Prints the whole search as a markdown table.
absl::StatusOr<LogisticSetting> Select(const Split& sel,
                                       const std::vector<LogisticSetting>& grid,
                                       const SelectionOptions& options,
                                       const RunOptions& run_options);

}  // namespace ldp

#endif  // LDP_BENCH_STUDIES_LOGISTIC_LOGISTIC_SELECTION_H_
