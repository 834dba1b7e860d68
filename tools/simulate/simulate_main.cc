// ldp-simulate: runs a whole population through the real randomizers and
// estimators in one process, and prints every estimate with its interval
// beside the truth. The coins come from SecureRandom, as on a device.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <numeric>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_format.h"
#include "common/base/flags_usage.h"
#include "common/crypto/secure_random.h"
#include "common/estimation/confidence_interval.h"
#include "common/estimation/consistency.h"
#include "common/estimation/population.h"
#include "common/estimation/sample_size.h"
#include "common/mechanisms/frequency_oracle_factory.h"
#include "common/mechanisms/real/discrete_laplace.h"
#include "common/mechanisms/real/duchi_mechanism.h"
#include "common/mechanisms/real/hybrid_mechanism.h"
#include "common/mechanisms/real/mean_accumulator.h"
#include "common/mechanisms/real/piecewise_mechanism.h"

ABSL_FLAG(int64_t, users, 100000, "Number of simulated agents (>= 1).");
ABSL_FLAG(uint32_t, domain, 1024, "Histogram domain size N (>= 2).");
ABSL_FLAG(double, epsilon, 1.0, "Per-report privacy parameter (> 0).");
ABSL_FLAG(double, zipf, 1.1, "Zipf exponent of the item distribution (>= 0).");
ABSL_FLAG(double, confidence, 0.95, "Confidence of every interval, in (0, 1).");
ABSL_FLAG(int, top, 10, "How many of the most frequent items to print.");

namespace ldp {
namespace {

int Fail(const absl::Status& status) {
  std::fprintf(stderr, "ldp-simulate: %s\n", status.ToString().c_str());
  return 1;
}

absl::Status RunHistogram(const std::vector<uint32_t>& items, uint32_t domain,
                          double epsilon, double confidence, int top,
                          absl::BitGenRef gen) {
  auto choice = ChooseFrequencyOracle(epsilon, domain);
  if (!choice.ok()) return choice.status();
  auto oracle = CreateFrequencyOracle(choice->chosen.spec);
  if (!oracle.ok()) return oracle.status();
  std::printf("Histogram over %u items, %zu agents, epsilon=%g\n", domain,
              items.size(), epsilon);
  std::printf("  oracle: %s\n", choice->reason.c_str());
  auto accumulator = (*oracle)->NewAccumulator();
  for (uint32_t item : items) {
    absl::Status added = accumulator->Add((*oracle)->Randomize(item, gen));
    if (!added.ok()) return added;
  }
  const HistogramEstimate raw = accumulator->Estimate();
  const std::vector<double> truth = EmpiricalFrequencies(items, domain);
  const std::vector<double> projected = ProjectOntoSimplex(raw.frequencies);
  std::vector<uint32_t> order(domain);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](uint32_t a, uint32_t b) { return truth[a] > truth[b]; });
  std::printf("  %6s %9s %9s %21s %9s %6s\n", "item", "truth", "estimate",
              absl::StrFormat("%g%% interval", confidence * 100).c_str(),
              "projected", "err/se");
  int covered = 0;
  for (uint32_t v = 0; v < domain; ++v) {
    const double se = std::sqrt(raw.variances[v]);
    covered +=
        NormalInterval(raw.frequencies[v], se, confidence).Contains(truth[v]);
  }
  for (int i = 0; i < std::min<int>(top, domain); ++i) {
    const uint32_t v = order[i];
    const double se = std::sqrt(raw.variances[v]);
    const Interval ci = NormalInterval(raw.frequencies[v], se, confidence);
    std::printf("  %6u %9.5f %9.5f [%9.5f, %9.5f] %9.5f %+6.2f\n", v, truth[v],
                raw.frequencies[v], ci.lower, ci.upper, projected[v],
                (raw.frequencies[v] - truth[v]) / se);
  }
  std::printf("  intervals covering the truth: %d of %u (%.1f%%)\n", covered,
              domain, 100.0 * covered / domain);
  std::printf("  mean squared error: raw %.3g, simplex-projected %.3g\n",
              MeanSquaredError(raw.frequencies, truth),
              MeanSquaredError(projected, truth));
  auto needed = ReportsNeeded(choice->chosen.unit_variance,
                              {.tolerance = 0.001, .confidence = confidence});
  if (needed.ok()) {
    std::printf("  agents needed for +-0.001 per item: %lld\n",
                static_cast<long long>(*needed));
  }
  return absl::OkStatus();
}

