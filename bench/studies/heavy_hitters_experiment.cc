// Heavy hitters over a domain of 2^universe_bits values: prefix extension
// (heavy_hitters), TreeHist (treehist) and the sequence-fragment puzzle
// (sequence_fragments), each run on the same simulated Zipf populations.
//
// Agents' values are Zipf(s) over ranks 1 … 2^universe_bits, each rank
// mapped to a value by a fixed bijection (so heavy values are not small
// numbers and share no prefixes by construction). Ranks up to 2^20 are
// drawn from the exact distribution; rarer ranks from its continuous
// approximation (they matter only as spread-out mass). Every seed draws one
// population; each program then runs on it through the in-process
// simulator (same planner, randomizers, estimators and ledger as
// ldp-server) with the randomizers' coins from the seed, and is scored by
// recall@k against the population's true top k and by the error of the
// shares it reports for the values it found. Records are built on the fly
// from each agent's rank.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "bench/studies/experiment_common.h"
#include "bench/studies/experiment_simulation.h"
#include "common/mechanisms/frequency_oracle_factory.h"
#include "planning/program_simulator.h"
#include "planning/programs/program_registry.h"

ABSL_FLAG(int64_t, agents, 1'000'000, "Simulated agents per run.");
ABSL_FLAG(double, epsilon, 4.0, "Per-agent cap ε for the whole study.");
ABSL_FLAG(double, zipf, 1.1, "Zipf exponent s (> 1): Pr[rank r] ∝ r^-s.");
ABSL_FLAG(
    int, universe_bits, 32,
    "Bits per value (8 to 128, a multiple of 4): the domain has "
    "2^universe_bits values; Zipf ranks run to 2^min(universe_bits, 63).");
ABSL_FLAG(int, k, 10, "How many heavy hitters to find (recall@k).");
ABSL_FLAG(int, seeds, 5, "Populations; seeds 1..N.");
ABSL_FLAG(std::string, programs, "heavy_hitters,treehist,sequence_fragments",
          "Comma-separated analyst programs to compare.");
ABSL_FLAG(int, bits_per_round, 8,
          "heavy_hitters' bits_per_round: bits resolved per round.");
ABSL_FLAG(int, candidates, 0,
          "heavy_hitters' prefixes kept after each round; 0 = the program's "
          "default (4k).");
ABSL_FLAG(int, bits_per_level, 1, "treehist's bits_per_level.");
ABSL_FLAG(int, fragment_bits, 8, "sequence_fragments' fragment_bits.");
ABSL_FLAG(int, hash_bits, 8, "sequence_fragments' hash_bits.");
ABSL_FLAG(bool, show_top, true,
          "Print the first seed's top k beside the true counts.");

namespace ldp {
namespace {

constexpr uint64_t kExactRanks = uint64_t{1} << 20;

// Zipf(s) over ranks 1 … N: a table for the head, the continuous density
// x^-s on [kExactRanks + ½, N + ½] for the tail.
class ZipfSampler {
 public:
  ZipfSampler(double s, double n) : s_(s), n_(n) {
    const uint64_t head =
        static_cast<uint64_t>(std::min(n, double(kExactRanks)));
    double total = 0;
    cdf_.reserve(head);
    for (uint64_t r = 1; r <= head; ++r) {
      total += std::pow(double(r), -s);
      cdf_.push_back(total);
    }
    lo_ = head + 0.5;
    tail_ = n > head ? Integral(lo_, n + 0.5) : 0;
    total_ = total + tail_;
  }

  uint64_t Sample(std::mt19937_64& gen) const {
    const double u = std::uniform_real_distribution<double>(0, total_)(gen);
    if (u < cdf_.back() || tail_ == 0) {
      const auto it = std::upper_bound(cdf_.begin(), cdf_.end(), u);
      return std::min<uint64_t>(it - cdf_.begin(), cdf_.size() - 1) + 1;
    }
    // Invert ∫_lo^x t^-s dt = u − head mass.
    const double v = u - cdf_.back();
    const double x =
        std::pow(std::pow(lo_, 1 - s_) - v * (s_ - 1), 1 / (1 - s_));
    return static_cast<uint64_t>(std::clamp(std::round(x), lo_ + 0.5, n_));
  }

 private:
  double Integral(double a, double b) const {
    return (std::pow(a, 1 - s_) - std::pow(b, 1 - s_)) / (s_ - 1);
  }

