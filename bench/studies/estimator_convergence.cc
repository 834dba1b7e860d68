// estimator_convergence: the histogram estimators of one pure oracle's reports
// side by side. Reports are drawn through the real oracles from a Zipf(1.1)
// population; each row is the mean over --runs runs of the mean squared error
// over items, against the population's empirical histogram:
//   raw         the unbiased estimate (C_v/n − q)/(p − q)
//   projection  its Euclidean projection onto the simplex
//   IBU 10⁴     the literature's IBU: uniform start, plain EM, 10⁴ updates
//   IBU         iterative_bayesian_update.h's default: the closed-form
//               maximum of the support-share likelihood, certified
//   IBU EM      EM from the projection with SQUAREM, 10⁵ updates
//   bitwise     the unary encodings' bitwise maximum likelihood
// then ‖IBU EM − IBU‖₁ (how far EM gets from the closed form) with the EM
// run's Frank–Wolfe gap, ‖bitwise − IBU‖₁, and IBU's MSE relative to
// projection's, paired run by run, ± 2 standard errors. Hadamard response is
// run through the channel (p, q) directly, to show why the library refuses IBU
// for it.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/random/bit_gen_ref.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "bench/studies/experiment_common.h"
#include "common/estimation/consistency.h"
#include "common/estimation/frequency_mle.h"
#include "common/estimation/population.h"
#include "common/mechanisms/frequency/iterative_bayesian_update.h"
#include "common/mechanisms/frequency/pure_frequency_oracle.h"
#include "common/mechanisms/frequency_oracle_factory.h"