absl::Status RunMeans(int64_t users, double epsilon, double confidence,
                      absl::BitGenRef gen) {
  // A bounded real attribute in [-1, 1]: a clipped bell shape around 0.3.
  std::vector<double> values(users);
  double truth = 0;
  for (int64_t i = 0; i < users; ++i) {
    const double u =
        (static_cast<double>(i) + 0.5) / static_cast<double>(users);
    values[i] = std::clamp(0.3 + 0.4 * NormalQuantile(u), -1.0, 1.0);
    truth += values[i];
  }
  truth /= static_cast<double>(users);
  std::printf("\nMean of a value in [-1, 1], true mean %.5f\n", truth);
  std::printf("  %-17s %9s %21s %8s %6s\n", "mechanism", "estimate", "interval",
              "std.err", "err/se");
  std::vector<std::unique_ptr<RealMechanism>> mechanisms;
  absl::Status status = absl::OkStatus();
  auto keep = [&](auto created) {
    if (created.ok()) {
      mechanisms.push_back(std::move(*created));
    } else {
      status.Update(created.status());
    }
  };
  keep(DiscreteLaplaceMechanism::Create({.epsilon = epsilon, .bound = 1}));
  keep(DuchiMechanism::Create({.epsilon = epsilon, .bound = 1}));
  keep(PiecewiseMechanism::Create({.epsilon = epsilon, .bound = 1}));
  keep(HybridMechanism::Create({.epsilon = epsilon, .bound = 1}));
  if (!status.ok()) return status;
  for (const auto& mechanism : mechanisms) {
    MeanAccumulator accumulator(*mechanism);
    for (double x : values) {
      absl::Status added = accumulator.Add(mechanism->Randomize(x, gen));
      if (!added.ok()) return added;
    }
    const ScalarEstimate est = accumulator.Estimate(confidence);
    std::printf("  %-17s %9.5f [%9.5f, %9.5f] %8.5f %+6.2f\n",
                std::string(RealMechanismKindName(mechanism->kind())).c_str(),
                est.value, est.interval.lower, est.interval.upper,
                est.standard_error, (est.value - truth) / est.standard_error);
  }
  return absl::OkStatus();
}

}  // namespace
}  // namespace ldp

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "Simulates a population of agents in one process: each agent's value is "
      "randomized on 'its device' with a secure generator, and the estimates "
      "are printed beside the truth.\nUsage: ldp-simulate [--users=N] "
      "[--domain=N] [--epsilon=E] [--zipf=S] [--confidence=C] [--top=K]");
  ldp::ShowOnlyFlagsFrom("simulate_main");
  absl::ParseCommandLine(argc, argv);
  const int64_t users = absl::GetFlag(FLAGS_users);
  const uint32_t domain = absl::GetFlag(FLAGS_domain);
  const double epsilon = absl::GetFlag(FLAGS_epsilon);
  const double confidence = absl::GetFlag(FLAGS_confidence);
  if (users < 1)
    return ldp::Fail(absl::InvalidArgumentError("--users must be >= 1"));
  if (auto valid = ldp::ValidateConfidence(confidence); !valid.ok()) {
    return ldp::Fail(valid);
  }
  auto random = ldp::SecureRandom::Create();
  if (!random.ok()) return ldp::Fail(random.status());
  absl::BitGenRef gen(**random);
  auto zipf = ldp::ZipfDistribution(domain, absl::GetFlag(FLAGS_zipf));
  if (!zipf.ok()) return ldp::Fail(zipf.status());
  const auto items = ldp::SampleItems(*zipf, users, gen);
  if (auto s = ldp::RunHistogram(items, domain, epsilon, confidence,
                                 absl::GetFlag(FLAGS_top), gen);
      !s.ok()) {
    return ldp::Fail(s);
  }
  if (auto s = ldp::RunMeans(users, epsilon, confidence, gen); !s.ok()) {
    return ldp::Fail(s);
  }
  return 0;
}
