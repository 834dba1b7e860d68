// Domain encodings: validation, mixed-radix and prefix encoding, item labels.
#include "common/queries/domain_encoding.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/base/status_macros.h"
#include "common/queries/string_digest.h"

namespace ldp {
namespace {

using Digit = DomainEncoding::Digit;

// Number of values of an int field (≤ 2^54 + 1, so it fits).
uint64_t IntCount(const FieldSpec& f) {
  return static_cast<uint64_t>(f.int_upper - f.int_lower) + 1;
}

double RealWidth(const Digit& d) {
  return (d.spec.real_upper - d.spec.real_lower) / d.num_buckets;
}

// Lower edge of real bucket i (i = num_buckets gives the upper bound).
double RealEdge(const Digit& d, uint32_t i) {
  if (i >= d.num_buckets) return d.spec.real_upper;
  return d.spec.real_lower + i * RealWidth(d);
}

// First value of int bucket i: lower + ceil(i · count / k).
int64_t IntBucketStart(const Digit& d, uint64_t i) {
  const unsigned __int128 scaled =
      static_cast<unsigned __int128>(i) * IntCount(d.spec) + d.num_buckets - 1;
  return d.spec.int_lower + static_cast<int64_t>(scaled / d.num_buckets);
}

// Buckets are told apart by their edges: each must exceed the previous one
// despite rounding (a few ulps of the largest magnitude involved).
absl::Status ValidateRealBuckets(const Digit& d) {
  const double magnitude =
      std::max({std::fabs(d.spec.real_lower), std::fabs(d.spec.real_upper),
                d.spec.real_upper - d.spec.real_lower});
  if (!(RealWidth(d) >
        8 * std::numeric_limits<double>::epsilon() * magnitude)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "real field \"", d.spec.name, "\" is too narrow for ", d.num_buckets,
        " buckets: their edges are not distinct in double precision"));
  }
  return absl::OkStatus();
}

absl::StatusOr<uint64_t> IntRadix(const Digit& d) {
  if (d.num_buckets == 0) return IntCount(d.spec);
  if (d.num_buckets > IntCount(d.spec)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "int field \"", d.spec.name, "\" has only ", IntCount(d.spec),
        " values, fewer than num_buckets = ", d.num_buckets));
  }
  return d.num_buckets;
}

absl::StatusOr<uint64_t> RealRadix(const Digit& d) {
  if (d.num_buckets == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("real field \"", d.spec.name, "\" needs num_buckets > 0"));
  }
  RETURN_IF_ERROR(ValidateRealBuckets(d));
  return d.num_buckets;
}

absl::StatusOr<uint64_t> Radix(const Digit& d) {
  const bool bucketed = d.num_buckets != 0;
  switch (d.spec.kind) {
    case FieldKind::kBool:
    case FieldKind::kCategorical:
      if (bucketed) {
        return absl::InvalidArgumentError(absl::StrCat(
            "num_buckets applies only to int and real fields, not \"",
            d.spec.name, "\""));
      }
      return d.spec.kind == FieldKind::kBool ? 2 : d.spec.categories.size();
    case FieldKind::kInt:
      return IntRadix(d);
    case FieldKind::kReal:
      return RealRadix(d);
    case FieldKind::kBitVector:
      break;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "bit-vector field \"", d.spec.name,
      "\" cannot be encoded directly; encode a query over it instead, or a "
      "prefix of it (prefix encoding)"));
}

absl::Status ValidateDomainSize(uint64_t n) {
  if (n < 1 || n > kMaxDomainSize) {
    return absl::InvalidArgumentError(absl::StrCat(
        "domain size ", n, " is outside [1, ", kMaxDomainSize, "]"));
  }
  return absl::OkStatus();
}

absl::StatusOr<Digit> MakeDigit(const FieldEncoding& e,
                                const RecordSchema& schema) {
  const FieldSpec* spec = schema.Find(e.field);
  if (spec == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("encoding refers to unknown field \"", e.field, "\""));
  }
  Digit digit{.spec = *spec, .num_buckets = e.num_buckets};
  ASSIGN_OR_RETURN(const uint64_t radix, Radix(digit));
  if (radix > kMaxDomainSize) {
    return absl::InvalidArgumentError(
        absl::StrCat("field \"", e.field, "\" alone has ", radix,
                     " items, more than the limit of ", kMaxDomainSize,
                     "; bucketize it with num_buckets"));
  }
  digit.radix = static_cast<uint32_t>(radix);
  return digit;
}

