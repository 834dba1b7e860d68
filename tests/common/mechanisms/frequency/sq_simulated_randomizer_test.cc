// The SQ simulation of a local randomizer (KLNRS 2011, §5.1.2): with an
// exact oracle its samples follow R(D) and cost e^ε queries each; with a
// tolerant (adversarial or random) oracle its exact output distribution,
// computed in closed form, stays within SimulationDistanceBound of R(D) and
// visibly moves; it reaches the data only through the oracle; bad input is
// rejected. Randomizers: GRR, OUE (2^k outputs) and Hadamard response.
// Thresholds follow statistics.h (χ² at 1 − 1e-6, 5σ), fixed seeds.
#include "common/mechanisms/frequency/sq_simulated_randomizer.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "common/mechanisms/frequency/generalized_randomized_response.h"
#include "common/mechanisms/frequency/hadamard_response.h"
#include "common/mechanisms/frequency/unary_encoding.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/statistics.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using ::testing::HasSubstr;
using testing::SeededGenerator;
using testing::StatusIs;

// The acceptance coin rounds down to 2^-32; the bound is evaluated at the
// oracle's tolerance plus that.
constexpr double kCoinError = 0x1p-32;
// ln(1e6) / 2: McDiarmid's exponent for a 1e-6 false-failure rate.
const double kHalfLogInverseFailure = std::log(1e6) / 2;

// A randomizer with every output it can produce and each output's position.
struct Enumerated {
  std::unique_ptr<FrequencyOracle> randomizer{};
  std::vector<FrequencyReport> outputs{};
  std::function<int64_t(const FrequencyReport&)> index_of{};
  std::string name{};
};

Enumerated Grr(double epsilon, uint32_t n) {
  auto grr = GeneralizedRandomizedResponse::Create(
      {.epsilon = epsilon, .domain_size = n});
  EXPECT_OK(grr);
  Enumerated e{.randomizer = *std::move(grr), .name = "GRR"};
  for (uint32_t v = 0; v < n; ++v) e.outputs.push_back(ItemReport{v});
  e.index_of = [](const FrequencyReport& w) {
    return int64_t{std::get<ItemReport>(w).item};
  };
  return e;
}

// All 2^n bit vectors: small n keeps the enumeration exact.
Enumerated Oue(double epsilon, uint32_t n) {
  auto oue =
      UnaryEncoding::Create({.epsilon = epsilon,
                             .domain_size = n,
                             .variant = UnaryEncodingVariant::kOptimized});
  EXPECT_OK(oue);
  Enumerated e{.randomizer = *std::move(oue), .name = "OUE"};
  for (uint64_t mask = 0; mask < (uint64_t{1} << n); ++mask) {
    e.outputs.push_back(BitVectorReport{.words = {mask}});
  }
  e.index_of = [](const FrequencyReport& w) {
    return static_cast<int64_t>(std::get<BitVectorReport>(w).words.at(0));
  };
  return e;
}

Enumerated Hadamard(double epsilon, uint32_t n) {
  auto hr = HadamardResponse::Create({.epsilon = epsilon, .domain_size = n});
  EXPECT_OK(hr);
  Enumerated e{.name = "HR"};
  for (uint32_t y = 0; y < (*hr)->output_size(); ++y) {
    e.outputs.push_back(ItemReport{y});
  }
  e.randomizer = *std::move(hr);
  e.index_of = [](const FrequencyReport& w) {
    return int64_t{std::get<ItemReport>(w).item};
  };
  return e;
}

// Pr[R(D) = w] for each enumerated w.
std::vector<double> PushForward(const Enumerated& r,
                                const std::vector<double>& population) {
  std::vector<double> out;
  for (const FrequencyReport& w : r.outputs) {
    double p = 0;
    for (uint32_t x = 0; x < population.size(); ++x) {
      p += population[x] * r.randomizer->Probability(x, w);
    }
    out.push_back(p);
  }
  return out;
}

