// Heavy hitters over a domain too large to enumerate (e.g. every 4-byte or
// 16-byte string), by prefix extension: the prefix extending method (PEM)
// of Wang, Li, Lopuhaä-Zwakenberg & Jha, "Locally Differentially Private
// Heavy Hitter Identification" (IEEE TDSC 2019), close to the prefix tree
// of Bassily, Nissim, Stemmer & Thakurta (NeurIPS 2017). A single round
// cannot do it: no frequency oracle can be decoded over 2^32 items.
//
// Values are a bit-vector field read most significant bit first. Round 1
// asks the histogram of the first s bits; every later round asks, on fresh
// agents, for the histogram of (surviving prefix, next s bits) through a
// PrefixEncoding (common/queries/domain_encoding.h), whose domain is
// 1 + candidates·2^s however long the values are. After each round the
// `candidates` prefixes with the largest estimated frequency survive; after
// R = ⌈bits / s⌉ rounds the top k full values are the result.
//
// Budget: R disjoint equal slices of the population, each round at the
// whole cap — sample splitting, so every agent answers once.
//
// Estimates: each released frequency is the last round's unbiased estimate
// of the share of the population holding that value (its variance includes
// the sampling of the round's slice from the population), with a normal
// interval at the study's confidence. The intervals are per value, not
// simultaneous, and the same estimates chose the top k: for a value near
// the k-th place the estimate is biased upward (the winner's curse). A
// value whose prefix fell out in an earlier round is missed entirely; that
// is what `candidates` (how many prefixes survive) trades against the
// domain size.
//
// Parameters (all optional):
//   field           the bit-vector field (default "value")
//   bits            how many leading bits to resolve (default: all of them)
//   k               how many values to report (default 10)
//   bits_per_round  s (default 8; rounds split `bits` as evenly as possible)
//   candidates      prefixes kept after each round (default 4·k, ≥ k)
//
// Result values, for i = 0 … k − 1 in decreasing estimated frequency:
// "top[i].count_fraction" (with interval) and, when bits ≤ 53 so a double
// holds it exactly, "top[i].value" (the bits as an unsigned integer, first
// bit most significant). The summary lists every value in hex (or binary
// when bits is not a multiple of 4).
#ifndef LDP_PLANNING_PROGRAMS_HEAVY_HITTERS_H_
#define LDP_PLANNING_PROGRAMS_HEAVY_HITTERS_H_

#include <memory>

#include "absl/status/statusor.h"
#include "common/tasks/study_spec.h"
#include "planning/programs/analyst_program.h"

namespace ldp {

absl::StatusOr<std::unique_ptr<AnalystProgram>> CreateHeavyHittersProgram(
    const ProgramSpec& spec, const ProgramContext& context);

}  // namespace ldp

#endif  // LDP_PLANNING_PROGRAMS_HEAVY_HITTERS_H_
