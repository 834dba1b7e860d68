// The KLNRS generic private learner and its sample sizes.
//
// The paper states the bounds up to constants (§3: O((ln|C| + ln(1/β))/(εα))
// realizable, O((ln|C| + ln(1/β))·max{1/(εα), 1/α²}) agnostic, Theorem
// 3.4); the constants below are derived here from two standard facts, split
// β/2 each:
//
//  (U) Utility of the exponential mechanism (exponential_mechanism.h) with
//      Δ = 1 and t = ln(2/β): with probability ≥ 1 − β/2 the output makes at
//      most OPT_mistakes + (2/ε)(ln|C| + ln(2/β)) mistakes, i.e. its
//      empirical error is at most the best empirical error plus
//      a = 2L/(εn), L = ln|C| + ln(2/β).
//
//  Realizable (the target is in C, so the best empirical error is 0):
//  (R) For one h with true error p > α, its mistakes X ~ Bin(n, p), and the
//      multiplicative Chernoff bound Pr[X ≤ (1−δ)np] ≤ exp(−δ²np/2) with
//      δ = 1 − a/p gives Pr[emp(h) ≤ a] ≤ exp(−n(p − a)²/(2p)); (p − a)²/p
//      increases in p > a, so this is ≤ exp(−n(α − a)²/(2α)). A union bound
//      over at most |C| such h: ≤ β/2 once n(α − a)²/(2α) ≥ ln(2|C|/β) = L.
//      Then (U) ∧ (R) ⟹ err(output) ≤ α. Writing y = nα/L the condition is
//      y(1 − 2/(εy))² ≥ 2, i.e. √y − 2/(ε√y) ≥ √2, whose least solution is
//      y = ((√2 + √(2 + 8/ε))/2)² = 1 + 2/ε + √(1 + 4/ε).
//
//  Agnostic:
//  (H) Hoeffding and a union bound: with probability ≥ 1 − β/2 every h has
//      |err(h) − emp(h)| ≤ g = √(L'/(2n)), L' = ln|C| + ln(4/β). Then
//      err(out) ≤ emp(out) + g ≤ emp(h*) + a + g ≤ OPT + a + 2g, and
//      a + 2g ≤ α is a quadratic in x = 1/√n: (2L/ε)x² + √(2L')x − α ≤ 0,
//      x ≤ 2α / (√(2L') + √(2L' + 8Lα/ε)) (the cancellation-free root).
//
// The paper's text was not at hand when this was written, so the theorem
// number and the O(·) forms are quoted from memory; the constants depend
// only on the derivation above.
#include "common/central/private_pac_learner.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/base/validation.h"
#include "common/estimation/confidence_interval.h"

namespace ldp {
namespace {

constexpr char kLearner[] = "private PAC learner";
// Replacing one example changes any concept's mistake count by at most 1.
constexpr double kScoreSensitivity = 1;

absl::Status ValidateExamples(const ConceptClass& concepts,
                              absl::Span<const LabeledExample> examples) {
  for (size_t i = 0; i < examples.size(); ++i) {
    if (examples[i].point >= concepts.domain_size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          kLearner, ": example ", i, " has point ", examples[i].point,
          ", outside the domain [0, ", concepts.domain_size(), ")"));
    }
  }
  return absl::OkStatus();
}

absl::Status ValidateSampleSizeInputs(size_t num_concepts, double epsilon,
                                      const PacGoal& goal) {
  if (num_concepts == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(kLearner, ": the concept class must not be empty"));
  }
  RETURN_IF_ERROR(ValidateEpsilon(kLearner, epsilon));
  if (!(goal.max_error > 0 && goal.max_error < 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat(kLearner, ": max_error (alpha) must be in (0, 1), got ",
                     goal.max_error));
  }
  return ValidateConfidence(goal.confidence);
}

absl::StatusOr<int64_t> CeilToSampleCount(double n) {
  constexpr double kMax = 4.611686018427388e18;  // 2^62
  if (!(n < kMax)) {
    return absl::OutOfRangeError(
        absl::StrCat(kLearner, ": the goal needs more than 2^62 examples (", n,
                     "); relax alpha or the confidence, or raise epsilon"));
  }
  return std::max<int64_t>(1, static_cast<int64_t>(std::ceil(n)));
}

// ln|C| + ln(k/β), the log term of a union bound over C at failure β/k.
double LogTerm(size_t num_concepts, double confidence, double k) {
  const double beta = 1 - confidence;
  return std::log(static_cast<double>(num_concepts)) + std::log(k / beta);
}

}  // namespace

