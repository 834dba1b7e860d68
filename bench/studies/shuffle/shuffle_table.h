// ldp-bench-shuffle's output: the Markdown table it prints and the CSV rows
// it writes, one row per (oracle, n, target ε) cell.
//
// Why beside each measured MSE its closed form: the measured gain of the
// shuffle model is only as credible as the simulation, and a measured /
// predicted ratio near 1 in both models says the reports really were drawn
// at ε and ε0 and decoded as the estimator claims.
#ifndef LDP_BENCH_STUDIES_SHUFFLE_SHUFFLE_TABLE_H_
#define LDP_BENCH_STUDIES_SHUFFLE_SHUFFLE_TABLE_H_

#include <string>

#include "bench/studies/shuffle/shuffle_grid.h"

namespace ldp::shuffle_study {

// The setup in one paragraph: domain, distribution, δ, trials, seed.
std::string Preamble(const GridOptions& options);

// Prints the table's header row and rule to stdout.
void PrintTableHeader();

// One cell as a Markdown table row (with its newline).
std::string MarkdownRow(const CellResult& cell);

// The CSV header line and one cell as a CSV line.
const char* CsvHeader();
std::string CsvRow(const CellResult& cell);

}  // namespace ldp::shuffle_study

#endif  // LDP_BENCH_STUDIES_SHUFFLE_SHUFFLE_TABLE_H_
