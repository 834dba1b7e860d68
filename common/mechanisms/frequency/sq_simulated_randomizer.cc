// Rejection-sampling simulation of a local randomizer by statistical
// queries; see sq_simulated_randomizer.h for the construction and its bound.
#include "common/mechanisms/frequency/sq_simulated_randomizer.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string_view>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/base/coin.h"
#include "common/base/status_macros.h"
#include "common/base/validation.h"

namespace ldp {
namespace {

constexpr std::string_view kSimulation = "SQ simulation";

// Checks a probability vector and renormalizes it so that answers carry no
// error beyond floating point: a sum of 1 ± 1e-9 would otherwise be a
// hidden tolerance of 1e-9.
absl::Status ValidateDistribution(const char* field,
                                  std::vector<double>& distribution) {
  if (distribution.empty() ||
      distribution.size() > std::numeric_limits<uint32_t>::max()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "SQ oracle: ", field, " must have 1 to 2^32 - 1 items, got ",
        distribution.size()));
  }
  double total = 0;
  for (size_t x = 0; x < distribution.size(); ++x) {
    if (!(std::isfinite(distribution[x]) && distribution[x] >= 0)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "SQ oracle: ", field, "[", x,
          "] must be a finite probability >= 0, got ", distribution[x]));
    }
    total += distribution[x];
  }
  if (!(std::abs(total - 1) <= 1e-9)) {
    return absl::InvalidArgumentError(
        absl::StrCat("SQ oracle: ", field, " must sum to 1, got ", total));
  }
  for (double& p : distribution) p /= total;
  return absl::OkStatus();
}

absl::Status ValidateQuery(const std::vector<double>& query,
                           size_t domain_size) {
  if (query.size() != domain_size) {
    return absl::InvalidArgumentError(absl::StrCat(
        "SQ oracle: a query needs one value per item: got ", query.size(),
        " values for a domain of ", domain_size, " items"));
  }
  for (size_t x = 0; x < query.size(); ++x) {
    if (!(query[x] >= 0 && query[x] <= 1)) {
      return absl::InvalidArgumentError(
          absl::StrCat("SQ oracle: query values must be in [0, 1], got ",
                       query[x], " for item ", x));
    }
  }
  return absl::OkStatus();
}

double Mean(const std::vector<double>& distribution,
            const std::vector<double>& query) {
  double mean = 0;
  for (size_t x = 0; x < query.size(); ++x) {
    mean += distribution[x] * query[x];
  }
  return mean;
}

absl::Status ValidateTolerance(double tolerance) {
  if (tolerance >= 0 && tolerance < 1) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "SQ simulation: tolerance must be in [0, 1), got ", tolerance));
}

// g_w without validating the proposal, for proposals R itself drew.
absl::StatusOr<std::vector<double>> QueryFor(const FrequencyOracle& randomizer,
                                             uint32_t reference_item,
                                             const FrequencyReport& proposal) {
  const double reference = randomizer.Probability(reference_item, proposal);
  if (!(reference > 0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "SQ simulation: the randomizer never outputs this report from the "
        "reference item ",
        reference_item,
        ", so it cannot be proposed (an ε-LDP randomizer would not output it "
        "from any item)"));
  }
  const double scale = std::exp(randomizer.epsilon()) * reference;
  std::vector<double> query(randomizer.domain_size());
  for (uint32_t x = 0; x < randomizer.domain_size(); ++x) {
    // ε-LDP keeps the ratio ≤ 1; the clamp only absorbs rounding in
    // Probability and exp.
    query[x] =
        std::clamp(randomizer.Probability(x, proposal) / scale, 0.0, 1.0);
  }
  return query;
}

// Clamping can only move an answer toward the true mean, which is in
// [0, 1]; rounding down to the coin grid adds < 2^-32 of error.
CoinProbability AcceptanceCoin(double answer) {
  if (std::isnan(answer)) return CoinProbability::FromNumerator(0);
  return CoinProbability::RoundDown(std::clamp(answer, 0.0, 1.0));
}

