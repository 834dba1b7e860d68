// The data side of the logistic regression experiment before any model is
// trained: the CSV and its declared bounds read, its rows shuffled into
// test, validation and train, both phases' splits made and checked, and
// the notes about them (renamed headers, features left out, values
// clamped) printed.
#ifndef LDP_BENCH_STUDIES_LOGISTIC_LOGISTIC_INPUT_H_
#define LDP_BENCH_STUDIES_LOGISTIC_LOGISTIC_INPUT_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "bench/studies/logistic/logistic_baselines.h"
#include "bench/studies/logistic/logistic_runs.h"
#include "bench/studies/logistic/tabular_data.h"

namespace ldp {

// Where the data comes from, as given on the command line.
struct InputOptions {
  std::string csv;     // path of the CSV
  std::string label;   // its 0/1 label column's header
  std::string bounds;  // declared bounds, "NAME=LO:HI,…" (ParseDeclaredBounds)
};

// The rows of the CSV and the bounds declared for its features.
struct LogisticInput {
  TabularData data;
  DeclaredBounds declared;
};

// Reads options.csv and parses options.bounds against its headers. Prints
// the headers renamed to valid field names, once, if any was. NotFound
// (saying how to get a CSV) if the file cannot be read.
absl::StatusOr<LogisticInput> ReadInput(const InputOptions& options);

// How the rows are split: shuffled with `seed`, then `test_fraction` of
// all rows held out for test and `validation_fraction` of the rest for
// the selection's validation.
struct SplitOptions {
  uint64_t seed = 1;
  double test_fraction = 0.2;
  double validation_fraction = 0.2;
};

// The rows of the CSV, shuffled once: test rows first, then validation,
// then the rest of train. `fit` is train minus validation.
struct RowSplit {
  std::vector<size_t> test, validation, fit, train;
};

RowSplit ShuffleRows(size_t rows, const SplitOptions& options);

// Both phases' splits; the selection split only when there is a grid to
// search.
struct PhaseSplits {
  std::optional<Split> selection;
  Split report;
};

// Both phases' splits, checked before anything is computed from them:
// InvalidArgument if a split is empty (naming the fractions), if bounds
// cannot be resolved (MakeSplit), or if a model would have more features
// than the logistic_regression program takes.
absl::StatusOr<PhaseSplits> MakeSplits(const LogisticInput& in,
                                       const RowSplit& rows, bool select,
                                       const SplitOptions& options);

// The "data …" line: the CSV, its sizes and the fixed run options.
void PrintDataLine(const std::string& csv, const LogisticInput& in,
                   const RowSplit& rows, const RunOptions& run_options);

// The features a phase's model leaves out (constant on its training rows,
// no declared bounds) and the training values clamped into declared
// bounds; nothing when there are none.
void PrintBoundsNotes(const char* phase, const TabularData& data,
                      const Split& s);

}  // namespace ldp

#endif  // LDP_BENCH_STUDIES_LOGISTIC_LOGISTIC_INPUT_H_
