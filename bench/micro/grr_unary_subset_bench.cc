// Client and server costs of GRR, OUE, SUE, subset selection and the
// longitudinal oracles (L-UE, L-GRR, L-OLH; dBitFlipPM with d = 32; RAPPOR
// with its defaults, 128 bits, 2 hashes, 64 cohorts) at
// N = 1024, ε = 1 (longitudinal: ε∞ = 2, ε1 = 1). Clients draw their coins from
// SecureRandom through BitGenRef, as in production; servers time Add over
// reports generated beforehand, so the per-report numbers are ingest cost
// alone.
#include <cstdint>
#include <memory>
#include <vector>

#include "absl/random/bit_gen_ref.h"
#include "benchmark/benchmark.h"
#include "common/crypto/secure_random.h"
#include "common/mechanisms/frequency/frequency_oracle.h"
#include "common/mechanisms/frequency/generalized_randomized_response.h"
#include "common/mechanisms/frequency/subset_selection.h"
#include "common/mechanisms/frequency/unary_encoding.h"
#include "common/mechanisms/longitudinal/dbit_flip.h"
#include "common/mechanisms/longitudinal/longitudinal.h"
#include "common/mechanisms/longitudinal/longitudinal_grr.h"
#include "common/mechanisms/longitudinal/longitudinal_local_hashing.h"
#include "common/mechanisms/rappor/rappor.h"