absl::Status ValidateSimulation(const FrequencyOracle& randomizer,
                                const StatisticalQueryOracle& oracle,
                                const SqSimulationOptions& options) {
  if (oracle.domain_size() != randomizer.domain_size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "SQ simulation: the oracle's domain has ", oracle.domain_size(),
        " items but the randomizer's has ", randomizer.domain_size()));
  }
  if (options.reference_item >= randomizer.domain_size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "SQ simulation: reference_item must be in [0, ",
        randomizer.domain_size(), "), got ", options.reference_item));
  }
  if (options.max_queries < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "SQ simulation: max_queries must be >= 1, got ", options.max_queries));
  }
  return absl::OkStatus();
}

absl::Status Exhausted(const FrequencyOracle& randomizer,
                       const StatisticalQueryOracle& oracle,
                       int64_t max_queries) {
  const double epsilon = randomizer.epsilon();
  return absl::ResourceExhaustedError(absl::StrCat(
      "SQ simulation: no proposal accepted in ", max_queries,
      " queries. At epsilon ", epsilon,
      " an exact oracle accepts a proposal with probability e^-epsilon = ",
      std::exp(-epsilon), " (", std::exp(epsilon),
      " queries per sample on average); raise max_queries, or check the "
      "oracle, whose answers near 0 are never accepted (its tolerance is ",
      oracle.tolerance(), ")"));
}

}  // namespace

absl::StatusOr<std::unique_ptr<ExactStatisticalQueryOracle>>
ExactStatisticalQueryOracle::Create(std::vector<double> distribution) {
  RETURN_IF_ERROR(ValidateDistribution("distribution", distribution));
  return std::unique_ptr<ExactStatisticalQueryOracle>(
      new ExactStatisticalQueryOracle(std::move(distribution)));
}

uint32_t ExactStatisticalQueryOracle::domain_size() const {
  return static_cast<uint32_t>(distribution_.size());
}

absl::StatusOr<double> ExactStatisticalQueryOracle::Answer(
    const std::vector<double>& query, absl::BitGenRef) {
  RETURN_IF_ERROR(ValidateQuery(query, distribution_.size()));
  return Mean(distribution_, query);
}

absl::StatusOr<std::unique_ptr<TolerantStatisticalQueryOracle>>
TolerantStatisticalQueryOracle::Create(TolerantOracleOptions options) {
  RETURN_IF_ERROR(ValidateDistribution("distribution", options.distribution));
  if (!(options.tolerance >= 0 && options.tolerance < 1)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "SQ oracle: tolerance must be in [0, 1), got ", options.tolerance));
  }
  if (!options.decoy.empty()) {
    RETURN_IF_ERROR(ValidateDistribution("decoy", options.decoy));
    if (options.decoy.size() != options.distribution.size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "SQ oracle: decoy has ", options.decoy.size(),
          " items but distribution has ", options.distribution.size()));
    }
  }
  return std::unique_ptr<TolerantStatisticalQueryOracle>(
      new TolerantStatisticalQueryOracle(std::move(options.distribution),
                                         options.tolerance,
                                         std::move(options.decoy)));
}

TolerantStatisticalQueryOracle::TolerantStatisticalQueryOracle(
    std::vector<double> distribution, double tolerance,
    std::vector<double> decoy)
    : distribution_(std::move(distribution)),
      tolerance_(tolerance),
      decoy_(std::move(decoy)) {}

uint32_t TolerantStatisticalQueryOracle::domain_size() const {
  return static_cast<uint32_t>(distribution_.size());
}