// The simulation's exact output distribution for a deterministic oracle: a
// try emits w with probability Pr[R(x*)=w]·accept(answer to g_w), and tries
// repeat until one is accepted. Also returns the per-try acceptance mass.
std::pair<std::vector<double>, double> ClosedFormSimulation(
    const Enumerated& r, StatisticalQueryOracle& oracle,
    uint32_t reference_item) {
  SeededGenerator unused(0);
  std::vector<double> out;
  double total = 0;
  for (const FrequencyReport& w : r.outputs) {
    const double proposal = r.randomizer->Probability(reference_item, w);
    double mass = 0;
    if (proposal > 0) {
      auto query = AcceptanceQuery(*r.randomizer, reference_item, w);
      EXPECT_OK(query);
      auto answer = oracle.Answer(*query, unused);
      EXPECT_OK(answer);
      mass = proposal * AcceptanceProbability(*answer);
    }
    out.push_back(mass);
    total += mass;
  }
  for (double& p : out) p /= total;
  return {out, total};
}

double TotalVariation(const std::vector<double>& p,
                      const std::vector<double>& q) {
  double sum = 0;
  for (size_t i = 0; i < p.size(); ++i) sum += std::abs(p[i] - q[i]);
  return sum / 2;
}

struct Draws {
  std::vector<double> counts{};  // per enumerated output
  testing::RunningMoments queries{};
  int64_t total_queries = 0;
};

Draws Simulate(const Enumerated& r, StatisticalQueryOracle& oracle, int n,
               uint64_t seed, const SqSimulationOptions& options = {}) {
  SeededGenerator gen(seed);
  Draws draws{.counts = std::vector<double>(r.outputs.size(), 0)};
  for (int i = 0; i < n; ++i) {
    auto sample =
        SampleViaStatisticalQueries(*r.randomizer, oracle, gen, options);
    EXPECT_OK(sample);
    if (!sample.ok()) break;
    draws.counts[r.index_of(sample->report)] += 1;
    draws.queries.Add(static_cast<double>(sample->queries));
    draws.total_queries += sample->queries;
  }
  return draws;
}

std::vector<double> Scaled(std::vector<double> p, double n) {
  for (double& x : p) x *= n;
  return p;
}

// Counts the oracle's calls and remembers the last query it was asked.
class RecordingOracle final : public StatisticalQueryOracle {
 public:
  explicit RecordingOracle(StatisticalQueryOracle& inner) : inner_(inner) {}
  uint32_t domain_size() const override { return inner_.domain_size(); }
  double tolerance() const override { return inner_.tolerance(); }
  absl::StatusOr<double> Answer(const std::vector<double>& query,
                                absl::BitGenRef gen) override {
    ++calls;
    last_query = query;
    return inner_.Answer(query, gen);
  }
  int64_t calls = 0;
  std::vector<double> last_query;

 private:
  StatisticalQueryOracle& inner_;
};

// Answers every query with a fixed value, ignoring any population.
class ConstantOracle final : public StatisticalQueryOracle {
 public:
  ConstantOracle(uint32_t domain_size, double answer)
      : domain_size_(domain_size), answer_(answer) {}
  uint32_t domain_size() const override { return domain_size_; }
  double tolerance() const override { return 1; }
  absl::StatusOr<double> Answer(const std::vector<double>&,
                                absl::BitGenRef) override {
    return answer_;
  }

 private:
  uint32_t domain_size_;
  double answer_;
};

std::unique_ptr<ExactStatisticalQueryOracle> MakeExact(
    std::vector<double> population) {
  auto oracle = ExactStatisticalQueryOracle::Create(std::move(population));
  EXPECT_OK(oracle);
  return *std::move(oracle);
}

std::unique_ptr<TolerantStatisticalQueryOracle> MakeTolerant(
    TolerantOracleOptions options) {
  auto oracle = TolerantStatisticalQueryOracle::Create(std::move(options));
  EXPECT_OK(oracle);
  return *std::move(oracle);
}