namespace ldp {
namespace {

constexpr uint32_t kDomain = 1024;
constexpr double kEpsilon = 1.0;
constexpr int kReportsPerIteration = 1 << 12;

std::unique_ptr<SecureRandom> NewSecureRandom() {
  return *SecureRandom::Create();
}

std::unique_ptr<FrequencyOracle> Grr() {
  return *GeneralizedRandomizedResponse::Create(
      {.epsilon = kEpsilon, .domain_size = kDomain});
}
std::unique_ptr<FrequencyOracle> Oue() {
  return *UnaryEncoding::Create({.epsilon = kEpsilon, .domain_size = kDomain});
}
std::unique_ptr<FrequencyOracle> Sue() {
  return *UnaryEncoding::Create({.epsilon = kEpsilon,
                                 .domain_size = kDomain,
                                 .variant = UnaryEncodingVariant::kSymmetric});
}
std::unique_ptr<FrequencyOracle> Ss() {
  return *SubsetSelection::Create(
      {.epsilon = kEpsilon, .domain_size = kDomain});
}
std::unique_ptr<LongitudinalUnaryEncoding> Longitudinal() {
  return *LongitudinalUnaryEncoding::Create({.epsilon_permanent = 2 * kEpsilon,
                                             .epsilon_report = kEpsilon,
                                             .domain_size = kDomain});
}

std::unique_ptr<FrequencyOracle> LongitudinalGrr() {
  return *LongitudinalGrr::Create({.epsilon_permanent = 2 * kEpsilon,
                                   .epsilon_report = kEpsilon,
                                   .domain_size = kDomain});
}
std::unique_ptr<FrequencyOracle> LongitudinalOlh() {
  return *LongitudinalLocalHashing::Create({.epsilon_permanent = 2 * kEpsilon,
                                            .epsilon_report = kEpsilon,
                                            .domain_size = kDomain});
}
std::unique_ptr<FrequencyOracle> DBitFlipOracle() {
  return *DBitFlip::Create({.epsilon = kEpsilon, .domain_size = kDomain});
}
std::unique_ptr<FrequencyOracle> RapporOracle() {
  return *Rappor::Create({.epsilon_permanent = 2 * kEpsilon,
                          .epsilon_report = kEpsilon,
                          .domain_size = kDomain});
}

// One report per iteration, items cycling through the domain.
void RunRandomize(benchmark::State& state, const FrequencyOracle& oracle) {
  const std::unique_ptr<SecureRandom> random = NewSecureRandom();
  absl::BitGenRef gen(*random);
  uint32_t item = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(oracle.Randomize(item, gen));
    item = item + 1 == kDomain ? 0 : item + 1;
  }
  state.SetItemsProcessed(state.iterations());
}

// kReportsPerIteration pre-generated reports added per iteration.
void RunAdd(benchmark::State& state, const FrequencyOracle& oracle) {
  const std::unique_ptr<SecureRandom> random = NewSecureRandom();
  std::vector<FrequencyReport> reports;
  reports.reserve(kReportsPerIteration);
  for (int i = 0; i < kReportsPerIteration; ++i) {
    reports.push_back(oracle.Randomize(i % kDomain, *random));
  }
  const std::unique_ptr<FrequencyAccumulator> accumulator =
      oracle.NewAccumulator();
  for (auto _ : state) {
    for (const FrequencyReport& report : reports) {
      benchmark::DoNotOptimize(accumulator->Add(report));
    }
  }
  state.SetItemsProcessed(state.iterations() * kReportsPerIteration);
}

// Turning the counts of a full accumulator into estimates and variances.
void RunEstimate(benchmark::State& state, const FrequencyOracle& oracle) {
  const std::unique_ptr<SecureRandom> random = NewSecureRandom();
  const std::unique_ptr<FrequencyAccumulator> accumulator =
      oracle.NewAccumulator();
  for (int i = 0; i < kReportsPerIteration; ++i) {
    benchmark::DoNotOptimize(
        accumulator->Add(oracle.Randomize(i % kDomain, *random)));
  }
  for (auto _ : state) benchmark::DoNotOptimize(accumulator->Estimate());
}

void BM_GrrRandomize(benchmark::State& state) { RunRandomize(state, *Grr()); }
void BM_GrrAdd(benchmark::State& state) { RunAdd(state, *Grr()); }
void BM_OueRandomize(benchmark::State& state) { RunRandomize(state, *Oue()); }
void BM_OueAdd(benchmark::State& state) { RunAdd(state, *Oue()); }
void BM_OueEstimate(benchmark::State& state) { RunEstimate(state, *Oue()); }
void BM_SueRandomize(benchmark::State& state) { RunRandomize(state, *Sue()); }
void BM_SueAdd(benchmark::State& state) { RunAdd(state, *Sue()); }
void BM_SubsetSelectionRandomize(benchmark::State& state) {
  RunRandomize(state, *Ss());
}
void BM_SubsetSelectionAdd(benchmark::State& state) { RunAdd(state, *Ss()); }

// A fresh PRR and IRR per report (no memo).
void BM_LongitudinalRandomize(benchmark::State& state) {
  RunRandomize(state, *Longitudinal());
}
// The steady state of a memoizing agent: one IRR of a stored PRR.
void BM_LongitudinalRandomizeFromMemo(benchmark::State& state) {
  const auto oracle = Longitudinal();
  const std::unique_ptr<SecureRandom> random = NewSecureRandom();
  absl::BitGenRef gen(*random);
  const FrequencyReport memo = oracle->Memoize(kDomain / 2, gen);
  for (auto _ : state) {
    benchmark::DoNotOptimize(oracle->RandomizeFromMemo(memo, gen));
  }
  state.SetItemsProcessed(state.iterations());
}
void BM_LongitudinalAdd(benchmark::State& state) {
  RunAdd(state, *Longitudinal());
}

// Fresh memo and report per call (the agent's cost for a new value; a known
// value costs one instantaneous draw, or nothing for dBitFlipPM).
void BM_LongitudinalGrrRandomize(benchmark::State& state) {
  RunRandomize(state, *LongitudinalGrr());
}
void BM_LongitudinalGrrAdd(benchmark::State& state) {
  RunAdd(state, *LongitudinalGrr());
}
void BM_LongitudinalOlhRandomize(benchmark::State& state) {
  RunRandomize(state, *LongitudinalOlh());
}
void BM_LongitudinalOlhAdd(benchmark::State& state) {
  RunAdd(state, *LongitudinalOlh());
}
void BM_DBitFlipRandomize(benchmark::State& state) {
  RunRandomize(state, *DBitFlipOracle());
}
void BM_DBitFlipAdd(benchmark::State& state) {
  RunAdd(state, *DBitFlipOracle());
}
void BM_RapporRandomize(benchmark::State& state) {
  RunRandomize(state, *RapporOracle());
}
void BM_RapporAdd(benchmark::State& state) { RunAdd(state, *RapporOracle()); }
// The whole-domain regression (N = 1024: factor, inverse and the exact
// variances), once per estimate.
void BM_RapporEstimate(benchmark::State& state) {
  RunEstimate(state, *RapporOracle());
}

BENCHMARK(BM_GrrRandomize);
BENCHMARK(BM_GrrAdd);
BENCHMARK(BM_OueRandomize);
BENCHMARK(BM_OueAdd);
BENCHMARK(BM_OueEstimate);
BENCHMARK(BM_SueRandomize);
BENCHMARK(BM_SueAdd);
BENCHMARK(BM_SubsetSelectionRandomize);
BENCHMARK(BM_SubsetSelectionAdd);
BENCHMARK(BM_LongitudinalRandomize);
BENCHMARK(BM_LongitudinalRandomizeFromMemo);
BENCHMARK(BM_LongitudinalAdd);
BENCHMARK(BM_LongitudinalGrrRandomize);
BENCHMARK(BM_LongitudinalGrrAdd);
BENCHMARK(BM_LongitudinalOlhRandomize);
BENCHMARK(BM_LongitudinalOlhAdd);
BENCHMARK(BM_DBitFlipRandomize);
BENCHMARK(BM_DBitFlipAdd);
BENCHMARK(BM_RapporRandomize);
BENCHMARK(BM_RapporAdd);
BENCHMARK(BM_RapporEstimate)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace ldp

BENCHMARK_MAIN();
