// Client and server cost of the bounded-real mechanisms at ε = 1.
//
// Client: Randomize per report, with coins from SecureRandom (the production
// generator) through BitGenRef. Server: MeanAccumulator::Add per report
// (validate, decode, two compensated sums) over pre-generated reports.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/random/bit_gen_ref.h"
#include "benchmark/benchmark.h"
#include "common/crypto/secure_random.h"
#include "common/mechanisms/real/discrete_laplace.h"
#include "common/mechanisms/real/duchi_mechanism.h"
#include "common/mechanisms/real/hybrid_mechanism.h"
#include "common/mechanisms/real/mean_accumulator.h"
#include "common/mechanisms/real/piecewise_mechanism.h"

namespace ldp {
namespace {

constexpr double kEpsilon = 1.0;
constexpr int kInputs = 1024;
constexpr int kReports = 1 << 16;

std::unique_ptr<RealMechanism> Make(RealMechanismKind kind) {
  absl::StatusOr<std::unique_ptr<RealMechanism>> m;
  switch (kind) {
    case RealMechanismKind::kDiscreteLaplace:
      m = DiscreteLaplaceMechanism::Create({.epsilon = kEpsilon});
      break;
    case RealMechanismKind::kDuchi:
      m = DuchiMechanism::Create({.epsilon = kEpsilon});
      break;
    case RealMechanismKind::kPiecewise:
      m = PiecewiseMechanism::Create({.epsilon = kEpsilon});
      break;
    case RealMechanismKind::kHybrid:
      m = HybridMechanism::Create({.epsilon = kEpsilon});
      break;
  }
  return std::move(m).value();
}

// Inputs spread over [−1, 1], so rounding coins are exercised.
std::vector<double> Inputs() {
  std::vector<double> inputs;
  for (int i = 0; i < kInputs; ++i) {
    inputs.push_back(2.0 * (i + 0.37) / kInputs - 1);
  }
  return inputs;
}

void BM_Randomize(benchmark::State& state) {
  const auto kind = static_cast<RealMechanismKind>(state.range(0));
  const auto mechanism = Make(kind);
  auto secure = SecureRandom::Create().value();
  absl::BitGenRef gen(*secure);
  const std::vector<double> inputs = Inputs();
  int i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        mechanism->Randomize(inputs[i++ & (kInputs - 1)], gen));
  }
  state.SetItemsProcessed(state.iterations());
  state.SetLabel(std::string(RealMechanismKindName(kind)));
}

void BM_AccumulatorAdd(benchmark::State& state) {
  const auto kind = static_cast<RealMechanismKind>(state.range(0));
  const auto mechanism = Make(kind);
  auto secure = SecureRandom::Create().value();
  const std::vector<double> inputs = Inputs();
  std::vector<ScalarReport> reports;
  for (int i = 0; i < kReports; ++i) {
    reports.push_back(mechanism->Randomize(inputs[i % kInputs], *secure));
  }
  MeanAccumulator accumulator(*mechanism);
  for (auto _ : state) {
    for (const ScalarReport& report : reports) {
      benchmark::DoNotOptimize(accumulator.Add(report));
    }
  }
  benchmark::DoNotOptimize(accumulator.Estimate(0.95));
  state.SetItemsProcessed(state.iterations() * kReports);
  state.SetLabel(std::string(RealMechanismKindName(kind)));
}

void AllKinds(benchmark::internal::Benchmark* b) {
  for (RealMechanismKind kind :
       {RealMechanismKind::kDiscreteLaplace, RealMechanismKind::kDuchi,
        RealMechanismKind::kPiecewise, RealMechanismKind::kHybrid}) {
    b->Arg(static_cast<int64_t>(kind));
  }
}

BENCHMARK(BM_Randomize)->Apply(AllKinds);
BENCHMARK(BM_AccumulatorAdd)->Apply(AllKinds);

}  // namespace
}  // namespace ldp

BENCHMARK_MAIN();
