// Candidate values of a bit-vector field: what the heavy-hitter programs
// (prefix extension, TreeHist, the sequence-fragment puzzle) share. A
// candidate carries the estimate of its share of the population; the
// extension question asks which candidate a record starts with and its
// next bits; its answer is read back into candidates; and every one of the
// programs releases the same ranked result, so a caller can swap one search
// for another without changing how it reads the answer.
#ifndef LDP_PLANNING_PROGRAMS_BIT_CANDIDATES_H_
#define LDP_PLANNING_PROGRAMS_BIT_CANDIDATES_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "common/estimation/histogram_estimate.h"
#include "common/tasks/study_spec.h"
#include "planning/programs/analyst_program.h"
#include "planning/programs/program_parameters.h"

namespace ldp {

// A value (or a prefix of one), first bit most significant, with an
// estimate of the share of the population that holds it.
struct BitCandidate {
  std::vector<bool> bits{};
  double frequency = 0;
  double variance = 0;  // of `frequency`
};

// What every search reads: the bit-vector field `field` (parameter
// "field", default "value"), its first `bits` (parameter "bits", default
// all of them) and how many values to report (parameter "k", default 10).
struct SearchedBits {
  std::string field{};
  int field_length = 0;
  int bits = 0;
  int k = 0;
};

// The most values a search reports.
inline constexpr int64_t kMaxSearchK = 1000;

// InvalidArgument, naming `program`, when the field is missing or not a
// bit vector, bits is outside [1, its length] or k outside
// [1, kMaxSearchK].
absl::StatusOr<SearchedBits> ReadSearchedBits(ProgramParameters& params,
                                              const RecordSchema& schema,
                                              absl::string_view program);

// `bits` split into ⌈bits / s⌉ widths that differ by at most one, so no
// round's domain is larger than it must be.
std::vector<int> SplitBits(int bits, int s);

// "0x…" when the length is a multiple of 4, else "0b…".
std::string FormatBits(const std::vector<bool>& bits);

// The question "which of `candidates` does the record start with, and what
// are its next `width` bits" (a PrefixEncoding: item 0 = none of them,
// item 1 + c·2^width + e = candidate c followed by e). Width 0 asks only
// which candidate, the recount of a finished search. All candidates have
// the same length; InvalidArgument if the domain would be too large.
absl::StatusOr<Question> ExtensionQuestion(
    std::string id, const std::string& field,
    absl::Span<const BitCandidate> candidates, int width, int64_t epsilon_nanos,
    const RecordSchema& schema);

// The histogram that answers question `index` of `round`, checked to have
// `items` items; Internal naming `program` and the round otherwise (the
// engine asked something else than the program did).
absl::StatusOr<const HistogramEstimate*> HistogramAnswer(
    const RoundAnswers& round, size_t index, size_t items,
    absl::string_view program, size_t round_number);

// Items first … N − 1 of `h` whose estimate is at least `min_sigmas`
// standard errors (−∞: any estimate), the `keep` largest, largest first;
// ties go to the lower item so that replays agree.
std::vector<uint32_t> TopItems(const HistogramEstimate& h, uint32_t first,
                               size_t keep, double min_sigmas);

// Item `item` (≥ 1) of an extension question's answer `h` as a candidate:
// its prefix extended by its `width` bits, with the item's estimate.
BitCandidate ExtendedCandidate(absl::Span<const BitCandidate> candidates,
                               int width, const HistogramEstimate& h,
                               uint32_t item);

// `candidates` with the estimates of a recount (`h` answers their
// ExtensionQuestion of width 0, asked of agents that did not choose them),
// largest first.
std::vector<BitCandidate> Recounted(absl::Span<const BitCandidate> candidates,
                                    const HistogramEstimate& h);

// The released result of a search over the first `bits` bits of `field`:
// for i < min(k, |found|), in the order given, "top[i].count_fraction" with
// a normal interval at `confidence` and, when bits ≤ 53 so a double holds it
// exactly, "top[i].value" (the bits as an unsigned integer). The summary
// lists every value in hex (binary when bits is not a multiple of 4).
ProgramResult RankedResult(absl::Span<const BitCandidate> found, int k,
                           const std::string& field, int bits,
                           double confidence);

}  // namespace ldp

#endif  // LDP_PLANNING_PROGRAMS_BIT_CANDIDATES_H_
