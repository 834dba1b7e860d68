// ldp-bench-shuffle: histogram MSE in the local model against the shuffle
// model at equal central privacy, for GRR, OLH and Hadamard response.
//
// Why a program of its own: whether shuffling is worth a shuffler depends
// on how much accuracy the amplified ε0 buys at realistic n, and that is a
// measurement through the real randomizers, not only a formula. Prints the
// Markdown table of bench/reports/SHUFFLE.md (and writes it as CSV with
// --out); flags and wiring only here, the work in shuffle_grid.h.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_split.h"
#include "bench/studies/experiment_common.h"
#include "bench/studies/flag_lists.h"
#include "bench/studies/shuffle/shuffle_grid.h"
#include "bench/studies/shuffle/shuffle_table.h"

ABSL_FLAG(std::string, n, "100000,1000000,10000000",
          "Comma-separated numbers of reports n (one shuffled batch each).");
ABSL_FLAG(std::string, epsilon, "0.25,0.5,1",
          "Comma-separated central ε targets.");
ABSL_FLAG(std::string, trials, "100,40,20",
          "Trials per n: one entry per --n entry, or one for all.");
ABSL_FLAG(uint64_t, seed, 1, "Seed of the populations and every coin.");
ABSL_FLAG(std::string, out, "", "Also write the table as CSV to this path.");
ABSL_FLAG(std::string, oracles, "grr,olh,hr,hr1",
          "Comma-separated oracles: grr, olh, hr (chooser's t), hr1 (t = 1).");
ABSL_FLAG(uint32_t, domain, 64, "Histogram domain size d.");
ABSL_FLAG(double, zipf, 1.1, "Zipf exponent s of the true distribution.");
ABSL_FLAG(double, delta, 1e-8, "Central δ of the shuffled batch.");
ABSL_FLAG(int, threads, 2, "Worker threads, each with its own generator.");

namespace ldp::shuffle_study {
namespace {

constexpr char kUsage[] =
    "ldp-bench-shuffle [--n=LIST] [--epsilon=LIST] [--trials=LIST] "
    "[--seed=S] [--out=CSV]\nMeasures histogram MSE in the local and the "
    "shuffle model at equal central (ε, δ).";

// The grid from the flags; false (after a message) on a malformed list.
bool ReadFlags(GridOptions& options) {
  std::vector<std::string> names =
      absl::StrSplit(absl::GetFlag(FLAGS_oracles), ',');
  for (const std::string& name : names) {
    absl::StatusOr<Oracle> oracle = ParseOracle(name);
    if (!oracle.ok()) {
      std::fprintf(stderr, "--oracles: %s\n",
                   std::string(oracle.status().message()).c_str());
      return false;
    }
    options.oracles.push_back(*oracle);
  }
  options.domain_size = absl::GetFlag(FLAGS_domain);
  options.zipf_exponent = absl::GetFlag(FLAGS_zipf);
  options.delta = absl::GetFlag(FLAGS_delta);
  options.seed = absl::GetFlag(FLAGS_seed);
  options.threads = absl::GetFlag(FLAGS_threads);
  return ParseList(absl::GetFlag(FLAGS_n), "n", options.ns) &&
         ParseList(absl::GetFlag(FLAGS_epsilon), "epsilon", options.epsilons) &&
         ParseList(absl::GetFlag(FLAGS_trials), "trials", options.trials);
}

int Run() {
  GridOptions options;
  if (!ReadFlags(options)) return 2;
  CsvOutput csv;
  const std::string out = absl::GetFlag(FLAGS_out);
  if (!csv.Open(out, CsvHeader())) {
    std::perror(out.c_str());
    return 2;
  }
  const auto start = std::chrono::steady_clock::now();
  const auto seconds = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start)
        .count();
  };
  std::fputs(Preamble(options).c_str(), stdout);
  std::fputs("\n", stdout);
  PrintTableHeader();
  const absl::Status status = RunGrid(
      options,
      [&](const CellResult& cell) {
        std::fputs(MarkdownRow(cell).c_str(), stdout);
        std::fflush(stdout);
        csv.Write("%s", CsvRow(cell).c_str());
      },
      [&](int64_t n, int trial, int trials) {
        std::fprintf(stderr, "n = %lld: trial %d of %d done at %.1f s\n",
                     static_cast<long long>(n), trial, trials, seconds());
      });
  if (!status.ok()) {
    std::fprintf(stderr, "ldp-bench-shuffle: %s\n", status.ToString().c_str());
    return 1;
  }
  std::printf("\nWall time: %.1f s.\n", seconds());
  return 0;
}

}  // namespace
}  // namespace ldp::shuffle_study

int main(int argc, char** argv) {
  return ldp::ExperimentMain(argc, argv, ldp::shuffle_study::kUsage,
                             ldp::shuffle_study::Run);
}
