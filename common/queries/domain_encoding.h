// Domain encodings: how a record becomes one item of a domain [N], the input
// of every frequency oracle and factorization workload.
//
// Histogram questions ("how many agents are in each age bucket and smoker
// status?") need a fixed, public, data-independent map from records to
// [N]. It is fixed when the study is created, so every agent encodes the same
// way and the server can label each estimated frequency. `Encode` never
// fails (DESIGN invariant 8): fields are read through `SanitizeValue`, so a
// missing or odd value lands in its default's item. `Describe` gives each
// item a distinct human label such as "age=[20,29] & smoker=true".
#ifndef LDP_COMMON_QUERIES_DOMAIN_ENCODING_H_
#define LDP_COMMON_QUERIES_DOMAIN_ENCODING_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "common/queries/query_expression.h"
#include "common/queries/record_schema.h"

namespace ldp {

inline constexpr uint32_t kMaxDomainSize = uint32_t{1} << 31;

// One field as a digit of the domain. Bool: 2 items (false, true).
// Categorical: one item per category, in declared order. Int: one item per
// value in [lower, upper], or with `num_buckets` = k, k near-equal buckets of
// consecutive values (k ≤ the number of values). Real: `num_buckets` (> 0)
// equal-width buckets of [lower, upper], each closed below and open above
// except the last. Bit vectors cannot be encoded directly; encode a query
// over them (QueryValueEncoding) or a prefix of them (PrefixEncoding).
struct FieldEncoding {
  std::string field{};
  uint32_t num_buckets = 0;
};

// Mixed radix over several fields; the first field is the most significant
// digit. No field may appear twice.
struct ProductEncoding {
  std::vector<FieldEncoding> fields{};
};

// An integer-valued query: Evaluate's result rounded to the nearest integer
// (ties to even) and clamped into [0, domain_size).
struct QueryValueEncoding {
  Query query;
  uint32_t domain_size = 0;
};

// Prefix extension over a bit-vector field, the step of a heavy-hitter
// search in a domain too large to enumerate (strings as bits: 16 bytes =
// 128 bits). The server knows the likely prefixes of L_old =
// prefix_bits − extension_bits bits (`candidates`) and asks which of them,
// extended by the next s = extension_bits bits, the record starts with.
// Item 0: the record's first L_old bits match no candidate. Item
// 1 + c·2^s + e: candidate c followed by e, the record's bits
// L_old … prefix_bits − 1 read most significant first. L_old may be 0, with
// one empty candidate. N = 1 + |candidates|·2^s.
struct PrefixEncoding {
  std::string field{};
  uint32_t prefix_bits = 0;
  std::vector<std::vector<bool>> candidates{};
  uint32_t extension_bits = 0;
};

// A string in a bit-vector field as its 31-bit digest (string_digest.h):
// N = kDigestDomainSize. Only RAPPOR questions use it: their server tests
// candidate strings against the digests' Bloom filters.
struct DigestEncoding {
  std::string field{};
  uint64_t seed = 0;
};

// Most candidates a prefix encoding may list (bounds the agent's memory for
// a task, whatever the wire says).
inline constexpr uint32_t kMaxPrefixCandidates = uint32_t{1} << 16;

using DomainEncodingSpec =
    std::variant<FieldEncoding, ProductEncoding, QueryValueEncoding,
                 PrefixEncoding, DigestEncoding>;

// Immutable, copyable, thread-safe.
class DomainEncoding {
 public:
  // InvalidArgument for unknown or bit-vector fields, num_buckets on a bool
  // or categorical field or missing on a real one, more int buckets than
  // values, real buckets too narrow to tell apart in double precision, a
  // repeated or empty product, a query checked against another schema, a
  // prefix encoding of a field that is not a bit vector, longer than the
  // field, with extension_bits > prefix_bits, no candidates or more than
  // kMaxPrefixCandidates, a candidate of the wrong length or listed twice,
  // a digest of a field that is not a bit vector, or a domain size outside
  // [1, kMaxDomainSize].
  static absl::StatusOr<DomainEncoding> Create(const DomainEncodingSpec& spec,
                                               const RecordSchema& schema);

  // N.
  uint32_t domain_size() const { return domain_size_; }

  // The spec this encoding was built from (to serialize it back).
  const DomainEncodingSpec& spec() const { return spec_; }

  // The record's item, in [0, domain_size()). Never fails.
  uint32_t Encode(const Record& sanitized) const;

  // A label for `index`, distinct for distinct indices in [0, N); a note
  // naming the problem for indices ≥ N.
  std::string Describe(uint32_t index) const;

  // One digit of a product encoding (exposed for the implementation's
  // helpers; not part of the contract).
  struct Digit {
    FieldSpec spec{};
    uint32_t num_buckets = 0;
    uint32_t radix = 0;
  };
  // A prefix encoding's field and candidate index (likewise internal).
  struct PrefixLookup;

 private:
  DomainEncoding(DomainEncodingSpec spec, std::vector<Digit> digits,
                 std::optional<Query> query,
                 std::shared_ptr<const PrefixLookup> prefix,
                 uint32_t domain_size)
      : spec_(std::move(spec)),
        digits_(std::move(digits)),
        query_(std::move(query)),
        prefix_(std::move(prefix)),
        domain_size_(domain_size) {}

  uint32_t EncodePrefix(const Record& sanitized) const;
  uint32_t EncodeDigest(const Record& sanitized) const;
  std::string DescribePrefix(uint32_t index) const;

  DomainEncodingSpec spec_;
  // One digit (the bit-vector field, radix 0) for a digest encoding; none
  // for query-value and prefix encodings.
  std::vector<Digit> digits_;
  std::optional<Query> query_;
  // Shared between copies: the candidate index can be large.
  std::shared_ptr<const PrefixLookup> prefix_;
  uint32_t domain_size_ = 0;
};

}  // namespace ldp

#endif  // LDP_COMMON_QUERIES_DOMAIN_ENCODING_H_
