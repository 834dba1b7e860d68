// rappor_decoding: RAPPOR's dictionary decode (rappor_decoder.h, and past
// what the dense fit handles rappor_sparse_decoder.h) on the deployed
// scenario: agents hold strings the analyst does not know; the analyst
// tests a candidate list holding every true string and many decoys nobody
// holds, and keeps the candidates Benjamini–Hochberg admits at
// false-discovery rate q. Prints a Markdown table of the realized FDR
// (false discoveries / discoveries, averaged over trials), the recall of
// true strings and of those above 5σ, for n, ε1 and q; each trial's
// reports are decoded at both q. See bench/reports/RAPPOR.md.
//
// By default the strings and decoys are items of [N] and every agent
// reports through Rappor::Randomize. With --candidates the dictionary is
// that many distinct random uint32 items (as strings' digests would be;
// every item has a filter), which Rappor's [N] cannot hold, so each report
// is drawn as Rappor::Memoize would for that item (a uniform cohort, the
// filter through the PRR) and then through Rappor::RandomizeFromMemo.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "common/base/coin.h"
#include "common/crypto/secure_random.h"
#include "common/estimation/population.h"
#include "common/mechanisms/rappor/rappor.h"
#include "common/mechanisms/rappor/rappor_accumulator.h"
#include "common/mechanisms/rappor/rappor_sparse_decoder.h"

ABSL_FLAG(uint32_t, domain, 1024, "Strings N (items of the domain).");
ABSL_FLAG(uint32_t, strings, 100, "Strings anyone holds (Zipf 1.1 over them).");
ABSL_FLAG(uint32_t, decoys, 300, "Candidates nobody holds.");
ABSL_FLAG(uint32_t, candidates, 0,
          "If nonzero: the dictionary's size, as distinct random uint32 "
          "items (--strings of them held, the rest decoys; --decoys unused).");
ABSL_FLAG(int, trials, 5, "Trials per cell.");