absl::StatusOr<std::vector<Digit>> MakeDigits(
    const std::vector<FieldEncoding>& fields, const RecordSchema& schema) {
  if (fields.empty()) {
    return absl::InvalidArgumentError("a product encoding needs a field");
  }
  std::vector<Digit> digits;
  absl::flat_hash_set<std::string> seen;
  uint64_t size = 1;
  for (const FieldEncoding& e : fields) {
    if (!seen.insert(e.field).second) {
      return absl::InvalidArgumentError(absl::StrCat(
          "field \"", e.field, "\" appears twice in a product encoding"));
    }
    ASSIGN_OR_RETURN(Digit digit, MakeDigit(e, schema));
    size *= digit.radix;  // ≤ 2^31 · 2^31: no overflow before the check
    RETURN_IF_ERROR(ValidateDomainSize(size));
    digits.push_back(std::move(digit));
  }
  return digits;
}

uint32_t EncodeReal(const Digit& d, double x) {
  const double lower = d.spec.real_lower;
  double guess = std::floor((x - lower) / RealWidth(d));
  guess = std::clamp(guess, 0.0, static_cast<double>(d.num_buckets - 1));
  auto i = static_cast<uint32_t>(guess);
  // Agree exactly with the edges the labels show. Rounding in the quotient
  // can put x one bucket off; one test each way, always made, corrects that
  // with the same work whatever x is (DESIGN invariant 8). The loops are a
  // safety net for anything larger.
  i -= ((i > 0) & (x < RealEdge(d, i))) ? 1 : 0;
  i += ((i + 1 < d.num_buckets) & (x >= RealEdge(d, i + 1))) ? 1 : 0;
  while (i > 0 && x < RealEdge(d, i)) --i;
  while (i + 1 < d.num_buckets && x >= RealEdge(d, i + 1)) ++i;
  return i;
}

uint32_t EncodeInt(const Digit& d, int64_t v) {
  const uint64_t offset = static_cast<uint64_t>(v - d.spec.int_lower);
  if (d.num_buckets == 0) return static_cast<uint32_t>(offset);
  const unsigned __int128 scaled =
      static_cast<unsigned __int128>(offset) * d.num_buckets;
  return static_cast<uint32_t>(scaled / IntCount(d.spec));
}

uint32_t EncodeDigit(const Digit& d, const FieldValue& v) {
  if (const bool* b = std::get_if<bool>(&v)) return *b ? 1 : 0;
  if (const int64_t* i = std::get_if<int64_t>(&v)) return EncodeInt(d, *i);
  if (const double* x = std::get_if<double>(&v)) return EncodeReal(d, *x);
  if (const auto* c = std::get_if<std::string>(&v)) {
    return CategoryIndex(d.spec, *c);
  }
  return 0;
}

// Shortest text that reads back as the same double, so distinct edges get
// distinct labels.
std::string FormatReal(double x) {
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof(buffer), x);
  return std::string(buffer, result.ptr);
}

std::string DescribeDigit(const Digit& d, uint32_t i) {
  const std::string& name = d.spec.name;
  switch (d.spec.kind) {
    case FieldKind::kBool:
      return absl::StrCat(name, i == 1 ? "=true" : "=false");
    case FieldKind::kCategorical:
      return absl::StrCat(name, "=", d.spec.categories[i]);
    case FieldKind::kInt: {
      if (d.num_buckets == 0)
        return absl::StrCat(name, "=", d.spec.int_lower + i);
      const int64_t first = IntBucketStart(d, i);
      const int64_t last = IntBucketStart(d, uint64_t{i} + 1) - 1;
      if (first == last) return absl::StrCat(name, "=", first);
      return absl::StrCat(name, "=[", first, ",", last, "]");
    }
    case FieldKind::kReal:
      return absl::StrCat(name, "=[", FormatReal(RealEdge(d, i)), ",",
                          FormatReal(RealEdge(d, i + 1)),
                          i + 1 == d.num_buckets ? "]" : ")");
    case FieldKind::kBitVector:
      break;
  }
  return name;
}

}  // namespace

struct DomainEncoding::PrefixLookup {
  FieldSpec field{};
  uint32_t old_bits = 0;  // L_old, every candidate's length
  uint32_t extension_bits = 0;
  absl::flat_hash_map<std::string, uint32_t> index{};  // packed → c
};

