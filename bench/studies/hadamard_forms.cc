// hadamard_forms: the one-block and the general Hadamard response
// side by side with OUE and OLH, on one Zipf(1.1) population of n reports
// over N items, at ε ∈ {0.5, 1, 2, 4, 8}. Prints a Markdown table: per
// oracle and ε, the measured MSE (mean over items of (f̂_v − f_v)², mean of
// --runs runs), its closed form, and for the general form its t, output
// size and the ratio of its measured MSE to OUE's and to the one-block
// form's. Also the client's and the server's time per report, measured in
// this run.
#include <bit>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "common/crypto/secure_random.h"
#include "common/estimation/population.h"
#include "common/mechanisms/frequency/hadamard_response.h"
#include "common/mechanisms/frequency_oracle_factory.h"

ABSL_FLAG(int64_t, users, 100000, "Reports per run.");
ABSL_FLAG(uint32_t, domain, 1024, "Histogram domain size N.");
ABSL_FLAG(int, runs, 10, "Runs averaged per cell.");

namespace ldp {
namespace {

constexpr double kEpsilons[] = {0.5, 1, 2, 4, 8};

struct Cell {
  double measured = 0;   // MSE, mean of runs
  double closed = 0;     // mean over items of Var[f̂_v] at the true f_v
  double client_ns = 0;  // Randomize, per report
  double server_ns = 0;  // Add + Estimate, per report
};

double Nanos(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double, std::nano>(d).count();
}

Cell Measure(const FrequencyOracle& oracle, const std::vector<uint32_t>& items,
             const std::vector<double>& truth, int runs, absl::BitGenRef gen) {
  Cell cell;
  using Clock = std::chrono::steady_clock;
  std::vector<FrequencyReport> reports;
  reports.reserve(items.size());
  for (int r = 0; r < runs; ++r) {
    reports.clear();
    const auto start = Clock::now();
    for (uint32_t item : items) reports.push_back(oracle.Randomize(item, gen));
    const auto randomized = Clock::now();
    auto accumulator = oracle.NewAccumulator();
    for (const FrequencyReport& report : reports)
      (void)accumulator->Add(report);
    const HistogramEstimate estimate = accumulator->Estimate();
    const auto estimated = Clock::now();
    cell.measured += MeanSquaredError(estimate.frequencies, truth) / runs;
    cell.client_ns += Nanos(randomized - start) / items.size() / runs;
    cell.server_ns += Nanos(estimated - randomized) / items.size() / runs;
  }
  for (double f : truth) {
    cell.closed +=
        oracle.Variance(f, static_cast<int64_t>(items.size())) / truth.size();
  }
  return cell;
}

std::string Format(const Cell& c) {
  char out[128];
  std::snprintf(out, sizeof out, "%.3e / %.3e (%.3f)", c.measured, c.closed,
                c.measured / c.closed);
  return out;
}

}  // namespace
}  // namespace ldp

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  const int64_t users = absl::GetFlag(FLAGS_users);
  const uint32_t domain = absl::GetFlag(FLAGS_domain);
  const int runs = absl::GetFlag(FLAGS_runs);
  auto random = ldp::SecureRandom::Create();
  auto zipf = ldp::ZipfDistribution(domain, 1.1);
  if (!random.ok() || !zipf.ok()) {
    std::fprintf(stderr, "setup failed\n");
    return 1;
  }
  absl::BitGenRef gen(**random);
  const auto items = ldp::SampleItems(*zipf, users, gen);
  const auto truth = ldp::EmpiricalFrequencies(items, domain);
  std::printf(
      "Hadamard response forms, N = %u, n = %lld, Zipf(1.1), mean of %d runs. "
      "MSE cells: measured / closed form (ratio).\n\n",
      domain, static_cast<long long>(users), runs);
  std::printf(
      "| eps | one-block HR | general HR | t | K | general / one-block | OUE "
      "| general / OUE | OLH | client ns (1-block, general, OUE, OLH) | "
      "server ns (same) |\n|---|---|---|---|---|---|---|---|---|---|---|\n");
  using K = ldp::FrequencyOracleKind;
  for (double epsilon : ldp::kEpsilons) {
    const uint32_t t = ldp::HadamardResponse::BestRowsPerItem(epsilon, domain);
    const ldp::FrequencyOracleSpec specs[] = {
        {.kind = K::kHadamardResponse,
         .epsilon = epsilon,
         .domain_size = domain},
        {.kind = K::kHadamardResponse,
         .epsilon = epsilon,
         .domain_size = domain,
         .rows_per_item = t},
        {.kind = K::kOptimizedUnaryEncoding,
         .epsilon = epsilon,
         .domain_size = domain},
        {.kind = K::kOptimizedLocalHashing,
         .epsilon = epsilon,
         .domain_size = domain},
    };
    std::vector<ldp::Cell> cells;
    uint32_t output_size = 0;
    for (const auto& spec : specs) {
      auto oracle = ldp::CreateFrequencyOracle(spec);
      if (!oracle.ok()) {
        std::fprintf(stderr, "%s\n", oracle.status().ToString().c_str());
        return 1;
      }
      if (spec.rows_per_item > 0) {
        output_size =
            static_cast<const ldp::HadamardResponse&>(**oracle).output_size();
      }
      cells.push_back(ldp::Measure(**oracle, items, truth, runs, gen));
    }
    std::printf(
        "| %g | %s | %s | %u | 2^%d | %.3f | %s | %.3f | %s | %.0f, %.0f, "
        "%.0f, "
        "%.0f | %.0f, %.0f, %.0f, %.0f |\n",
        epsilon, ldp::Format(cells[0]).c_str(), ldp::Format(cells[1]).c_str(),
        t, std::bit_width(output_size) - 1,
        cells[1].measured / cells[0].measured, ldp::Format(cells[2]).c_str(),
        cells[1].measured / cells[2].measured, ldp::Format(cells[3]).c_str(),
        cells[0].client_ns, cells[1].client_ns, cells[2].client_ns,
        cells[3].client_ns, cells[0].server_ns, cells[1].server_ns,
        cells[2].server_ns, cells[3].server_ns);
  }
  return 0;
}