double Bound(double epsilon, double tolerance) {
  auto bound = SimulationDistanceBound(epsilon, tolerance);
  EXPECT_OK(bound);
  return *bound;
}

// With 1e-6 failure probability, TV(empirical of n draws, p) ≤ its mean
// (≤ ½ Σ √(p(1 − p)/n), Jensen) plus √(ln(1e6)/(2n)) (McDiarmid: one draw
// moves it by ≤ 1/n).
double EmpiricalTvSlack(const std::vector<double>& p, int n) {
  double mean = 0;
  for (double x : p) mean += std::sqrt(x * (1 - x) / n);
  return mean / 2 + std::sqrt(kHalfLogInverseFailure / n);
}

// Exact derivation check: with an exact oracle the accepted density is
// Pr[R(x*)=w]·E_D[g_w] = e^{−ε}·Pr[R(D)=w], for any reference item.
TEST(SqSimulatedRandomizer, ExactOracleClosedFormIsThePushForward) {
  const std::vector<double> population = {0.1, 0.5, 0.15, 0.25};
  std::vector<Enumerated> randomizers;
  randomizers.push_back(Grr(1.0, 4));
  randomizers.push_back(Oue(1.0, 4));
  randomizers.push_back(Hadamard(2.0, 4));
  for (const Enumerated& r : randomizers) {
    for (uint32_t reference : {0u, 3u}) {
      SCOPED_TRACE(r.name + " reference " + std::to_string(reference));
      auto oracle = MakeExact(population);
      const auto [simulated, acceptance] =
          ClosedFormSimulation(r, *oracle, reference);
      EXPECT_NEAR(acceptance, std::exp(-r.randomizer->epsilon()), 1e-9);
      const std::vector<double> target = PushForward(r, population);
      for (size_t i = 0; i < target.size(); ++i) {
        EXPECT_NEAR(simulated[i], target[i], 1e-9) << "output " << i;
      }
    }
  }
}

// Samples follow R(D) (χ²) and cost e^ε queries each on average (5σ of a
// geometric with success e^{−ε}: variance (1 − p)/p²).
TEST(SqSimulatedRandomizer, ExactOracleSamplesFollowThePushForward) {
  struct Case {
    Enumerated r;
    std::vector<double> population;
    uint32_t reference;
    uint64_t seed;
  };
  std::vector<Case> cases;
  cases.push_back({Grr(1.0, 5), {0.05, 0.4, 0.2, 0.25, 0.1}, 0, 11});
  cases.push_back({Oue(1.0, 4), {0.4, 0.1, 0.3, 0.2}, 0, 12});
  cases.push_back({Oue(0.5, 3), {0.7, 0.2, 0.1}, 2, 13});
  cases.push_back({Hadamard(2.0, 3), {0.2, 0.2, 0.6}, 1, 14});
  constexpr int kSamples = 30'000;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.r.name + " eps " +
                 std::to_string(c.r.randomizer->epsilon()));
    auto exact = MakeExact(c.population);
    RecordingOracle oracle(*exact);
    const Draws draws = Simulate(c.r, oracle, kSamples, c.seed,
                                 {.reference_item = c.reference});
    const testing::ChiSquareResult chi2 = testing::ChiSquare(
        draws.counts, Scaled(PushForward(c.r, c.population), kSamples));
    EXPECT_TRUE(chi2.Passes())
        << "chi2 " << chi2.statistic << " df " << chi2.degrees_of_freedom;

    const double accept = std::exp(-c.r.randomizer->epsilon());
    const double sd = std::sqrt((1 - accept) / (accept * accept) / kSamples);
    auto expected = ExpectedQueriesPerSample(c.r.randomizer->epsilon());
    ASSERT_OK(expected);
    EXPECT_DOUBLE_EQ(*expected, 1 / accept);
    EXPECT_LE(std::abs(draws.queries.mean() - *expected), 5 * sd)
        << "mean queries " << draws.queries.mean();
    // One oracle call per query, and none beyond those reported.
    EXPECT_EQ(oracle.calls, draws.total_queries);
  }
}

