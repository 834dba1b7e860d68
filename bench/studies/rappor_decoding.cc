// rappor_decoding: RAPPOR's dictionary decode (rappor_decoder.h) on the
// deployed scenario: agents hold strings (items of [N]) the analyst does not
// know; the analyst tests a candidate list holding every true string and as
// many decoys nobody holds, and keeps the candidates Benjamini–Hochberg
// admits at false-discovery rate q. Prints a Markdown table of the realized
// FDR (false discoveries / discoveries, averaged over trials), the recall of
// true strings and of those above 5σ, for n, ε1 and q. See
// bench/reports/RAPPOR.md.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "common/crypto/secure_random.h"
#include "common/estimation/population.h"
#include "common/mechanisms/rappor/rappor.h"
#include "common/mechanisms/rappor/rappor_accumulator.h"

ABSL_FLAG(uint32_t, domain, 1024, "Strings N (items of the domain).");
ABSL_FLAG(uint32_t, strings, 100, "Strings anyone holds (Zipf 1.1 over them).");
ABSL_FLAG(uint32_t, decoys, 300, "Candidates nobody holds.");
ABSL_FLAG(int, trials, 5, "Trials per cell.");

namespace ldp {
namespace {

struct Cell {
  double fdr = 0, recall = 0, strong_recall = 0, discoveries = 0;
};

struct Scenario {
  std::vector<uint32_t> candidates;  // true strings first
  std::vector<double> shares;        // of the true strings
};

Scenario MakeScenario(uint32_t domain, uint32_t strings, uint32_t decoys,
                      absl::BitGenRef gen) {
  std::vector<uint32_t> items(domain);
  std::iota(items.begin(), items.end(), 0);
  for (uint32_t i = 0; i < strings + decoys; ++i) {  // partial shuffle
    std::swap(items[i], items[i + UniformBelow(domain - i, gen)]);
  }
  Scenario s{.candidates = {items.begin(), items.begin() + strings + decoys},
             .shares = *ZipfDistribution(strings, 1.1)};
  return s;
}

Cell RunTrial(const Rappor& oracle, const Scenario& s, int64_t n, double q,
              absl::BitGenRef gen) {
  auto accumulator = oracle.NewAccumulator();
  const std::vector<uint32_t> held = SampleItems(s.shares, n, gen);
  for (uint32_t index : held) {
    (void)accumulator->Add(oracle.Randomize(s.candidates[index], gen));
  }
  const auto fit = dynamic_cast<const RapporAccumulator&>(*accumulator)
                       .FitCandidates(s.candidates);
  if (!fit.ok()) {
    std::fprintf(stderr, "%s\n", fit.status().ToString().c_str());
    return {};
  }
  const size_t strings = s.shares.size();
  int found = 0, false_found = 0, strong = 0, strong_found = 0;
  std::vector<bool> discovered(fit->candidates.size(), false);
  for (size_t j : RapporDiscoveries(*fit, q)) discovered[j] = true;
  for (size_t j = 0; j < discovered.size(); ++j) {
    if (j >= strings) {
      false_found += discovered[j];
      continue;
    }
    found += discovered[j];
    if (s.shares[j] >= 5 * std::sqrt(fit->variances[j])) {
      ++strong;
      strong_found += discovered[j];
    }
  }
  const int total = found + false_found;
  return {.fdr = total == 0 ? 0.0 : static_cast<double>(false_found) / total,
          .recall = static_cast<double>(found) / strings,
          .strong_recall =
              strong == 0 ? 1.0 : static_cast<double>(strong_found) / strong,
          .discoveries = static_cast<double>(total)};
}

}  // namespace
}  // namespace ldp

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  auto random = ldp::SecureRandom::Create();
  if (!random.ok()) {
    std::fprintf(stderr, "%s\n", random.status().ToString().c_str());
    return 1;
  }
  absl::BitGenRef gen(**random);
  const uint32_t domain = absl::GetFlag(FLAGS_domain);
  const int trials = absl::GetFlag(FLAGS_trials);
  const ldp::Scenario scenario = ldp::MakeScenario(
      domain, absl::GetFlag(FLAGS_strings), absl::GetFlag(FLAGS_decoys), gen);
  std::printf(
      "RAPPOR (k = 128, h = 2, C = 64, eps_inf = 4), N = %u, %u strings "
      "(Zipf 1.1), %zu candidates; mean of %d trials\n\n",
      domain, absl::GetFlag(FLAGS_strings), scenario.candidates.size(), trials);
  std::printf(
      "| n | eps1 | q | discoveries | realized FDR | recall | recall of "
      "strings >= 5 sigma |\n|---|---|---|---|---|---|---|\n");
  for (int64_t n : {int64_t{100000}, int64_t{1000000}}) {
    for (double epsilon : {1.0, 2.0}) {
      auto oracle = ldp::Rappor::Create({.epsilon_permanent = 4,
                                         .epsilon_report = epsilon,
                                         .domain_size = domain});
      if (!oracle.ok()) return 1;
      for (double q : {0.05, 0.2}) {
        ldp::Cell mean;
        for (int t = 0; t < trials; ++t) {
          const ldp::Cell cell = ldp::RunTrial(**oracle, scenario, n, q, gen);
          mean.fdr += cell.fdr / trials;
          mean.recall += cell.recall / trials;
          mean.strong_recall += cell.strong_recall / trials;
          mean.discoveries += cell.discoveries / trials;
        }
        std::printf("| %lld | %.0f | %.2f | %.1f | %.3f | %.3f | %.3f |\n",
                    static_cast<long long>(n), epsilon, q, mean.discoveries,
                    mean.fdr, mean.recall, mean.strong_recall);
      }
    }
  }
  return 0;
}