namespace {

absl::StatusOr<std::shared_ptr<const DomainEncoding::PrefixLookup>>
MakePrefixLookup(const PrefixEncoding& p, const RecordSchema& schema) {
  const FieldSpec* field = schema.Find(p.field);
  if (field == nullptr || field->kind != FieldKind::kBitVector) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a prefix encoding needs a bit-vector field; \"", p.field, "\" ",
        field == nullptr ? "is not in the schema" : "is not a bit vector"));
  }
  if (p.prefix_bits > field->bit_length) {
    return absl::InvalidArgumentError(absl::StrCat(
        "prefix_bits = ", p.prefix_bits, " exceeds the length of \"", p.field,
        "\" (", field->bit_length, " bits)"));
  }
  if (p.extension_bits > p.prefix_bits) {
    return absl::InvalidArgumentError(
        absl::StrCat("extension_bits = ", p.extension_bits,
                     " exceeds prefix_bits = ", p.prefix_bits));
  }
  if (p.candidates.empty() || p.candidates.size() > kMaxPrefixCandidates) {
    return absl::InvalidArgumentError(
        absl::StrCat("a prefix encoding needs 1 to ", kMaxPrefixCandidates,
                     " candidates, got ", p.candidates.size(),
                     " (to start from nothing, give one empty candidate)"));
  }
  // With s < 32 and |C| ≤ 2^16, 1 + |C|·2^s fits in 64 bits for the check.
  if (p.extension_bits >= 32) {
    return absl::InvalidArgumentError(
        absl::StrCat("extension_bits = ", p.extension_bits, " gives more than ",
                     kMaxDomainSize, " items"));
  }
  RETURN_IF_ERROR(ValidateDomainSize(
      1 + (uint64_t{p.candidates.size()} << p.extension_bits)));
  auto lookup = std::make_shared<DomainEncoding::PrefixLookup>();
  lookup->field = *field;
  lookup->old_bits = p.prefix_bits - p.extension_bits;
  lookup->extension_bits = p.extension_bits;
  for (size_t c = 0; c < p.candidates.size(); ++c) {
    if (p.candidates[c].size() != lookup->old_bits) {
      return absl::InvalidArgumentError(absl::StrCat(
          "prefix candidate ", c, " has ", p.candidates[c].size(),
          " bits; every candidate needs prefix_bits − extension_bits = ",
          lookup->old_bits));
    }
    if (!lookup->index
             .emplace(PackedBytes(p.candidates[c]), static_cast<uint32_t>(c))
             .second) {
      return absl::InvalidArgumentError(
          absl::StrCat("prefix candidate ", c, " (", BitString(p.candidates[c]),
                       ") is listed twice"));
    }
  }
  return lookup;
}

}  // namespace

absl::StatusOr<DomainEncoding> DomainEncoding::Create(
    const DomainEncodingSpec& spec, const RecordSchema& schema) {
  if (const auto* q = std::get_if<QueryValueEncoding>(&spec)) {
    if (!(q->query.schema() == schema)) {
      return absl::InvalidArgumentError(
          "the encoding's query was checked against a different schema");
    }
    RETURN_IF_ERROR(ValidateDomainSize(q->domain_size));
    return DomainEncoding(spec, {}, q->query, nullptr, q->domain_size);
  }
  if (const auto* p = std::get_if<PrefixEncoding>(&spec)) {
    ASSIGN_OR_RETURN(std::shared_ptr<const PrefixLookup> lookup,
                     MakePrefixLookup(*p, schema));
    const uint32_t size =
        1 + static_cast<uint32_t>(p->candidates.size() << p->extension_bits);
    return DomainEncoding(spec, {}, std::nullopt, std::move(lookup), size);
  }
  if (const auto* d = std::get_if<DigestEncoding>(&spec)) {
    const FieldSpec* field = schema.Find(d->field);
    if (field == nullptr || field->kind != FieldKind::kBitVector) {
      return absl::InvalidArgumentError(absl::StrCat(
          "a digest encoding needs a bit-vector field; \"", d->field, "\" ",
          field == nullptr ? "is not in the schema" : "is not a bit vector"));
    }
    return DomainEncoding(spec, {Digit{.spec = *field}}, std::nullopt, nullptr,
                          kDigestDomainSize);
  }
  const std::vector<FieldEncoding> fields =
      std::holds_alternative<FieldEncoding>(spec)
          ? std::vector<FieldEncoding>{std::get<FieldEncoding>(spec)}
          : std::get<ProductEncoding>(spec).fields;
  ASSIGN_OR_RETURN(std::vector<Digit> digits, MakeDigits(fields, schema));
  uint64_t size = 1;
  for (const Digit& d : digits) size *= d.radix;
  return DomainEncoding(spec, std::move(digits), std::nullopt, nullptr,
                        static_cast<uint32_t>(size));
}