// The adversary moves every answer the full τ toward a decoy population. Its
// answers are deterministic, so the simulation's output distribution is
// computable exactly: it stays within the bound, it really moves (a third of
// the bound or more), and sampling realizes it.
TEST(SqSimulatedRandomizer, AdversarialOracleStaysWithinTheBound) {
  struct Case {
    Enumerated r;
    std::vector<double> population;
    std::vector<double> decoy;
    uint64_t seed;
  };
  std::vector<Case> cases;
  cases.push_back({Grr(0.5, 4), {0.4, 0.3, 0.2, 0.1}, {1, 0, 0, 0}, 21});
  cases.push_back(
      {Grr(2.0, 5), {0.1, 0.2, 0.3, 0.25, 0.15}, {0, 0, 0, 0, 1}, 22});
  cases.push_back({Oue(1.0, 4), {0.4, 0.3, 0.2, 0.1}, {0, 0, 0, 1}, 23});
  constexpr double kTargetDistance = 0.15;
  constexpr int kSamples = 40'000;
  for (const Case& c : cases) {
    const double epsilon = c.r.randomizer->epsilon();
    SCOPED_TRACE(c.r.name + " eps " + std::to_string(epsilon));
    auto tolerance = ToleranceForDistance(epsilon, kTargetDistance);
    ASSERT_OK(tolerance);
    auto oracle = MakeTolerant({.distribution = c.population,
                                .tolerance = *tolerance,
                                .decoy = c.decoy});
    const double bound = Bound(epsilon, *tolerance + kCoinError);
    EXPECT_NEAR(bound, kTargetDistance, 1e-6);

    const std::vector<double> target = PushForward(c.r, c.population);
    const auto [simulated, acceptance] =
        ClosedFormSimulation(c.r, *oracle, /*reference_item=*/0);
    const double exact_tv = TotalVariation(simulated, target);
    EXPECT_LE(exact_tv, bound);
    EXPECT_GE(exact_tv, bound / 3) << "the adversary should move the output";
    auto most_queries = ExpectedQueriesPerSample(epsilon, *tolerance);
    ASSERT_OK(most_queries);
    EXPECT_GE(acceptance, 1 / *most_queries - kCoinError);

    const Draws draws = Simulate(c.r, *oracle, kSamples, c.seed);
    const testing::ChiSquareResult realized =
        testing::ChiSquare(draws.counts, Scaled(simulated, kSamples));
    EXPECT_TRUE(realized.Passes()) << "chi2 " << realized.statistic;
    const std::vector<double> empirical = Scaled(draws.counts, 1.0 / kSamples);
    EXPECT_LE(TotalVariation(empirical, target),
              bound + EmpiricalTvSlack(simulated, kSamples));
    // Not vacuous: the samples are detectably not from R(D).
    const testing::ChiSquareResult honest =
        testing::ChiSquare(draws.counts, Scaled(target, kSamples));
    EXPECT_FALSE(honest.Passes()) << "chi2 " << honest.statistic;
  }
}