ABSL_FLAG(int64_t, users, 100'000, "Reports per run (n).");
ABSL_FLAG(uint32_t, domain, 1024, "Histogram domain size (N).");
ABSL_FLAG(int, runs, 3, "Runs averaged per row.");
ABSL_FLAG(std::string, epsilon, "1,4", "Comma-separated ε values.");
ABSL_FLAG(uint64_t, seed, 1, "Seed of the population and the coins.");

namespace ldp {
namespace {

// EM updates of the "IBU EM" column.
constexpr int kEmIterations = 100'000;

enum Column { kRaw, kProjection, kLiterature, kIbu, kEm, kBitwise, kColumns };

struct Row {
  double mse[kColumns] = {};
  double em_distance = 0, em_gap = 0, bitwise_distance = 0;
  // Per run: MSE(IBU) − MSE(projection), paired on the same reports.
  std::vector<double> ibu_minus_projection{};
};

// C_v = n·(q + (p − q)·f̂_v), exactly the counts the estimate came from.
std::vector<int64_t> SupportCounts(const HistogramEstimate& e,
                                   const PureProtocol& ch) {
  std::vector<int64_t> counts(e.frequencies.size());
  for (size_t v = 0; v < counts.size(); ++v) {
    counts[v] = std::llround(static_cast<double>(e.num_reports) *
                             (ch.q + (ch.p - ch.q) * e.frequencies[v]));
  }
  return counts;
}

double Distance(const std::vector<double>& a, const std::vector<double>& b) {
  double sum = 0;
  for (size_t i = 0; i < a.size(); ++i) sum += std::fabs(a[i] - b[i]);
  return sum;
}

// One run's errors, added into `row`.
void AddRun(const PureFrequencyOracle& oracle,
            const std::vector<uint32_t>& items,
            const std::vector<double>& truth, absl::BitGenRef gen, Row& row) {
  auto accumulator = oracle.NewAccumulator();
  for (uint32_t item : items)
    (void)accumulator->Add(oracle.Randomize(item, gen));
  const HistogramEstimate e = accumulator->Estimate();
  const PureProtocol ch = oracle.protocol();
  const std::vector<int64_t> counts = SupportCounts(e, ch);
  const int64_t n = e.num_reports;
  const IbuResult literature = *IterativeBayesianUpdate(
      counts, n, ch, {.start = IbuStart::kUniform, .accelerate = false});
  const IbuResult ibu = *IterativeBayesianUpdate(counts, n, ch);
  const IbuResult em = *IterativeBayesianUpdate(
      counts, n, ch,
      {.max_iterations = kEmIterations, .start = IbuStart::kProjection});
  const std::vector<double> bitwise = *BitwiseMaximumLikelihood(counts, n, ch);
  const double projection =
      MeanSquaredError(ProjectOntoSimplex(e.frequencies), truth);
  row.mse[kRaw] += MeanSquaredError(e.frequencies, truth);
  row.mse[kProjection] += projection;
  row.mse[kLiterature] += MeanSquaredError(literature.frequencies, truth);
  row.mse[kIbu] += MeanSquaredError(ibu.frequencies, truth);
  row.mse[kEm] += MeanSquaredError(em.frequencies, truth);
  row.mse[kBitwise] += MeanSquaredError(bitwise, truth);
  row.em_distance += Distance(em.frequencies, ibu.frequencies);
  row.em_gap += em.gap;
  row.bitwise_distance += Distance(bitwise, ibu.frequencies);
  row.ibu_minus_projection.push_back(MeanSquaredError(ibu.frequencies, truth) -
                                     projection);
}

void PrintRow(FrequencyOracleKind kind, double epsilon, Row row, int runs) {
  std::printf("| %s | %g |", std::string(FrequencyOracleKindName(kind)).c_str(),
              epsilon);
  const bool unary = kind == FrequencyOracleKind::kOptimizedUnaryEncoding ||
                     kind == FrequencyOracleKind::kSymmetricUnaryEncoding;
  for (int c = 0; c < kColumns; ++c) {
    if (c == kBitwise && !unary) {
      std::printf(" – |");
    } else {
      std::printf(" %.3e |", row.mse[c] / runs);
    }
  }
  std::printf(" %.2e | %.1e |", row.em_distance / runs, row.em_gap / runs);
  if (unary) {
    std::printf(" %.2e |", row.bitwise_distance / runs);
  } else {
    std::printf(" – |");
  }
  // Relative difference of IBU's MSE from projection's, with 2 standard
  // errors of the paired per-run differences.
  double mean = 0, square = 0;
  for (double d : row.ibu_minus_projection) mean += d / runs;
  for (double d : row.ibu_minus_projection) square += (d - mean) * (d - mean);
  const double se = runs > 1 ? std::sqrt(square / (runs - 1) / runs) : 0;
  const double base = row.mse[kProjection] / runs;
  std::printf(" %+.2f%% ± %.2f%% |\n", 100 * mean / base, 200 * se / base);
}

int Run() {
  const int64_t users = absl::GetFlag(FLAGS_users);
  const uint32_t domain = absl::GetFlag(FLAGS_domain);
  const int runs = absl::GetFlag(FLAGS_runs);
  if (users < 1 || domain < 2 || runs < 1) {
    std::fprintf(stderr,
                 "--users and --runs must be >= 1 and --domain >= 2 "
                 "(got %lld, %d, %u)\n",
                 static_cast<long long>(users), runs, domain);
    return 2;
  }
  std::mt19937_64 gen(absl::GetFlag(FLAGS_seed));
  const std::vector<double> zipf = *ZipfDistribution(domain, 1.1);
  const std::vector<uint32_t> items = SampleItems(zipf, users, gen);
  const std::vector<double> truth = EmpiricalFrequencies(items, domain);
  std::printf(
      "Zipf(1.1), N = %u, n = %lld, mean of %d runs; cells: MSE over "
      "items against the empirical histogram\n\n",
      domain, static_cast<long long>(users), runs);
  PrintMarkdownHeader({"oracle", "ε", "raw", "projection",
                       "IBU 10⁴ (uniform, EM)", "IBU (closed form)",
                       "IBU EM (projection, SQUAREM, 10⁵)", "bitwise MLE",
                       "‖EM − IBU‖₁", "EM's FW gap", "‖bitwise − IBU‖₁",
                       "IBU vs projection (±2 SE)"});
  using K = FrequencyOracleKind;
  const std::vector<std::string> epsilons =
      absl::StrSplit(absl::GetFlag(FLAGS_epsilon), ',');
  for (const std::string& text : epsilons) {
    double epsilon = 0;
    if (!absl::SimpleAtod(text, &epsilon) || !(epsilon > 0)) {
      std::fprintf(stderr, "--epsilon: \"%s\" is not a positive number\n",
                   text.c_str());
      return 2;
    }
    for (K kind : {K::kGeneralizedRandomizedResponse,
                   K::kOptimizedUnaryEncoding, K::kOptimizedLocalHashing,
                   K::kSubsetSelection, K::kHadamardResponse}) {
      auto oracle = CreateFrequencyOracle(
          {.kind = kind, .epsilon = epsilon, .domain_size = domain});
      const auto* pure =
          oracle.ok() ? dynamic_cast<const PureFrequencyOracle*>(oracle->get())
                      : nullptr;
      if (pure == nullptr) continue;
      Row row;
      for (int r = 0; r < runs; ++r) AddRun(*pure, items, truth, gen, row);
      PrintRow(kind, epsilon, row, runs);
    }
  }
  return 0;
}

}  // namespace
}  // namespace ldp

int main(int argc, char** argv) {
  return ldp::ExperimentMain(
      argc, argv,
      "estimator_convergence [--users=100000] [--domain=1024] [--runs=3] "
      "[--epsilon=1,4] [--seed=1]: MSE of the raw, projected, IBU and "
      "maximum-likelihood histograms of each pure oracle, in one table",
      ldp::Run);
}
