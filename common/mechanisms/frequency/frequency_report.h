// What one agent sends for one frequency (histogram) task.
//
// Each frequency oracle uses exactly one alternative; `FrequencyOracle::
// Validate` checks the alternative and its shape before any accumulator
// counts it. Components documented as "public" (hash seeds, sketch rows) are
// drawn independently of the agent's value, so they cancel in every
// likelihood ratio and `FrequencyOracle::Probability` conditions on them.
#ifndef LDP_COMMON_MECHANISMS_FREQUENCY_FREQUENCY_REPORT_H_
#define LDP_COMMON_MECHANISMS_FREQUENCY_FREQUENCY_REPORT_H_

#include <cstdint>
#include <variant>
#include <vector>

namespace ldp {

// One output symbol: generalized randomized response (an item of [N]),
// Hadamard response (an output index of [K]).
struct ItemReport {
  uint32_t item = 0;
  friend bool operator==(const ItemReport&, const ItemReport&) = default;
};

// A fixed-length bit vector packed little-endian into 64-bit words (bit i is
// bit i % 64 of word i / 64; bits past the length are zero): unary encodings.
//
// `num_bits` is the vector's length in bits, which the words alone cannot
// say (the wire sends exactly that many). It is 0 only for reports read from
// stores written before lengths were kept (server payload codec version 1,
// agent state text without a length); their word count and padding were
// checked when they were first accepted, so validators accept 0 or exactly
// the mechanism's length. The wire conversion never yields 0.
struct BitVectorReport {
  std::vector<uint64_t> words;
  uint32_t num_bits = 0;
  friend bool operator==(const BitVectorReport&,
                         const BitVectorReport&) = default;
};

// Local hashing: a public hash seed and the randomized bucket in [g].
struct HashedReport {
  uint64_t seed = 0;
  uint32_t bucket = 0;
  friend bool operator==(const HashedReport&, const HashedReport&) = default;
};

// Subset selection: k distinct items of [N], sorted ascending.
struct SubsetReport {
  std::vector<uint32_t> items;
  friend bool operator==(const SubsetReport&, const SubsetReport&) = default;
};

// Sketches: a public row (hash function index) and either a randomized bit
// vector over the row's m columns (count-mean sketch: `bits`, `column` = 0)
// or one randomized sign of one Hadamard coefficient (Hadamard count-mean
// sketch: `column` = coefficient, `bits` = {0 or 1}). `num_bits` is the
// length of `bits` in bits (m, or 1 for the Hadamard sign), 0 only for
// legacy stored reports, as for BitVectorReport.
struct SketchReport {
  uint32_t row = 0;
  uint32_t column = 0;
  std::vector<uint64_t> bits;
  uint32_t num_bits = 0;
  friend bool operator==(const SketchReport&, const SketchReport&) = default;
};

using FrequencyReport = std::variant<ItemReport, BitVectorReport, HashedReport,
                                     SubsetReport, SketchReport>;

}  // namespace ldp

#endif  // LDP_COMMON_MECHANISMS_FREQUENCY_FREQUENCY_REPORT_H_
