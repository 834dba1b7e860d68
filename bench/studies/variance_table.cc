// variance_table: measured error of every mechanism against its closed-form
// variance, on a Zipf(1.1) population (frequency oracles) and a spread of
// values in [-1, 1] (real mechanisms). Prints a Markdown table.
//
// Frequency oracles: measured = mean over items of (f̂_v − f_v)², averaged
// over `--runs` runs; closed form = mean over items of Var[f̂_v] at the true
// f_v. Real mechanisms: measured = mean over agents of (Decode(R(x_i)) − x_i)²,
// an unbiased estimate of the mean per-report variance; closed form = mean of
// Variance(x_i). A ratio near 1 says the stated error bars are honest.
//
// Several attributes: RS+FD with GRR, zero-vector (OUE-z) and one-hot
// (OUE-r) fakes (fake_data_strategy.h) on four independent
// Zipf(1.1) attributes of sizes 16, 8, 8 and 4 (N = 4096); measured = mean
// over the 36 marginal cells of (ŷ − m)², closed form = the mean cell
// variance at the true marginals. Attribute sampling (SMP) on the same data
// beside it: its cell (j, v) decodes (c_jv/n_j − q)/(p − q) from the n_j
// agents that sampled j, a random subset of the fixed population, so
//   Var = E[1/n_j]·[f·p(1 − p) + (1 − f)·q(1 − q)]/(p − q)²
//         + f(1 − f)·(E[1/n_j] − 1/n),  E[1/n_j] ≈ (d/n)(1 + (d − 1)/n),
// with the level's GRR or OUE p and q. The ratio of the two rows' errors is
// the price of hiding the sampled attribute.
#include <cmath>
#include <cstdio>
#include <memory>
#include <numeric>
#include <optional>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "common/crypto/secure_random.h"
#include "common/estimation/population.h"
#include "common/mechanisms/frequency/count_mean_sketch.h"
#include "common/mechanisms/frequency/hadamard_response.h"
#include "common/mechanisms/frequency_oracle_factory.h"
#include "common/mechanisms/rappor/rappor.h"
#include "common/mechanisms/rappor/rappor_decoder.h"
#include "common/mechanisms/real/discrete_laplace.h"
#include "common/mechanisms/real/duchi_mechanism.h"
#include "common/mechanisms/real/hybrid_mechanism.h"
#include "common/mechanisms/real/piecewise_mechanism.h"
#include "common/workload/strategies/fake_data_strategy.h"
#include "common/workload/strategies/strategy_factory.h"
#include "common/workload/strategy_randomizers/fake_data_randomizer.h"
#include "common/workload/strategy_randomizers/grouped_randomizer.h"

ABSL_FLAG(int64_t, users, 100000, "Reports per run.");
ABSL_FLAG(uint32_t, domain, 1024, "Histogram domain size.");
ABSL_FLAG(int, runs, 3, "Runs averaged per frequency-oracle cell.");
ABSL_FLAG(int, attribute_runs, 100,
          "Runs averaged per several-attribute cell (36 marginal cells "
          "dominated by the largest attribute's: 3 runs leave the ratio "
          "±15%, 100 about ±4%).");
ABSL_FLAG(bool, attributes_only, false,
          "Print only the several-attribute table.");