absl::StatusOr<double> TolerantStatisticalQueryOracle::Answer(
    const std::vector<double>& query, absl::BitGenRef gen) {
  RETURN_IF_ERROR(ValidateQuery(query, distribution_.size()));
  const double truth = Mean(distribution_, query);
  if (decoy_.empty()) {
    // u is uniform on the 2^32 + 1 grid points of [0, 1], endpoints
    // included, so the error reaches ±τ exactly.
    const double u = static_cast<double>(
                         UniformBelow(CoinProbability::kDenominator + 1, gen)) /
                     static_cast<double>(CoinProbability::kDenominator);
    return truth + tolerance_ * (2 * u - 1);
  }
  const double lure = Mean(decoy_, query);
  const double direction = lure > truth ? 1.0 : lure < truth ? -1.0 : 0.0;
  return truth + direction * tolerance_;
}

absl::StatusOr<std::vector<double>> AcceptanceQuery(
    const FrequencyOracle& randomizer, uint32_t reference_item,
    const FrequencyReport& proposal) {
  if (reference_item >= randomizer.domain_size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("SQ simulation: reference_item must be in [0, ",
                     randomizer.domain_size(), "), got ", reference_item));
  }
  RETURN_IF_ERROR(randomizer.Validate(proposal));
  return QueryFor(randomizer, reference_item, proposal);
}

double AcceptanceProbability(double answer) {
  return AcceptanceCoin(answer).value();
}

absl::StatusOr<SqSimulatedReport> SampleViaStatisticalQueries(
    const FrequencyOracle& randomizer, StatisticalQueryOracle& oracle,
    absl::BitGenRef gen, const SqSimulationOptions& options) {
  RETURN_IF_ERROR(ValidateSimulation(randomizer, oracle, options));
  for (int64_t queries = 1; queries <= options.max_queries; ++queries) {
    FrequencyReport proposal =
        randomizer.Randomize(options.reference_item, gen);
    ASSIGN_OR_RETURN(std::vector<double> query,
                     QueryFor(randomizer, options.reference_item, proposal));
    // The oracle is the simulation's only view of the population.
    ASSIGN_OR_RETURN(const double answer, oracle.Answer(query, gen));
    if (std::isnan(answer)) {
      return absl::InvalidArgumentError(
          "SQ simulation: the oracle answered NaN; an SQ answer must be "
          "within its tolerance of a mean in [0, 1]");
    }
    if (FlipCoin(AcceptanceCoin(answer), gen)) {
      return SqSimulatedReport{.report = std::move(proposal),
                               .queries = queries};
    }
  }
  return Exhausted(randomizer, oracle, options.max_queries);
}

absl::StatusOr<double> SimulationDistanceBound(double epsilon,
                                               double tolerance) {
  RETURN_IF_ERROR(ValidateEpsilon(kSimulation, epsilon));
  RETURN_IF_ERROR(ValidateTolerance(tolerance));
  const double absolute = tolerance * std::exp(epsilon);
  const double eta = tolerance * std::exp(2 * epsilon);
  // η / (1 + √(1 − η²)) is (1 − √(1 − η²)) / η without the 0/0 at η = 0.
  const double relative = eta < 1 ? eta / (1 + std::sqrt(1 - eta * eta)) : 1.0;
  return std::min({absolute, relative, 1.0});
}

absl::StatusOr<double> ToleranceForDistance(double epsilon, double distance) {
  RETURN_IF_ERROR(ValidateEpsilon(kSimulation, epsilon));
  if (!(distance > 0 && distance < 1)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "SQ simulation: distance must be in (0, 1), got ", distance));
  }
  // η = sin θ makes the relative term tan(θ/2); inverting,
  // η = 2β / (1 + β²).
  const double absolute = distance * std::exp(-epsilon);
  const double relative =
      2 * distance / (1 + distance * distance) * std::exp(-2 * epsilon);
  return std::max(absolute, relative);
}

absl::StatusOr<double> ExpectedQueriesPerSample(double epsilon,
                                                double tolerance) {
  RETURN_IF_ERROR(ValidateEpsilon(kSimulation, epsilon));
  RETURN_IF_ERROR(ValidateTolerance(tolerance));
  const double shortfall = tolerance * std::exp(epsilon);
  if (shortfall >= 1) return std::numeric_limits<double>::infinity();
  return std::exp(epsilon) / (1 - shortfall);
}

}  // namespace ldp
