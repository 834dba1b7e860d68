// Heavy hitters by the sequence-fragment puzzle (SFP) of Apple's
// Differential Privacy Team, "Learning with Privacy at Scale" (2017): each
// agent reports one short fragment of its value tied to a small hash of the
// whole value; the server finds the frequent (hash, fragment) pairs at each
// position, stitches fragments that share a hash into candidate values and
// checks the candidates on fresh agents.
//
// Where it differs from prefix extension and TreeHist: the fragments are
// asked all at once, not prefix by prefix, so the search takes two rounds
// whatever the length; the hash is what keeps two heavy values that share
// a fragment at one position from being mixed up at the next.
//
// Fragments: the first `bits` bits split into P = ⌈bits / fragment_bits⌉
// pieces of near-equal width w_t. The hash is public and fixed by
// `hash_seed`: H(x) = (⟨x, m_0⟩, …, ⟨x, m_{b−1}⟩) mod 2 for b = hash_bits
// masks m_j over the first `bits` bits whose bits are SplitMix64(hash_seed,
// j·bits + i) mod 2 (a random linear map, so two distinct values collide
// with probability 2^−b). Fragment question t is a QueryValueEncoding of
// the item H(x)·2^{w_t} + (x's bits of piece t), N = 2^{b + w_t}, which
// any agent evaluates from the question alone.
//
// Schedule: round 1 ("fragments") asks the first P/(P + 1) of the
// population, split equally between the P fragment questions (Apple's
// random choice of position); round 2 ("words") asks the rest which of
// the stitched candidates they hold (a PrefixEncoding of all `bits` bits,
// item 0 = none). Both at the whole cap; every agent answers once.
//
// Decoding round 1: at each position the `fragments` largest items whose
// estimate passes a one-sided test at `threshold_sigmas` standard errors;
// candidates grow position by position, a partial value extended only by
// fragments with its hash, ranked by the smallest estimate among its
// fragments (a value is no more frequent than any of its pieces) and cut
// to `max_candidates`; a finished candidate whose own hash differs from the
// hash it was stitched under is dropped. No candidate at all ends the
// study after round 1 with an empty result.
//
// Parameters (all optional):
//   field             the bit-vector field (default "value")
//   bits              how many leading bits to resolve (default: all)
//   k                 how many values to report (default 10)
//   fragment_bits     bits per fragment (default 8, at most 12)
//   hash_bits         b (default 8, at most 12)
//   fragments         (hash, fragment) pairs kept per position (default 4·k)
//   threshold_sigmas  z of the fragment test (default 3)
//   max_candidates    stitched candidates kept (default 16·k)
//   hash_seed         the public hash (default 1)
//
// Result: as heavy_hitters (bit_candidates.h, RankedResult), ranked by
// round 2's unbiased estimates, at most k values.
#ifndef LDP_PLANNING_PROGRAMS_SEQUENCE_FRAGMENTS_H_
#define LDP_PLANNING_PROGRAMS_SEQUENCE_FRAGMENTS_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "common/tasks/study_spec.h"
#include "planning/programs/analyst_program.h"

namespace ldp {

absl::StatusOr<std::unique_ptr<AnalystProgram>> CreateSequenceFragmentsProgram(
    const ProgramSpec& spec, const ProgramContext& context);

// The fragment hash H of the first `bits` bits of `value` (see above), as
// an integer of `hash_bits` bits, H's first bit most significant.
uint32_t FragmentHash(const std::vector<bool>& value, int bits, int hash_bits,
                      uint64_t hash_seed);

}  // namespace ldp

#endif  // LDP_PLANNING_PROGRAMS_SEQUENCE_FRAGMENTS_H_