// Independent uniform errors: each answer within τ, and the samples within
// the bound (plus sampling slack) of R(D).
TEST(SqSimulatedRandomizer, RandomErrorOracleStaysWithinTheBound) {
  const Enumerated r = Grr(1.0, 4);
  const std::vector<double> population = {0.25, 0.25, 0.4, 0.1};
  const double epsilon = r.randomizer->epsilon();
  auto tolerance = ToleranceForDistance(epsilon, 0.15);
  ASSERT_OK(tolerance);
  auto oracle =
      MakeTolerant({.distribution = population, .tolerance = *tolerance});
  EXPECT_EQ(oracle->tolerance(), *tolerance);

  const std::vector<double> query = {1, 0.5, 0.25, 0};
  const double truth = 0.25 + 0.125 + 0.1;
  SeededGenerator gen(31);
  testing::RunningMoments errors;
  double lowest = 0, highest = 0;
  for (int i = 0; i < 20'000; ++i) {
    auto answer = oracle->Answer(query, gen);
    ASSERT_OK(answer);
    const double error = *answer - truth;
    ASSERT_LE(std::abs(error), *tolerance * (1 + 1e-12));
    errors.Add(error);
    lowest = std::min(lowest, error);
    highest = std::max(highest, error);
  }
  // Uniform on [−τ, τ]: mean 0 with SD τ/√3, and both ends are reached.
  EXPECT_LE(std::abs(errors.mean()),
            5 * *tolerance / std::sqrt(3.0 * errors.count()));
  EXPECT_LT(lowest, -0.99 * *tolerance);
  EXPECT_GT(highest, 0.99 * *tolerance);

  constexpr int kSamples = 40'000;
  const std::vector<double> target = PushForward(r, population);
  const Draws draws = Simulate(r, *oracle, kSamples, 32);
  const std::vector<double> empirical = Scaled(draws.counts, 1.0 / kSamples);
  // The samples' law has no closed form here, so bound EmpiricalTvSlack's
  // mean term for any law on k cells: ½ Σ √(p(1 − p)/n) ≤ ½ √((k − 1)/n) by
  // Cauchy–Schwarz.
  const double slack = std::sqrt((target.size() - 1.0) / kSamples) / 2 +
                       std::sqrt(kHalfLogInverseFailure / kSamples);
  EXPECT_LE(TotalVariation(empirical, target),
            Bound(epsilon, *tolerance + kCoinError) + slack);
}

// Data reaches the simulation only through the oracle: every query it asks
// is reported, the accepted report is the one last asked about, and an
// oracle that ignores the population (always answering 1) yields plain
// R(x*) draws, one query each.
TEST(SqSimulatedRandomizer, OnlyTheOracleSeesTheData) {
  const Enumerated r = Oue(1.0, 3);
  auto exact = MakeExact({0.2, 0.3, 0.5});
  RecordingOracle oracle(*exact);
  SeededGenerator gen(41);
  int64_t reported = 0;
  for (int i = 0; i < 500; ++i) {
    auto sample = SampleViaStatisticalQueries(*r.randomizer, oracle, gen,
                                              {.reference_item = 1});
    ASSERT_OK(sample);
    reported += sample->queries;
    EXPECT_EQ(oracle.calls, reported);
    auto asked = AcceptanceQuery(*r.randomizer, 1, sample->report);
    ASSERT_OK(asked);
    EXPECT_EQ(oracle.last_query, *asked);
  }

  ConstantOracle blind(3, 1.0);
  constexpr int kSamples = 20'000;
  const Draws draws = Simulate(r, blind, kSamples, 42, {.reference_item = 2});
  EXPECT_EQ(draws.queries.mean(), 1.0);
  std::vector<double> expected;
  for (const FrequencyReport& w : r.outputs) {
    expected.push_back(kSamples * r.randomizer->Probability(2, w));
  }
  const testing::ChiSquareResult chi2 =
      testing::ChiSquare(draws.counts, expected);
  EXPECT_TRUE(chi2.Passes()) << "chi2 " << chi2.statistic;
}

