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
#ifndef LDP_COMMON_DOMAIN_ENCODING_H_
#define LDP_COMMON_DOMAIN_ENCODING_H_

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "common/query_expression.h"
#include "common/record_schema.h"

namespace ldp {

inline constexpr uint32_t kMaxDomainSize = uint32_t{1} << 31;

// One field as a digit of the domain. Bool: 2 items (false, true).
// Categorical: one item per category, in declared order. Int: one item per
// value in [lower, upper], or with `num_buckets` = k, k near-equal buckets of
// consecutive values (k ≤ the number of values). Real: `num_buckets` (> 0)
// equal-width buckets of [lower, upper], each closed below and open above
// except the last. Bit vectors cannot be encoded directly; encode a query
// over them (QueryValueEncoding).
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

using DomainEncodingSpec =
    std::variant<FieldEncoding, ProductEncoding, QueryValueEncoding>;

// Immutable, copyable, thread-safe.
class DomainEncoding {
 public:
  // InvalidArgument for unknown or bit-vector fields, num_buckets on a bool
  // or categorical field or missing on a real one, more int buckets than
  // values, real buckets too narrow to tell apart in double precision, a
  // repeated or empty product, a query checked against another schema, or
  // a domain size outside [1, kMaxDomainSize].
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

 private:
  DomainEncoding(DomainEncodingSpec spec, std::vector<Digit> digits,
                 std::optional<Query> query, uint32_t domain_size)
      : spec_(std::move(spec)),
        digits_(std::move(digits)),
        query_(std::move(query)),
        domain_size_(domain_size) {}

  DomainEncodingSpec spec_;
  std::vector<Digit> digits_;  // empty for a query-value encoding
  std::optional<Query> query_;
  uint32_t domain_size_ = 0;
};

}  // namespace ldp

#endif  // LDP_COMMON_DOMAIN_ENCODING_H_
