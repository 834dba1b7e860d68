// Client and server costs of optimized local hashing, Hadamard response and
// the count-mean sketches at N = 1024, ε = 1 (plus Hadamard decoding of a
// million reports at N = 4096). Clients draw coins from SecureRandom, as in
// production; servers time Add over pre-generated reports.
#include <cstdint>
#include <memory>
#include <vector>

#include "benchmark/benchmark.h"
#include "common/crypto/secure_random.h"
#include "common/mechanisms/frequency/count_mean_sketch.h"
#include "common/mechanisms/frequency/frequency_oracle.h"
#include "common/mechanisms/frequency/hadamard_response.h"
#include "common/mechanisms/frequency/local_hashing.h"

namespace ldp {
namespace {

constexpr uint32_t kDomain = 1024;
constexpr double kEpsilon = 1.0;

std::unique_ptr<SecureRandom> Rng() { return *SecureRandom::Create(); }

std::unique_ptr<FrequencyOracle> Olh(uint32_t n = kDomain) {
  return *OptimizedLocalHashing::Create(
      {.epsilon = kEpsilon, .domain_size = n});
}
std::unique_ptr<FrequencyOracle> Hr(uint32_t n = kDomain) {
  return *HadamardResponse::Create({.epsilon = kEpsilon, .domain_size = n});
}
std::unique_ptr<FrequencyOracle> Cms() {
  return *CountMeanSketch::Create(
      {.epsilon = kEpsilon, .domain_size = kDomain});
}
std::unique_ptr<FrequencyOracle> Hcms() {
  return *CountMeanSketch::Create({.epsilon = kEpsilon,
                                   .domain_size = kDomain,
                                   .variant = SketchVariant::kHadamard});
}

std::vector<FrequencyReport> Reports(const FrequencyOracle& oracle, int count) {
  auto rng = Rng();
  std::vector<FrequencyReport> reports;
  reports.reserve(count);
  for (int i = 0; i < count; ++i) {
    reports.push_back(oracle.Randomize(i % oracle.domain_size(), *rng));
  }
  return reports;
}

void RunRandomize(benchmark::State& state, const FrequencyOracle& oracle) {
  auto rng = Rng();
  absl::BitGenRef gen(*rng);
  uint32_t item = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(oracle.Randomize(item, gen));
    item = (item + 1) % oracle.domain_size();
  }
  state.SetItemsProcessed(state.iterations());
}

void RunAdd(benchmark::State& state, const FrequencyOracle& oracle,
            int num_reports) {
  const std::vector<FrequencyReport> reports = Reports(oracle, num_reports);
  auto acc = oracle.NewAccumulator();
  for (auto _ : state) {
    for (const auto& r : reports) benchmark::DoNotOptimize(acc->Add(r));
  }
  state.SetItemsProcessed(state.iterations() * num_reports);
}

void BM_OlhRandomize(benchmark::State& s) { RunRandomize(s, *Olh()); }
void BM_OlhAdd(benchmark::State& s) { RunAdd(s, *Olh(), 1 << 12); }
void BM_HrRandomize(benchmark::State& s) { RunRandomize(s, *Hr()); }
void BM_HrAdd(benchmark::State& s) { RunAdd(s, *Hr(), 1 << 16); }
void BM_CmsRandomize(benchmark::State& s) { RunRandomize(s, *Cms()); }
void BM_CmsAdd(benchmark::State& s) { RunAdd(s, *Cms(), 1 << 14); }
void BM_HcmsRandomize(benchmark::State& s) { RunRandomize(s, *Hcms()); }
void BM_HcmsAdd(benchmark::State& s) { RunAdd(s, *Hcms(), 1 << 16); }

// Estimate time alone (one FWHT of K = 2048 counts plus the debiasing).
void BM_HrEstimate(benchmark::State& state) {
  const auto oracle = Hr();
  auto acc = oracle->NewAccumulator();
  for (const auto& r : Reports(*oracle, 1 << 14)) (void)acc->Add(r);
  for (auto _ : state) benchmark::DoNotOptimize(acc->Estimate());
}

// End to end: ingest a million reports at N = 4096 (K = 8192), then decode.
void BM_HrDecodeMillionAt4096(benchmark::State& state) {
  const auto oracle = Hr(4096);
  const std::vector<FrequencyReport> reports = Reports(*oracle, 1'000'000);
  for (auto _ : state) {
    auto acc = oracle->NewAccumulator();
    for (const auto& r : reports) (void)acc->Add(r);
    benchmark::DoNotOptimize(acc->Estimate());
  }
  state.SetItemsProcessed(state.iterations() * 1'000'000);
}

// Sketch decoding of all 1024 items (k = 64 rows, m = 1024 columns).
void BM_CmsEstimate(benchmark::State& state) {
  const auto oracle = Cms();
  auto acc = oracle->NewAccumulator();
  for (const auto& r : Reports(*oracle, 1 << 12)) (void)acc->Add(r);
  for (auto _ : state) benchmark::DoNotOptimize(acc->Estimate());
}
void BM_HcmsEstimate(benchmark::State& state) {
  const auto oracle = Hcms();
  auto acc = oracle->NewAccumulator();
  for (const auto& r : Reports(*oracle, 1 << 12)) (void)acc->Add(r);
  for (auto _ : state) benchmark::DoNotOptimize(acc->Estimate());
}

BENCHMARK(BM_OlhRandomize);
BENCHMARK(BM_OlhAdd);
BENCHMARK(BM_HrRandomize);
BENCHMARK(BM_HrAdd);
BENCHMARK(BM_HrEstimate);
BENCHMARK(BM_HrDecodeMillionAt4096)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CmsRandomize);
BENCHMARK(BM_CmsAdd);
BENCHMARK(BM_CmsEstimate)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_HcmsRandomize);
BENCHMARK(BM_HcmsAdd);
BENCHMARK(BM_HcmsEstimate)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace ldp

BENCHMARK_MAIN();
