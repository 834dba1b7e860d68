// MASKED-PARITY (Kasiviswanathan, Lee, Nissim, Raskhodnikova & Smith, "What
// Can We Learn Privately?", §5.3): the concept class that separates
// interactive from noninteractive local learning.
//
// A record is a labelled example (x, i, b, y): x ∈ {0,1}^d, i ∈ [d],
// b ∈ {0,1}, and y = c_{r,a}(x, i, b), where for r ∈ {0,1}^d, a ∈ {0,1}
//   c_{r,a}(x, i, b) = r_i          if b = 1,
//                      ⟨r, x⟩ ⊕ a   if b = 0.
// The b = 1 examples reveal r one bit at a time; the mask a hides in a
// parity of x that only someone who already knows r can read.
//
// Two analyst programs learn it from the same agents and budget:
// - "masked_parity" (interactive, 2 rounds): round 1 asks the agents of
//   [0, s) one histogram of (i, b, y) and reads r_i as the likelier label of
//   (i, b = 1); round 2 asks the agents of [s, 1) the statistical query
//   φ = (b = 0) · (2·[y ≠ ⟨r̂, x⟩] − 1), whose mean is (2a − 1)/2. Both
//   rounds use the whole cap on disjoint agents, and poly(d) agents suffice.
// - "masked_parity_noninteractive" (1 round): the same (i, b, y) histogram
//   on half the agents, and on the other half a Hadamard-response histogram
//   of (x, y) from which it reads the Fourier coefficient of (r̂, 1), i.e.
//   E[(-1)^{y ⊕ ⟨r̂,x⟩}] = (−1)^a / 2. The coefficient's standard error
//   grows like 2^{d/2}/√n — the 2^Ω(d) lower bound — and the histogram of
//   (x, y) cannot be formed at all beyond `parity_bits` (default 20) bits of
//   x, where the learner can only use the first bits and its mask is a coin
//   flip.
//
// Schema (MaskedParitySchema): bit vector "x" of length d, int "i" in
// [0, d − 1], bools "b" and "y".
#ifndef LDP_PLANNING_PROGRAMS_MASKED_PARITY_H_
#define LDP_PLANNING_PROGRAMS_MASKED_PARITY_H_

#include <memory>
#include <vector>

#include "absl/random/bit_gen_ref.h"
#include "absl/status/statusor.h"
#include "common/queries/record_schema.h"
#include "common/tasks/study_spec.h"
#include "planning/programs/analyst_program.h"

namespace ldp {

inline constexpr int kMaxMaskedParityBits = 1024;

struct MaskedParityConcept {
  std::vector<bool> r{};
  bool a = false;
  friend bool operator==(const MaskedParityConcept&,
                         const MaskedParityConcept&) = default;
};

// The schema above; InvalidArgument unless 2 ≤ d ≤ kMaxMaskedParityBits.
absl::StatusOr<RecordSchema> MaskedParitySchema(int d);

// c_{r,a}(x, i, b).
bool MaskedParityLabel(const MaskedParityConcept& c, const std::vector<bool>& x,
                       int i, bool b);

// A uniform example (x, i, b) labelled by `c`.
Record SampleMaskedParityRecord(const MaskedParityConcept& c,
                                absl::BitGenRef gen);

// Pr over uniform (x, i, b) that `hypothesis` and `truth` disagree:
// ½·(bits of r wrong)/d + ½·(½ if r̂ ≠ r, else [â ≠ a]).
double MaskedParityError(const MaskedParityConcept& truth,
                         const MaskedParityConcept& hypothesis);

// The concept a program's result states (values "r[0]" … "r[d−1]", "a").
absl::StatusOr<MaskedParityConcept> MaskedParityFromResult(
    const ProgramResult& result, int d);

// Parameters: "round1_share" (s above, default 0.5, in (0, 1));
// "round1_epsilon", "round2_epsilon" (ε of each round, default the cap);
// "reuse_agents" (0 or 1, default 0: 1 asks every agent in both rounds, so
// the two ε add up — the schedule check refuses that unless they fit).
absl::StatusOr<std::unique_ptr<AnalystProgram>> CreateMaskedParityProgram(
    const ProgramSpec& spec, const ProgramContext& context);

// Parameters: "round1_share" (default 0.5), "parity_bits" (default 20, in
// [1, 22]).
absl::StatusOr<std::unique_ptr<AnalystProgram>>
CreateNoninteractiveMaskedParityProgram(const ProgramSpec& spec,
                                        const ProgramContext& context);

}  // namespace ldp

#endif  // LDP_PLANNING_PROGRAMS_MASKED_PARITY_H_