TEST(SqSimulatedRandomizer, DistanceBoundIsTheSmallerOfTheTwoDerivedTerms) {
  for (double epsilon : {0.25, 0.5, std::log(2.0), 1.0, 2.0}) {
    EXPECT_EQ(Bound(epsilon, 0), 0);
    for (double tolerance : {1e-4, 1e-3, 0.01, 0.05}) {
      SCOPED_TRACE(::testing::Message()
                   << "eps " << epsilon << " tau " << tolerance);
      const double eta = tolerance * std::exp(2 * epsilon);
      const double relative =
          eta < 1 ? (1 - std::sqrt(1 - eta * eta)) / eta : 1.0;
      const double absolute = tolerance * std::exp(epsilon);
      EXPECT_NEAR(Bound(epsilon, tolerance),
                  std::min({relative, absolute, 1.0}), 1e-12);
      EXPECT_LT(Bound(epsilon, tolerance), Bound(epsilon, 1.01 * tolerance));
    }
  }
  // Small η: the relative term is ≈ η/2 and wins below ε = ln 2; above it
  // the absolute term τe^ε does.
  EXPECT_NEAR(Bound(0.25, 1e-4) / (1e-4 * std::exp(0.5) / 2), 1.0, 1e-6);
  EXPECT_EQ(Bound(2.0, 1e-4), 1e-4 * std::exp(2.0));
  EXPECT_EQ(Bound(3.0, 0.5), 1.0);

  for (double epsilon : {0.1, 0.5, 1.0, 3.0}) {
    for (double distance : {0.01, 0.1, 0.5, 0.9}) {
      auto tolerance = ToleranceForDistance(epsilon, distance);
      ASSERT_OK(tolerance);
      EXPECT_NEAR(Bound(epsilon, *tolerance), distance, 1e-12);
      EXPECT_GT(Bound(epsilon, *tolerance * 1.001), distance);
    }
  }
}

// The relative term is the exact supremum of the reweighting argument: a
// two-valued ratio r ∈ {1 + η, 1 − η} with mass s/(s + t) on 1 + η attains
// it, and no other split exceeds it.
TEST(SqSimulatedRandomizer, RelativeTermIsAttainedByTwoValuedReweighting) {
  for (double eta : {0.05, 0.3, 0.7, 0.95}) {
    // Below ε ≈ 0.27 the relative term is the smaller one for every η here.
    const double epsilon = 0.1;
    const double bound = Bound(epsilon, eta * std::exp(-2 * epsilon));
    const auto tv_of_split = [eta](double alpha) {
      const std::vector<double> p = {alpha, 1 - alpha};
      const double z = alpha * (1 + eta) + (1 - alpha) * (1 - eta);
      return TotalVariation(
          p, {alpha * (1 + eta) / z, (1 - alpha) * (1 - eta) / z});
    };
    const double s = std::sqrt(1 - eta), t = std::sqrt(1 + eta);
    EXPECT_NEAR(tv_of_split(s / (s + t)), bound, 1e-12) << eta;
    for (int i = 0; i <= 1000; ++i) {
      EXPECT_LE(tv_of_split(i / 1000.0), bound + 1e-15) << eta;
    }
  }
}

TEST(SqSimulatedRandomizer, ExpectedQueries) {
  auto exact = ExpectedQueriesPerSample(1.5);
  ASSERT_OK(exact);
  EXPECT_DOUBLE_EQ(*exact, std::exp(1.5));
  auto tolerant = ExpectedQueriesPerSample(1.0, 0.1);
  ASSERT_OK(tolerant);
  EXPECT_DOUBLE_EQ(*tolerant, std::exp(1.0) / (1 - 0.1 * std::exp(1.0)));
  auto hopeless = ExpectedQueriesPerSample(1.0, 0.5);
  ASSERT_OK(hopeless);
  EXPECT_EQ(*hopeless, std::numeric_limits<double>::infinity());
}