namespace ldp {
namespace {

constexpr double kEpsilons[] = {0.5, 1, 2, 4};

// RAPPOR's variance depends on every item's frequency (its regression mixes
// them): the decoder's exact mean variance at the truth, for equal cohorts.
double RapporClosedForm(const Rappor& oracle, const std::vector<double>& truth,
                        size_t num_reports) {
  const RapporBloom& bloom = oracle.bloom();
  std::vector<uint32_t> items(truth.size());
  std::iota(items.begin(), items.end(), 0);
  const auto variances =
      RapporDecoder(bloom, oracle.layers().composed())
          .Variances(std::vector<int64_t>(bloom.num_cohorts(),
                                          num_reports / bloom.num_cohorts()),
                     items, truth);
  if (!variances.ok()) return NAN;
  double total = 0;
  for (double v : *variances) total += v;
  return total / truth.size();
}

// `general_hadamard`: Hadamard response with the t of least variance at
// each ε (hadamard_response.h) instead of its one-block form.
void FrequencyRow(FrequencyOracleKind kind, bool general_hadamard,
                  uint32_t domain, const std::vector<uint32_t>& items,
                  const std::vector<double>& truth, int runs,
                  absl::BitGenRef gen) {
  std::printf("| %s%s |", std::string(FrequencyOracleKindName(kind)).c_str(),
              general_hadamard ? " (general, best t)" : "");
  for (double epsilon : kEpsilons) {
    auto oracle = CreateFrequencyOracle(
        {.kind = kind,
         .epsilon = epsilon,
         .domain_size = domain,
         .epsilon_permanent = 2 * epsilon,
         .rows_per_item = general_hadamard ? HadamardResponse::BestRowsPerItem(
                                                 epsilon, domain)
                                           : 0});
    if (!oracle.ok()) {
      std::printf(" n/a |");
      continue;
    }
    double measured = 0;
    for (int r = 0; r < runs; ++r) {
      auto accumulator = (*oracle)->NewAccumulator();
      for (uint32_t item : items) {
        (void)accumulator->Add((*oracle)->Randomize(item, gen));
      }
      measured += MeanSquaredError(accumulator->Estimate().frequencies, truth);
    }
    measured /= runs;
    // Sketches' variance depends on the other items' Σf² (hash collisions);
    // give them the population's, the others need only f_v.
    const auto* sketch = dynamic_cast<const CountMeanSketch*>(oracle->get());
    if (const auto* rappor = dynamic_cast<const Rappor*>(oracle->get())) {
      const double closed = RapporClosedForm(*rappor, truth, items.size());
      std::printf(" %.3e / %.3e (%.3f) |", measured, closed, measured / closed);
      continue;
    }
    double second_moment = 0;
    for (double f : truth) second_moment += f * f;
    double closed = 0;
    const auto n = static_cast<int64_t>(items.size());
    for (double f : truth) {
      closed += sketch != nullptr
                    ? sketch->PopulationVariance(f, n, second_moment - f * f)
                    : (*oracle)->Variance(f, n);
    }
    closed /= domain;
    std::printf(" %.3e / %.3e (%.3f) |", measured, closed, measured / closed);
  }
  std::printf("\n");
}

template <typename Create>
void RealRow(const char* name, const std::vector<double>& values, Create create,
             absl::BitGenRef gen) {
  std::printf("| %s |", name);
  for (double epsilon : kEpsilons) {
    auto mechanism = create(epsilon);
    if (!mechanism.ok()) {
      std::printf(" n/a |");
      continue;
    }
    double measured = 0, closed = 0;
    for (double x : values) {
      const double y = (*mechanism)->Decode((*mechanism)->Randomize(x, gen));
      measured += (y - x) * (y - x);
      closed += (*mechanism)->Variance(x);
    }
    std::printf(" %.4f / %.4f (%.3f) |", measured / values.size(),
                closed / values.size(), measured / closed);
  }
  std::printf("\n");
}

// SMP's cell variance (above) for attribute j at frequency f, n agents.
double AttributeSamplingCellVariance(const GroupedRandomizer& smp, uint32_t j,
                                     double f, int64_t n) {
  const grouped::Level& level = smp.layout()->levels[j];
  const double p = level.p, q = level.q, users = static_cast<double>(n);
  const double d = static_cast<double>(smp.layout()->levels.size());
  const double inverse = d / users * (1 + (d - 1) / users);
  return inverse * (f * p * (1 - p) + (1 - f) * q * (1 - q)) /
             ((p - q) * (p - q)) +
         f * (1 - f) * (inverse - 1 / users);
}

// RS+FD (or SMP) over independent Zipf(1.1) attributes of `sizes`, n
// agents.
void AttributeRow(StrategyKind kind, const std::vector<uint32_t>& sizes,
                  int64_t users, int runs, absl::BitGenRef gen) {
  std::vector<std::vector<uint32_t>> values;
  uint32_t n = 1;
  for (uint32_t k : sizes) {
    values.push_back(SampleItems(*ZipfDistribution(k, 1.1), users, gen));
    n *= k;
  }
  std::vector<uint32_t> items(users, 0);
  std::vector<double> truth;  // the marginals, attribute after attribute
  for (size_t j = 0; j < sizes.size(); ++j) {
    for (int64_t i = 0; i < users; ++i)
      items[i] = items[i] * sizes[j] + values[j][i];
    for (double f : EmpiricalFrequencies(values[j], sizes[j]))
      truth.push_back(f);
  }
  std::printf("| %s (%zu attributes, N = %u) |",
              std::string(StrategyKindName(kind)).c_str(), sizes.size(), n);
  for (double epsilon : kEpsilons) {
    auto strategy = CreateStrategy({.kind = kind,
                                    .epsilon = epsilon,
                                    .domain_size = n,
                                    .attribute_sizes = sizes});
    if (!strategy.ok()) {
      std::printf(" n/a |");
      continue;
    }
    double measured = 0;
    for (int r = 0; r < runs; ++r) {
      auto accumulator = (*strategy)->NewAccumulator();
      for (uint32_t item : items) {
        (void)accumulator->Add((*strategy)->Randomize(item, gen));
      }
      const Eigen::VectorXd y = accumulator->Estimate();  // SMP: + the total
      measured += MeanSquaredError({y.data(), truth.size()}, truth);
    }
    measured /= runs;
    const StrategyRandomizer* randomizer = (*strategy)->randomizer().get();
    const auto* smp = dynamic_cast<const GroupedRandomizer*>(randomizer);
    double closed = 0;
    size_t cell = 0;
    for (uint32_t j = 0; j < sizes.size(); ++j) {
      for (uint32_t v = 0; v < sizes[j]; ++v, ++cell) {
        const std::optional<double> fake =
            FakeDataCellVariance(*randomizer, j, truth[cell], users);
        closed += fake.has_value() ? *fake
                                   : AttributeSamplingCellVariance(
                                         *smp, j, truth[cell], users);
      }
    }
    closed /= static_cast<double>(truth.size());
    std::printf(" %.3e / %.3e (%.3f) |", measured, closed, measured / closed);
  }
  std::printf("\n");
}

}  // namespace
}  // namespace ldp

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  const int64_t users = absl::GetFlag(FLAGS_users);
  const uint32_t domain = absl::GetFlag(FLAGS_domain);
  auto random = ldp::SecureRandom::Create();
  if (!random.ok()) {
    std::fprintf(stderr, "%s\n", random.status().ToString().c_str());
    return 1;
  }
  absl::BitGenRef gen(**random);
  auto zipf = ldp::ZipfDistribution(domain, 1.1);
  if (!zipf.ok()) return 1;
  const auto items = ldp::SampleItems(*zipf, users, gen);
  const auto truth = ldp::EmpiricalFrequencies(items, domain);
  const bool all = !absl::GetFlag(FLAGS_attributes_only);
  if (all) {
    std::printf(
        "Frequency oracles, N = %u, n = %lld, Zipf(1.1); cells: measured MSE / "
        "closed form (ratio), mean of %d runs\n\n",
        domain, static_cast<long long>(users), absl::GetFlag(FLAGS_runs));
    std::printf(
        "| oracle | eps=0.5 | eps=1 | eps=2 | eps=4 "
        "|\n|---|---|---|---|---|\n");
    using K = ldp::FrequencyOracleKind;
    for (K kind :
         {K::kGeneralizedRandomizedResponse, K::kOptimizedUnaryEncoding,
          K::kSymmetricUnaryEncoding, K::kOptimizedLocalHashing,
          K::kSubsetSelection, K::kHadamardResponse, K::kCountMeanSketch,
          K::kHadamardCountMeanSketch, K::kLongitudinalUnaryEncoding,
          K::kLongitudinalGrr, K::kLongitudinalLocalHashing, K::kDBitFlip,
          K::kRappor}) {
      ldp::FrequencyRow(kind, false, domain, items, truth,
                        absl::GetFlag(FLAGS_runs), gen);
    }
    ldp::FrequencyRow(K::kHadamardResponse, true, domain, items, truth,
                      absl::GetFlag(FLAGS_runs), gen);
  }
  std::printf(
      "\nSeveral attributes: independent Zipf(1.1) attributes, n = %lld; "
      "cells: mean marginal-cell MSE / closed form (ratio), mean of %d "
      "runs\n\n",
      static_cast<long long>(users), absl::GetFlag(FLAGS_attribute_runs));
  std::printf(
      "| strategy | eps=0.5 | eps=1 | eps=2 | eps=4 "
      "|\n|---|---|---|---|---|\n");
  for (ldp::StrategyKind kind : {ldp::StrategyKind::kRandomSamplingFakeData,
                                 ldp::StrategyKind::kFakeDataUnaryZero,
                                 ldp::StrategyKind::kFakeDataUnaryRandom,
                                 ldp::StrategyKind::kAttributeSampling}) {
    ldp::AttributeRow(kind, {16, 8, 8, 4}, users,
                      absl::GetFlag(FLAGS_attribute_runs), gen);
  }
  if (!all) return 0;
  std::vector<double> values(users);
  for (int64_t i = 0; i < users; ++i) {
    values[i] = -1.0 + 2.0 * (static_cast<double>(i) + 0.5) / users;
  }
  std::printf(
      "\nReal mechanisms on [-1, 1], n = %lld values spread uniformly; cells: "
      "measured mean per-report variance / closed form (ratio)\n\n",
      static_cast<long long>(users));
  std::printf(
      "| mechanism | eps=0.5 | eps=1 | eps=2 | eps=4 "
      "|\n|---|---|---|---|---|\n");
  ldp::RealRow(
      "discrete_laplace", values,
      [](double e) {
        return ldp::DiscreteLaplaceMechanism::Create(
            {.epsilon = e, .bound = 1});
      },
      gen);
  ldp::RealRow(
      "duchi", values,
      [](double e) {
        return ldp::DuchiMechanism::Create({.epsilon = e, .bound = 1});
      },
      gen);
  ldp::RealRow(
      "piecewise", values,
      [](double e) {
        return ldp::PiecewiseMechanism::Create({.epsilon = e, .bound = 1});
      },
      gen);
  ldp::RealRow(
      "hybrid", values,
      [](double e) {
        return ldp::HybridMechanism::Create({.epsilon = e, .bound = 1});
      },
      gen);
  return 0;
}
