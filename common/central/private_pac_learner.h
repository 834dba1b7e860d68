// The generic private PAC learner of Kasiviswanathan, Lee, Nissim,
// Raskhodnikova and Smith ("What Can We Learn Privately?", SIAM J. Comput.
// 40(3), 2011, §3): a trusted curator holding n labeled examples outputs
// a concept of a finite class C through the exponential mechanism with
// score(h) = −(number of examples h misclassifies). Replacing one example
// changes every score by at most 1, so sensitivity 1 and the learner is
// ε-DP (replace-one, as in central_baseline.h). It is the central
// counterpart of the SQ learners the local system runs, and the planner
// prints its sample size next to theirs.
//
// Examples are points of a finite domain [0, domain_size) and a concept is
// its labeling of every point: small, exactly enumerable, and enough for
// the textbook classes (thresholds, intervals, parities on a few bits).
#ifndef LDP_COMMON_CENTRAL_PRIVATE_PAC_LEARNER_H_
#define LDP_COMMON_CENTRAL_PRIVATE_PAC_LEARNER_H_

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/random/bit_gen_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "common/central/exponential_mechanism.h"

namespace ldp {

struct LabeledExample {
  uint32_t point = 0;
  bool label = false;
};

// A finite concept class as a table of labelings. Immutable and copyable.
class ConceptClass {
 public:
  // Largest domain_size · |C| accepted (bits of the table: 32 MiB).
  static constexpr uint64_t kMaxTableEntries = uint64_t{1} << 28;

  // InvalidArgument for domain_size = 0, no concepts, a labeling whose length
  // is not domain_size (naming it), or a table beyond kMaxTableEntries.
  static absl::StatusOr<ConceptClass> Create(
      uint32_t domain_size, std::vector<std::vector<bool>> labelings);
  // Thresholds c_t(x) = [x ≥ t] for t = 0..domain_size (c_0 is all-true,
  // c_N all-false): domain_size + 1 concepts.
  static absl::StatusOr<ConceptClass> Thresholds(uint32_t domain_size);

  uint32_t domain_size() const { return domain_size_; }
  size_t size() const { return labelings_.size(); }
  // c(point); hypothesis < size(), point < domain_size().
  bool Label(size_t hypothesis, uint32_t point) const {
    return labelings_[hypothesis][point];
  }
  // The examples `hypothesis` labels differently from their label; every point
  // must be < domain_size().
  int64_t Mistakes(size_t hypothesis,
                   absl::Span<const LabeledExample> examples) const;

 private:
  ConceptClass(uint32_t domain_size, std::vector<std::vector<bool>> labelings)
      : domain_size_(domain_size), labelings_(std::move(labelings)) {}

  uint32_t domain_size_;
  std::vector<std::vector<bool>> labelings_;
};

class PrivatePacLearner {
 public:
  // InvalidArgument unless ε is finite and > 0.
  static absl::StatusOr<PrivatePacLearner> Create(ConceptClass concepts,
                                                  double epsilon);

  const ConceptClass& concepts() const { return concepts_; }
  double epsilon() const { return epsilon_; }

  // The learner's exact output distribution on these examples (for tests
  // and for showing how spread out a private answer is). InvalidArgument
  // for an example whose point is outside the domain (naming it).
  absl::StatusOr<ExponentialMechanism> OutputDistribution(
      absl::Span<const LabeledExample> examples) const;
  // One private hypothesis: an index into concepts().
  absl::StatusOr<size_t> Learn(absl::Span<const LabeledExample> examples,
                               absl::BitGenRef gen) const;

 private:
  PrivatePacLearner(ConceptClass concepts, double epsilon)
      : concepts_(std::move(concepts)), epsilon_(epsilon) {}

  ConceptClass concepts_;
  double epsilon_;
};

// What the learner should achieve: true error ≤ max_error (α) with
// probability ≥ confidence (1 − β) over the examples and the learner's coins.
struct PacGoal {
  double max_error = 0;      // α in (0, 1)
  double confidence = 0.95;  // 1 − β
};

// Examples sufficient in the realizable case (the target is in C, examples
// drawn iid from any distribution D and labeled by it). With
// L = ln|C| + ln(2/β):
//   n = ⌈L · (1 + 2/ε + √(1 + 4/ε)) / α⌉,
// i.e. ≈ 2L/(εα) for small ε and 2L/α for large ε: KLNRS's
// O((ln|C| + ln(1/β))/(εα)) with the constants worked out in the .cc.
// InvalidArgument for |C| = 0, a bad ε, α outside (0, 1) or a confidence
// outside (0, 1); OutOfRange beyond 2^62.
absl::StatusOr<int64_t> PrivateLearnerSampleSize(size_t num_concepts,
                                                 double epsilon,
                                                 const PacGoal& goal);

// Examples sufficient in the agnostic case, for true error ≤ OPT + α where
// OPT is the best concept's true error (KLNRS Theorem 3.4's setting). With
// L = ln|C| + ln(2/β) and L' = ln|C| + ln(4/β):
//   n = ⌈((√(2L') + √(2L' + 8Lα/ε)) / (2α))²⌉,
// the n at which 2L/(εn) + 2√(L'/(2n)) = α; ≈ 2L'/α² for large ε.
absl::StatusOr<int64_t> PrivateAgnosticLearnerSampleSize(size_t num_concepts,
                                                         double epsilon,
                                                         const PacGoal& goal);

}  // namespace ldp

#endif  // LDP_COMMON_CENTRAL_PRIVATE_PAC_LEARNER_H_