absl::StatusOr<ConceptClass> ConceptClass::Create(
    uint32_t domain_size, std::vector<std::vector<bool>> labelings) {
  if (domain_size == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(kLearner, ": domain_size must be at least 1"));
  }
  if (labelings.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(kLearner, ": the concept class must not be empty"));
  }
  if (static_cast<uint64_t>(domain_size) * labelings.size() >
      kMaxTableEntries) {
    return absl::InvalidArgumentError(
        absl::StrCat(kLearner, ": domain_size · |C| = ", domain_size, " · ",
                     labelings.size(), " exceeds ", kMaxTableEntries,
                     " labels; use a smaller domain or class"));
  }
  for (size_t c = 0; c < labelings.size(); ++c) {
    if (labelings[c].size() != domain_size) {
      return absl::InvalidArgumentError(absl::StrCat(
          kLearner, ": concept ", c, " labels ", labelings[c].size(),
          " points, but domain_size is ", domain_size));
    }
  }
  return ConceptClass(domain_size, std::move(labelings));
}

absl::StatusOr<ConceptClass> ConceptClass::Thresholds(uint32_t domain_size) {
  // Checked before building the table, which Create would reject anyway.
  const uint64_t table_entries =
      (static_cast<uint64_t>(domain_size) + 1) * domain_size;
  if (domain_size == 0 || table_entries > kMaxTableEntries) {
    return absl::InvalidArgumentError(absl::StrCat(
        kLearner, ": threshold domain_size must be at least 1 with ",
        "(domain_size + 1) · domain_size ≤ ", kMaxTableEntries, ", got ",
        domain_size));
  }
  std::vector<std::vector<bool>> labelings;
  labelings.reserve(static_cast<size_t>(domain_size) + 1);
  for (uint64_t t = 0; t <= domain_size; ++t) {
    std::vector<bool> labeling(domain_size);
    for (uint32_t x = 0; x < domain_size; ++x) labeling[x] = x >= t;
    labelings.push_back(std::move(labeling));
  }
  return Create(domain_size, std::move(labelings));
}

int64_t ConceptClass::Mistakes(
    size_t hypothesis, absl::Span<const LabeledExample> examples) const {
  const std::vector<bool>& labeling = labelings_[hypothesis];
  int64_t mistakes = 0;
  for (const LabeledExample& example : examples) {
    if (labeling[example.point] != example.label) ++mistakes;
  }
  return mistakes;
}

absl::StatusOr<PrivatePacLearner> PrivatePacLearner::Create(
    ConceptClass concepts, double epsilon) {
  RETURN_IF_ERROR(ValidateEpsilon(kLearner, epsilon));
  return PrivatePacLearner(std::move(concepts), epsilon);
}

absl::StatusOr<ExponentialMechanism> PrivatePacLearner::OutputDistribution(
    absl::Span<const LabeledExample> examples) const {
  RETURN_IF_ERROR(ValidateExamples(concepts_, examples));
  std::vector<double> scores(concepts_.size());
  for (size_t c = 0; c < concepts_.size(); ++c) {
    scores[c] = -static_cast<double>(concepts_.Mistakes(c, examples));
  }
  return ExponentialMechanism::Create(scores, kScoreSensitivity, epsilon_);
}

absl::StatusOr<size_t> PrivatePacLearner::Learn(
    absl::Span<const LabeledExample> examples, absl::BitGenRef gen) const {
  ASSIGN_OR_RETURN(const ExponentialMechanism mechanism,
                   OutputDistribution(examples));
  return mechanism.Sample(gen);
}

absl::StatusOr<int64_t> PrivateLearnerSampleSize(size_t num_concepts,
                                                 double epsilon,
                                                 const PacGoal& goal) {
  RETURN_IF_ERROR(ValidateSampleSizeInputs(num_concepts, epsilon, goal));
  const double log_term = LogTerm(num_concepts, goal.confidence, 2);
  const double factor = 1 + 2 / epsilon + std::sqrt(1 + 4 / epsilon);
  return CeilToSampleCount(log_term * factor / goal.max_error);
}

absl::StatusOr<int64_t> PrivateAgnosticLearnerSampleSize(size_t num_concepts,
                                                         double epsilon,
                                                         const PacGoal& goal) {
  RETURN_IF_ERROR(ValidateSampleSizeInputs(num_concepts, epsilon, goal));
  const double privacy_log_term = LogTerm(num_concepts, goal.confidence, 2);
  const double convergence_log_term = LogTerm(num_concepts, goal.confidence, 4);
  const double alpha = goal.max_error;
  const double root_n = (std::sqrt(2 * convergence_log_term) +
                         std::sqrt(2 * convergence_log_term +
                                   8 * privacy_log_term * alpha / epsilon)) /
                        (2 * alpha);
  return CeilToSampleCount(root_n * root_n);
}

}  // namespace ldp