TEST(SqSimulatedRandomizer, RejectsBadInput) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const auto invalid = StatusIs(absl::StatusCode::kInvalidArgument);
  const auto message = [](const auto& status_or) {
    return std::string(status_or.status().message());
  };

  // Populations.
  for (const std::vector<double>& bad : std::vector<std::vector<double>>{
           {}, {0.5, 0.6}, {-0.1, 1.1}, {nan, 1}}) {
    EXPECT_THAT(ExactStatisticalQueryOracle::Create(bad), invalid);
  }
  EXPECT_THAT(message(ExactStatisticalQueryOracle::Create({0.5, 0.6})),
              HasSubstr("distribution must sum to 1, got 1.1"));

  // Tolerances outside [0, 1), and a decoy of the wrong size.
  for (double tolerance : {-0.1, 1.0, nan}) {
    auto oracle = TolerantStatisticalQueryOracle::Create(
        {.distribution = {0.5, 0.5}, .tolerance = tolerance});
    EXPECT_THAT(oracle, invalid) << tolerance;
    EXPECT_THAT(message(oracle), HasSubstr("tolerance must be in [0, 1)"));
    EXPECT_THAT(SimulationDistanceBound(1.0, tolerance), invalid);
    EXPECT_THAT(ExpectedQueriesPerSample(1.0, tolerance), invalid);
  }
  EXPECT_THAT(message(TolerantStatisticalQueryOracle::Create(
                  {.distribution = {0.5, 0.5},
                   .tolerance = 0.1,
                   .decoy = {0.2, 0.3, 0.5}})),
              HasSubstr("decoy has 3 items but distribution has 2"));
  for (double epsilon : {0.0, -1.0, nan}) {
    EXPECT_THAT(SimulationDistanceBound(epsilon, 0.1), invalid);
    EXPECT_THAT(ToleranceForDistance(epsilon, 0.1), invalid);
  }
  for (double distance : {0.0, 1.0, -0.5, nan}) {
    EXPECT_THAT(ToleranceForDistance(1.0, distance), invalid);
  }

  // Queries of the wrong size or outside [0, 1].
  auto oracle = MakeExact({0.25, 0.25, 0.25, 0.25});
  SeededGenerator gen(51);
  auto short_query = oracle->Answer({0.5, 0.5, 0.5}, gen);
  EXPECT_THAT(short_query, invalid);
  EXPECT_THAT(message(short_query),
              HasSubstr("got 3 values for a domain of 4 items"));
  auto out_of_range = oracle->Answer({0.5, 1.5, 0.5, 0.5}, gen);
  EXPECT_THAT(message(out_of_range),
              HasSubstr("query values must be in [0, 1], got 1.5 for item 1"));

  // Sampler arguments.
  const Enumerated grr = Grr(1.0, 4);
  auto three_items = MakeExact({0.2, 0.3, 0.5});
  auto mismatched =
      SampleViaStatisticalQueries(*grr.randomizer, *three_items, gen);
  EXPECT_THAT(mismatched, invalid);
  EXPECT_THAT(message(mismatched),
              HasSubstr("oracle's domain has 3 items but the randomizer's "
                        "has 4"));
  EXPECT_THAT(SampleViaStatisticalQueries(*grr.randomizer, *oracle, gen,
                                          {.reference_item = 4}),
              invalid);
  EXPECT_THAT(SampleViaStatisticalQueries(*grr.randomizer, *oracle, gen,
                                          {.max_queries = 0}),
              invalid);
  EXPECT_THAT(AcceptanceQuery(*grr.randomizer, 0, BitVectorReport{}), invalid);
  EXPECT_THAT(AcceptanceQuery(*grr.randomizer, 7, ItemReport{0}), invalid);

  // Broken oracles: NaN is rejected; answers ≤ 0 are never accepted, and
  // the cap says what to do about it.
  ConstantOracle nan_oracle(4, nan);
  EXPECT_THAT(
      message(SampleViaStatisticalQueries(*grr.randomizer, nan_oracle, gen)),
      HasSubstr("answered NaN"));
  ConstantOracle zero_oracle(4, -0.5);
  auto exhausted = SampleViaStatisticalQueries(*grr.randomizer, zero_oracle,
                                               gen, {.max_queries = 100});
  EXPECT_THAT(exhausted, StatusIs(absl::StatusCode::kResourceExhausted));
  EXPECT_THAT(message(exhausted),
              HasSubstr("no proposal accepted in 100 queries"));
  EXPECT_THAT(message(exhausted), HasSubstr("raise max_queries"));
  EXPECT_EQ(AcceptanceProbability(nan), 0);
  EXPECT_EQ(AcceptanceProbability(-0.2), 0);
  EXPECT_EQ(AcceptanceProbability(1.3), 1);
}

}  // namespace
}  // namespace ldp