  double s_, n_, lo_ = 0, tail_ = 0, total_ = 0;
  std::vector<double> cdf_;
};

// A bijection of w-bit words (odd multiplications and right xorshifts are
// invertible mod 2^w).
uint64_t Permute(uint64_t x, int w) {
  const uint64_t mask = w == 64 ? ~uint64_t{0} : (uint64_t{1} << w) - 1;
  x ^= 0x5BD1E9955BD1E995ULL & mask;  // so that rank 1 is not the value 0
  for (uint64_t m : {0xD6E8FEB86659FD93ULL, 0xA0761D6478BD642FULL}) {
    x = (x * m) & mask;
    x ^= x >> (w / 2 + 1);
  }
  return x;
}

// The value of rank r, `w` bits, first bit most significant: the first
// min(w, 64) bits are a bijection of r − 1, the rest a hash of r.
std::vector<bool> ValueOf(uint64_t rank, int w) {
  std::vector<bool> bits(w);
  const int head = std::min(w, 64);
  const uint64_t first = Permute(rank - 1, head);
  for (int j = 0; j < head; ++j) bits[j] = (first >> (head - 1 - j)) & 1;
  for (int j = head; j < w; ++j) {
    bits[j] =
        (SplitMix64(rank * 131 + (j - head) / 64) >> ((j - head) % 64)) & 1;
  }
  return bits;
}

std::string Hex(const std::vector<bool>& bits) {
  std::string out = "0x";
  for (size_t i = 0; i + 3 < bits.size(); i += 4) {
    out.push_back("0123456789abcdef"[bits[i] * 8 + bits[i + 1] * 4 +
                                     bits[i + 2] * 2 + bits[i + 3]]);
  }
  return out;
}

const ProgramValue* Find(const ProgramResult& result, const std::string& name) {
  for (const ProgramValue& v : result.values) {
    if (v.name == name) return &v;
  }
  return nullptr;
}

// The study: `program` over `w`-bit values, with the flags' parameters.
absl::StatusOr<StudySpec> MakeStudy(const std::string& program, int w, int k,
                                    int64_t cap) {
  auto schema = RecordSchema::Create({FieldSpec::BitVector("value", w)});
  if (!schema.ok()) return schema.status();
  std::map<std::string, std::string> parameters = {{"k", absl::StrCat(k)}};
  if (program == "heavy_hitters") {
    parameters["bits_per_round"] =
        absl::StrCat(absl::GetFlag(FLAGS_bits_per_round));
    if (absl::GetFlag(FLAGS_candidates) > 0) {
      parameters["candidates"] = absl::StrCat(absl::GetFlag(FLAGS_candidates));
    }
  } else if (program == "treehist") {
    parameters["bits_per_level"] =
        absl::StrCat(absl::GetFlag(FLAGS_bits_per_level));
  } else if (program == "sequence_fragments") {
    parameters["fragment_bits"] =
        absl::StrCat(absl::GetFlag(FLAGS_fragment_bits));
    parameters["hash_bits"] = absl::StrCat(absl::GetFlag(FLAGS_hash_bits));
  }
  return StudySpec{
      .schema = *schema,
      .epsilon_cap_nanos = cap,
      .mode = StudyMode::kInteractive,
      .program = ProgramSpec{.name = program, .parameters = parameters}};
}

// One seed's agents (agent a holds rank ranks[a]) and what scoring needs
// of them.
struct Population {
  std::vector<uint64_t> ranks;
  std::unordered_map<uint64_t, int64_t> counts;
  // (−count, rank), most frequent first; ties to the lower rank.
  std::vector<std::pair<int64_t, uint64_t>> by_count;
  // The hex value of every rank some agent holds.
  std::unordered_map<std::string, uint64_t> rank_of_value;
};

Population DrawPopulation(const ZipfSampler& zipf, int64_t agents, int w,
                          int seed) {
  std::mt19937_64 population_gen(seed * 0x9E3779B97F4A7C15ULL + w);
  Population p;
  p.ranks.resize(agents + 1);
  for (int64_t a = 1; a <= agents; ++a) {
    p.ranks[a] = zipf.Sample(population_gen);
    ++p.counts[p.ranks[a]];
  }
  for (const auto& [rank, count] : p.counts) {
    p.by_count.push_back({-count, rank});
    p.rank_of_value[Hex(ValueOf(rank, w))] = rank;
  }
  std::sort(p.by_count.begin(), p.by_count.end());
  return p;
}

// How many of the found values are in the true top k, the absolute errors
// of their shares, how many of their intervals cover the truth, and the
// table of estimated vs true counts.
struct Score {
  int hits = 0;
  int found = 0;
  int covered = 0;
  double abs_error_sum = 0;
  double max_abs_error = 0;
  std::string table;
};

Score ScoreRun(const ProgramResult& result, Population& p, int k, int w,
               int64_t agents) {
  // Found values by their hex in the summary order; values ≤ 53 bits also
  // come as numbers, but hex works for every width.
  std::vector<std::string> found;
  for (size_t pos = result.summary.find(" 0x"); pos != std::string::npos;
       pos = result.summary.find(" 0x", pos + 1)) {
    found.push_back(result.summary.substr(pos + 1, 2 + w / 4));
  }
  Score score;
  for (int i = 0; i < k && i < int(found.size()); ++i) {
    const auto it = p.rank_of_value.find(found[i]);
    const uint64_t rank = it == p.rank_of_value.end() ? 0 : it->second;
    const int64_t truth = rank == 0 ? 0 : p.counts[rank];
    bool in_top = false;
    for (int j = 0; j < k && j < int(p.by_count.size()); ++j) {
      in_top |= p.by_count[j].second == rank;
    }
    score.hits += in_top;
    const ProgramValue* share =
        Find(result, absl::StrCat("top[", i, "].count_fraction"));
    if (share == nullptr || !share->interval.has_value()) continue;
    ++score.found;
    const double error = std::abs(share->value - double(truth) / agents);
    score.abs_error_sum += error;
    score.max_abs_error = std::max(score.max_abs_error, error);
    const double lo = share->interval->lower * agents;
    const double hi = share->interval->upper * agents;
    const bool covers = lo <= truth && truth <= hi;
    score.covered += covers;
    score.table += absl::StrFormat(
        "| %d | %s | %s | %d | %.0f | [%.0f, %.0f] | %s |\n", i + 1, found[i],
        rank == 0 ? "-" : absl::StrCat(rank).c_str(), truth,
        share->value * agents, lo, hi, covers ? "yes" : "no");
  }
  return score;
}

// One program's runs over every seed.
struct ProgramTally {
  std::string rows;
  std::string first_table;
  double recall_sum = 0, worst_recall = 1, seconds_sum = 0;
  double abs_error_sum = 0, max_abs_error = 0;
  int found = 0, covered = 0;
  size_t rounds = 0;
  int64_t max_spent = 0, refused = 0;
};

void Tally(ProgramTally& t, const SimulationResult& run, const Score& score,
           int seed, int k, double seconds) {
  const double recall = double(score.hits) / k;
  t.recall_sum += recall;
  t.worst_recall = std::min(t.worst_recall, recall);
  t.seconds_sum += seconds;
  t.abs_error_sum += score.abs_error_sum;
  t.max_abs_error = std::max(t.max_abs_error, score.max_abs_error);
  t.found += score.found;
  t.covered += score.covered;
  t.rounds = std::max(t.rounds, run.rounds.size());
  t.max_spent = std::max(t.max_spent, run.max_spent_nanos);
  t.refused += run.refused_over_cap;
  t.rows +=
      absl::StrFormat("| %d | %.2f | %d | %.2e | %.3f | %d | %d/%d | %.1f |\n",
                      seed, recall, run.rounds.size(),
                      score.found > 0 ? score.abs_error_sum / score.found : 0.0,
                      run.max_spent_nanos / 1e9, run.refused_over_cap,
                      score.covered, score.found, seconds);
  if (seed == 1) t.first_table = score.table;
}

void PrintTally(const std::string& program, const ProgramTally& t, int k,
                int seeds) {
  std::printf(
      "\n## %s\n\n| seed | recall@%d | rounds | mean |error| of "
      "found shares | max ε spent | refused | intervals covering the "
      "truth | s/run |\n|---|---|---|---|---|---|---|---|\n%s",
      program.c_str(), k, t.rows.c_str());
  if (absl::GetFlag(FLAGS_show_top)) {
    std::printf(
        "\nseed 1, estimated vs true counts (normal intervals at the "
        "study's 95%% confidence):\n\n"
        "| # | value | Zipf rank | true count | estimate | interval | "
        "covers |\n|---|---|---|---|---|---|---|\n%s",
        t.first_table.c_str());
  }
}

int Run() {
  const int64_t agents = absl::GetFlag(FLAGS_agents);
  const double epsilon = absl::GetFlag(FLAGS_epsilon);
  const int64_t cap = std::llround(epsilon * 1e9);
  const double s = absl::GetFlag(FLAGS_zipf);
  const int w = absl::GetFlag(FLAGS_universe_bits);
  const int k = absl::GetFlag(FLAGS_k);
  const int seeds = absl::GetFlag(FLAGS_seeds);
  if (w < 8 || w > 128 || w % 4 != 0 || !(s > 1) || k < 1 || agents < 1) {
    std::fprintf(stderr,
                 "need 8 ≤ --universe_bits ≤ 128 (a multiple of 4), --zipf > "
                 "1, --k ≥ 1, --agents ≥ 1\n");
    return 2;
  }
  const std::vector<std::string> programs =
      absl::StrSplit(absl::GetFlag(FLAGS_programs), ',', absl::SkipEmpty());
  std::vector<StudySpec> studies;
  for (const std::string& program : programs) {
    absl::StatusOr<StudySpec> study = MakeStudy(program, w, k, cap);
    if (study.ok()) {
      absl::StatusOr<std::unique_ptr<AnalystProgram>> check =
          CreateAnalystProgram(*study->program, {.schema = study->schema,
                                                 .epsilon_cap_nanos = cap});
      if (!check.ok()) study = check.status();
    }
    if (!study.ok()) {
      std::fprintf(stderr, "%s: %s\n", program.c_str(),
                   study.status().ToString().c_str());
      return 2;
    }
    studies.push_back(*std::move(study));
  }
  const ZipfSampler zipf(s, std::ldexp(1.0, std::min(w, 63)));
  std::printf(
      "n = %lld agents, ε = %g, Zipf(%g) over 2^%d values, k = %d, "
      "%d populations\n",
      static_cast<long long>(agents), epsilon, s, w, k, seeds);
  // The oracle behind the largest questions (prefix extension's later
  // rounds at the default beam, SFP's fragments), which sets the cost.
  for (const uint32_t n :
       {1 + (uint32_t(4 * k) << absl::GetFlag(FLAGS_bits_per_round)),
        uint32_t{1} << (absl::GetFlag(FLAGS_hash_bits) +
                        absl::GetFlag(FLAGS_fragment_bits))}) {
    const auto choice = ChooseFrequencyOracle(epsilon, n);
    if (choice.ok()) {
      std::printf("planner's oracle at N = %u: %s\n", n,
                  choice->reason.c_str());
    }
  }
  std::vector<ProgramTally> tallies(programs.size());
  for (int seed = 1; seed <= seeds; ++seed) {
    Population population = DrawPopulation(zipf, agents, w, seed);
    const RecordSource records = [&ranks = population.ranks,
                                  w](uint64_t agent) {
      Record r;
      r.values["value"] = ValueOf(ranks[agent], w);
      return r;
    };
    for (size_t i = 0; i < programs.size(); ++i) {
      std::mt19937_64 coins(seed * 104729 + w);
      const TimedSimulation timed =
          SimulateTimed(studies[i], agents, records, coins);
      if (!timed.run.ok()) {
        std::fprintf(stderr, "%s, seed %d: %s\n", programs[i].c_str(), seed,
                     timed.run.status().ToString().c_str());
        return 1;
      }
      const Score score = ScoreRun(timed.run->result, population, k, w, agents);
      Tally(tallies[i], *timed.run, score, seed, k, timed.seconds);
    }
  }
  for (size_t i = 0; i < programs.size(); ++i) {
    PrintTally(programs[i], tallies[i], k, seeds);
  }
  std::printf(
      "\n| program | parameters | rounds | mean recall@%d | worst | "
      "mean |error| of found shares | max |error| | intervals "
      "covering | max ε spent | refused | s/run |\n"
      "|---|---|---|---|---|---|---|---|---|---|---|\n",
      k);
  for (size_t i = 0; i < programs.size(); ++i) {
    const ProgramTally& t = tallies[i];
    std::string parameters;
    for (const auto& [name, value] : studies[i].program->parameters) {
      absl::StrAppend(&parameters, parameters.empty() ? "" : ", ", name, "=",
                      value);
    }
    std::printf(
        "| %s | %s | %zu | %.3f | %.2f | %.2e | %.2e | %d/%d | %.3f | "
        "%lld | %.1f |\n",
        programs[i].c_str(), parameters.c_str(), t.rounds, t.recall_sum / seeds,
        t.worst_recall, t.found > 0 ? t.abs_error_sum / t.found : 0.0,
        t.max_abs_error, t.covered, t.found, t.max_spent / 1e9,
        static_cast<long long>(t.refused), t.seconds_sum / seeds);
  }
  return 0;
}

}  // namespace
}  // namespace ldp

int main(int argc, char** argv) {
  return ldp::ExperimentMain(
      argc, argv,
      "Runs the heavy-hitter analyst "
      "programs (prefix extension, TreeHist, the sequence-fragment puzzle) on "
      "the same simulated Zipf populations over 2^universe_bits values and "
      "prints recall@k, the error of the found values' shares, estimated vs "
      "true counts and the ledger's largest spend.",
      ldp::Run);
}