namespace ldp {
namespace {

constexpr double kLevels[] = {0.05, 0.2};

struct Cell {
  double fdr = 0, recall = 0, strong_recall = 0, discoveries = 0;
};

struct Scenario {
  std::vector<uint32_t> candidates;  // true strings first
  std::vector<double> shares;        // of the true strings
  bool dictionary = false;           // random uint32 items, not [N]
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

Scenario MakeDictionary(uint32_t strings, uint32_t candidates,
                        absl::BitGenRef gen) {
  Scenario s{.shares = *ZipfDistribution(strings, 1.1), .dictionary = true};
  std::set<uint32_t> seen;
  while (s.candidates.size() < candidates) {
    const auto item = static_cast<uint32_t>(gen());
    if (seen.insert(item).second) s.candidates.push_back(item);
  }
  return s;
}

// Rappor::Memoize's draws for any uint32 item (Memoize clamps to [N]).
SketchReport DictionaryMemo(const Rappor& oracle, uint32_t item,
                            absl::BitGenRef gen) {
  const RapporBloom& bloom = oracle.bloom();
  SketchReport memo;
  memo.row = static_cast<uint32_t>(UniformBelow(bloom.num_cohorts(), gen));
  memo.num_bits = bloom.num_bits();
  memo.bits = bloom.Filter(memo.row, item);
  const BitCoins prr = oracle.layers().permanent();
  for (uint64_t& word : memo.bits) {
    const uint64_t keep = FlipCoins64(prr.p, gen);
    const uint64_t set = FlipCoins64(prr.q, gen);
    word = (word & keep) | (~word & set);
  }
  return memo;  // RandomizeFromMemo masks the padding
}

// The counts of n agents' reports, and each true string's share of them.
std::pair<RapporCounts, std::vector<double>> Simulate(const Rappor& oracle,
                                                      const Scenario& s,
                                                      int64_t n,
                                                      absl::BitGenRef gen) {
  auto accumulator = oracle.NewAccumulator();
  std::vector<double> truth(s.shares.size(), 0.0);
  for (uint32_t index : SampleItems(s.shares, n, gen)) {
    const uint32_t item = s.candidates[index];
    truth[index] += 1.0 / static_cast<double>(n);
    (void)accumulator->Add(
        s.dictionary
            ? oracle.RandomizeFromMemo(DictionaryMemo(oracle, item, gen), gen)
            : oracle.Randomize(item, gen));
  }
  return {dynamic_cast<const RapporAccumulator&>(*accumulator).counts(),
          std::move(truth)};
}

// σ per true string: the decode's own when it fitted every candidate (the
// dense path), else the exact standard error of a fit over the true strings
// alone, at their true shares (an unselected string has no variance).
std::vector<double> Sigmas(const RapporDecoder& decoder,
                           const RapporCounts& counts, const Scenario& s,
                           const std::vector<double>& truth,
                           const RapporCandidateDecode& decode) {
  const size_t strings = s.shares.size();
  std::vector<double> variances(decode.variances.begin(),
                                decode.variances.begin() + strings);
  if (!decode.dense) {
    const std::vector<uint32_t> held(s.candidates.begin(),
                                     s.candidates.begin() + strings);
    const auto exact = decoder.Variances(counts.reports, held, truth);
    if (!exact.ok()) {
      std::fprintf(stderr, "%s\n", exact.status().ToString().c_str());
    }
    variances = exact.value_or(std::vector<double>(strings, INFINITY));
  }
  for (double& v : variances) v = std::sqrt(v);
  return variances;
}

Cell Score(const RapporCandidateDecode& decode, const Scenario& s,
           const std::vector<double>& sigma) {
  const size_t strings = s.shares.size();
  int found = 0, false_found = 0, strong = 0, strong_found = 0;
  for (size_t j = 0; j < decode.discovered.size(); ++j) {
    if (j >= strings) {
      false_found += decode.discovered[j];
      continue;
    }
    found += decode.discovered[j];
    if (s.shares[j] >= 5 * sigma[j]) {
      ++strong;
      strong_found += decode.discovered[j];
    }
  }
  const int total = found + false_found;
  return {.fdr = total == 0 ? 0.0 : static_cast<double>(false_found) / total,
          .recall = static_cast<double>(found) / strings,
          .strong_recall =
              strong == 0 ? 1.0 : static_cast<double>(strong_found) / strong,
          .discoveries = static_cast<double>(total)};
}

// One (n, ε1) pair: the mean cell per level in kLevels, and the mean
// decode time in seconds.
std::vector<Cell> RunCells(const Rappor& oracle, const Scenario& s, int64_t n,
                           int trials, double& decode_seconds,
                           absl::BitGenRef gen) {
  const RapporDecoder decoder(oracle.bloom(), oracle.layers().composed());
  std::vector<Cell> mean(std::size(kLevels));
  decode_seconds = 0;
  for (int t = 0; t < trials; ++t) {
    const auto [counts, truth] = Simulate(oracle, s, n, gen);
    for (size_t l = 0; l < mean.size(); ++l) {
      const auto start = std::chrono::steady_clock::now();
      const auto decode =
          DecodeCandidates(decoder, counts, s.candidates, kLevels[l]);
      decode_seconds += std::chrono::duration<double>(
                            std::chrono::steady_clock::now() - start)
                            .count() /
                        (trials * mean.size());
      if (!decode.ok()) {
        std::fprintf(stderr, "%s\n", decode.status().ToString().c_str());
        continue;
      }
      const Cell cell =
          Score(*decode, s, Sigmas(decoder, counts, s, truth, *decode));
      mean[l].fdr += cell.fdr / trials;
      mean[l].recall += cell.recall / trials;
      mean[l].strong_recall += cell.strong_recall / trials;
      mean[l].discoveries += cell.discoveries / trials;
    }
  }
  return mean;
}

// One (n, ε1) pair's rows; its mean decode time to stderr.
bool PrintCells(const Scenario& s, uint32_t domain, int64_t n, double epsilon,
                int trials, absl::BitGenRef gen) {
  auto oracle = Rappor::Create({.epsilon_permanent = 4,
                                .epsilon_report = epsilon,
                                .domain_size = domain});
  if (!oracle.ok()) {
    std::fprintf(stderr, "%s\n", oracle.status().ToString().c_str());
    return false;
  }
  double seconds = 0;
  const std::vector<Cell> cells =
      RunCells(**oracle, s, n, trials, seconds, gen);
  for (size_t l = 0; l < cells.size(); ++l) {
    std::printf("| %lld | %.0f | %.2f | %.1f | %.3f | %.3f | %.3f |\n",
                static_cast<long long>(n), epsilon, kLevels[l],
                cells[l].discoveries, cells[l].fdr, cells[l].recall,
                cells[l].strong_recall);
  }
  std::fprintf(stderr, "n = %lld, eps1 = %.0f: mean decode %.3f s\n",
               static_cast<long long>(n), epsilon, seconds);
  return true;
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
  const uint32_t strings = absl::GetFlag(FLAGS_strings);
  const uint32_t candidates = absl::GetFlag(FLAGS_candidates);
  const int trials = absl::GetFlag(FLAGS_trials);
  const ldp::Scenario scenario =
      candidates == 0
          ? ldp::MakeScenario(domain, strings, absl::GetFlag(FLAGS_decoys), gen)
          : ldp::MakeDictionary(strings, candidates, gen);
  std::printf(
      "RAPPOR (k = 128, h = 2, C = 64, eps_inf = 4), %s, %u strings "
      "(Zipf 1.1), %zu candidates; mean of %d trials\n\n",
      scenario.dictionary ? "random uint32 items"
                          : ("N = " + std::to_string(domain)).c_str(),
      strings, scenario.candidates.size(), trials);
  std::printf(
      "| n | eps1 | q | discoveries | realized FDR | recall | recall of "
      "strings >= 5 sigma |\n|---|---|---|---|---|---|---|\n");
  for (int64_t n : {int64_t{100000}, int64_t{1000000}}) {
    for (double epsilon : {1.0, 2.0}) {
      if (!ldp::PrintCells(scenario, domain, n, epsilon, trials, gen)) {
        return 1;
      }
    }
  }
  return 0;
}
