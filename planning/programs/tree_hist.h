// Heavy hitters by TreeHist (Bassily, Nissim, Stemmer & Thakurta,
// "Practical Locally Private Heavy Hitters", NeurIPS 2017, §3): a walk down
// the binary prefix tree of the values that keeps every node whose
// estimated frequency is significant, then a recount of the surviving
// leaves on fresh agents.
//
// Where it differs from prefix extension (heavy_hitters.h): a level adds
// one bit by default, not eight, and a prefix survives by a significance
// threshold, not by rank, so the number of survivors follows the data (a
// flat population keeps few, a heavy head many) instead of a fixed beam.
// And the released frequencies come from a last round that did not choose
// them, so they are unbiased: no winner's curse near the k-th place.
//
// Schedule: L = ⌈bits / bits_per_level⌉ levels plus the recount, L + 1
// disjoint equal slices of the population, each round at the whole cap
// (sample splitting: every agent answers once). Level ℓ asks, through a
// PrefixEncoding, which surviving prefix the record starts with and its
// next bits; a prefix survives when its estimate is at least
// `threshold_sigmas` of its own standard errors (a one-sided test of
// "frequency > 0"), the `max_candidates` largest of them when more pass,
// and the single largest when none does (so the walk never dies). The
// paper runs the levels at once on sketches; asking them in turn over
// the survivors is the same estimator and needs no sketch over 2^ℓ items.
//
// Parameters (all optional):
//   field             the bit-vector field (default "value")
//   bits              how many leading bits to resolve (default: all)
//   k                 how many values to report (default 10)
//   bits_per_level    bits each level adds (default 1, at most 8)
//   threshold_sigmas  z of the survival test (default 3)
//   max_candidates    survivors kept per level at most (default 4·k)
//
// Result: as heavy_hitters (bit_candidates.h, RankedResult), ranked by the
// recount, at most k values: fewer when fewer leaves survive.
#ifndef LDP_PLANNING_PROGRAMS_TREE_HIST_H_
#define LDP_PLANNING_PROGRAMS_TREE_HIST_H_

#include <memory>

#include "absl/status/statusor.h"
#include "common/tasks/study_spec.h"
#include "planning/programs/analyst_program.h"

namespace ldp {

absl::StatusOr<std::unique_ptr<AnalystProgram>> CreateTreeHistProgram(
    const ProgramSpec& spec, const ProgramContext& context);

}  // namespace ldp

#endif  // LDP_PLANNING_PROGRAMS_TREE_HIST_H_