uint32_t DomainEncoding::Encode(const Record& sanitized) const {
  if (prefix_ != nullptr) return EncodePrefix(sanitized);
  if (std::holds_alternative<DigestEncoding>(spec_)) {
    return EncodeDigest(sanitized);
  }
  if (query_.has_value()) {
    const double v = std::nearbyint(query_->Evaluate(sanitized));
    return static_cast<uint32_t>(
        std::clamp(v, 0.0, static_cast<double>(domain_size_ - 1)));
  }
  uint64_t index = 0;
  for (const Digit& d : digits_) {
    const auto it = sanitized.values.find(d.spec.name);
    const FieldValue value = SanitizeValue(
        d.spec, it == sanitized.values.end() ? nullptr : &it->second);
    index = index * d.radix + EncodeDigit(d, value);
  }
  return static_cast<uint32_t>(index);
}

std::string DomainEncoding::Describe(uint32_t index) const {
  if (index >= domain_size_) {
    return absl::StrCat("invalid index ", index, " (domain size ", domain_size_,
                        ")");
  }
  if (query_.has_value()) return absl::StrCat("value=", index);
  if (prefix_ != nullptr) return DescribePrefix(index);
  if (std::holds_alternative<DigestEncoding>(spec_)) {
    return absl::StrCat(digits_[0].spec.name, " digest=", index);
  }
  std::vector<std::string> parts(digits_.size());
  for (size_t k = digits_.size(); k-- > 0;) {
    parts[k] = DescribeDigit(digits_[k], index % digits_[k].radix);
    index /= digits_[k].radix;
  }
  return absl::StrJoin(parts, " & ");
}

uint32_t DomainEncoding::EncodePrefix(const Record& sanitized) const {
  const PrefixLookup& p = *prefix_;
  const auto it = sanitized.values.find(p.field.name);
  const FieldValue value = SanitizeValue(
      p.field, it == sanitized.values.end() ? nullptr : &it->second);
  // Sanitized to exactly the field's length (≥ prefix_bits); the check only
  // guards against a schema change under us.
  const auto* sane = std::get_if<std::vector<bool>>(&value);
  if (sane == nullptr || sane->size() < p.old_bits + p.extension_bits) return 0;
  const std::vector<bool>& bits = *sane;
  const auto candidate =
      p.index.find(PackedBytes({bits.begin(), bits.begin() + p.old_bits}));
  if (candidate == p.index.end()) return 0;
  uint32_t extension = 0;
  for (uint32_t i = 0; i < p.extension_bits; ++i) {
    extension = (extension << 1) | (bits[p.old_bits + i] ? 1 : 0);
  }
  return 1 + (candidate->second << p.extension_bits) + extension;
}

uint32_t DomainEncoding::EncodeDigest(const Record& sanitized) const {
  const FieldSpec& field = digits_[0].spec;
  const auto it = sanitized.values.find(field.name);
  const FieldValue value = SanitizeValue(
      field, it == sanitized.values.end() ? nullptr : &it->second);
  const auto* bits = std::get_if<std::vector<bool>>(&value);
  return StringDigest(
      PackedBytes(bits == nullptr ? std::vector<bool>(field.bit_length)
                                  : *bits),
      std::get<DigestEncoding>(spec_).seed);
}

std::string DomainEncoding::DescribePrefix(uint32_t index) const {
  if (index == 0) return "no candidate";
  const PrefixLookup& p = *prefix_;
  const auto& spec = std::get<PrefixEncoding>(spec_);
  const uint32_t item = index - 1;
  std::vector<bool> bits = spec.candidates[item >> p.extension_bits];
  for (uint32_t i = p.extension_bits; i-- > 0;) {
    bits.push_back((item >> i) & 1);
  }
  return absl::StrCat(p.field.name, "[0:", bits.size(), "]=", BitString(bits));
}

}  // namespace ldp
