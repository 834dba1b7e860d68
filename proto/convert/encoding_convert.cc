// Domain encodings between ldp.v1 and domain_encoding.h; see the header.
#include "proto/convert/encoding_convert.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "proto/convert/bit_vector_convert.h"
#include "proto/convert/query_convert.h"

namespace ldp {
namespace {

FieldEncoding FieldFromProto(const v1::FieldEncoding& proto) {
  return {.field = proto.field(), .num_buckets = proto.num_buckets()};
}

void FieldToProto(const FieldEncoding& field, v1::FieldEncoding* proto) {
  proto->set_field(field.field);
  proto->set_num_buckets(field.num_buckets);
}

// The candidate count is checked before any is decoded, so a hostile
// message cannot make us build a huge table; the rest is Create's job.
absl::StatusOr<PrefixEncoding> PrefixFromProto(
    const v1::PrefixEncoding& proto) {
  if (proto.candidates_size() > static_cast<int>(kMaxPrefixCandidates)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "prefix encoding has ", proto.candidates_size(),
        " candidates; at most ", kMaxPrefixCandidates, " are allowed"));
  }
  PrefixEncoding prefix{.field = proto.field(),
                        .prefix_bits = proto.prefix_bits(),
                        .extension_bits = proto.extension_bits()};
  for (int c = 0; c < proto.candidates_size(); ++c) {
    ASSIGN_OR_RETURN(std::vector<bool> bits,
                     BitsFromProto(proto.candidates(c),
                                   absl::StrCat("prefix.candidates[", c, "]")));
    prefix.candidates.push_back(std::move(bits));
  }
  return prefix;
}

void PrefixToProto(const PrefixEncoding& prefix, v1::PrefixEncoding* proto) {
  proto->set_field(prefix.field);
  proto->set_prefix_bits(prefix.prefix_bits);
  proto->set_extension_bits(prefix.extension_bits);
  for (const std::vector<bool>& c : prefix.candidates) {
    BitsToProto(c, proto->add_candidates());
  }
}

}  // namespace

absl::StatusOr<DomainEncodingSpec> EncodingSpecFromProto(
    const v1::DomainEncoding& proto, const RecordSchema& schema) {
  switch (proto.kind_case()) {
    case v1::DomainEncoding::kField:
      return DomainEncodingSpec(FieldFromProto(proto.field()));
    case v1::DomainEncoding::kProduct: {
      // More digits than schema fields must repeat a field; rejecting here
      // bounds the work a hostile message can cause.
      if (proto.product().fields_size() > kMaxSchemaFields) {
        return absl::InvalidArgumentError(absl::StrCat(
            "product encoding has ", proto.product().fields_size(),
            " fields; at most ", kMaxSchemaFields, " are allowed"));
      }
      ProductEncoding product;
      for (const v1::FieldEncoding& f : proto.product().fields()) {
        product.fields.push_back(FieldFromProto(f));
      }
      return DomainEncodingSpec(std::move(product));
    }
    case v1::DomainEncoding::kQueryValue: {
      const v1::QueryValueEncoding& q = proto.query_value();
      if (!q.has_query()) {
        return absl::InvalidArgumentError("query_value.query is missing");
      }
      ASSIGN_OR_RETURN(Query query, QueryFromProto(q.query(), schema));
      return DomainEncodingSpec(QueryValueEncoding{
          .query = std::move(query), .domain_size = q.domain_size()});
    }
    case v1::DomainEncoding::kPrefix: {
      ASSIGN_OR_RETURN(PrefixEncoding prefix, PrefixFromProto(proto.prefix()));
      return DomainEncodingSpec(std::move(prefix));
    }
    case v1::DomainEncoding::kDigest:
      return DomainEncodingSpec(DigestEncoding{.field = proto.digest().field(),
                                               .seed = proto.digest().seed()});
    case v1::DomainEncoding::KIND_NOT_SET:
      break;
  }
  return absl::InvalidArgumentError(
      "domain encoding has no kind set (one of field, product, query_value, "
      "prefix, digest)");
}

absl::StatusOr<DomainEncoding> EncodingFromProto(
    const v1::DomainEncoding& proto, const RecordSchema& schema) {
  ASSIGN_OR_RETURN(DomainEncodingSpec spec,
                   EncodingSpecFromProto(proto, schema));
  absl::StatusOr<DomainEncoding> encoding =
      DomainEncoding::Create(spec, schema);
  if (!encoding.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid domain encoding: ", encoding.status().message()));
  }
  return encoding;
}

void ToProto(const DomainEncodingSpec& spec, v1::DomainEncoding* proto) {
  proto->Clear();
  if (const auto* field = std::get_if<FieldEncoding>(&spec)) {
    FieldToProto(*field, proto->mutable_field());
  } else if (const auto* product = std::get_if<ProductEncoding>(&spec)) {
    v1::ProductEncoding* p = proto->mutable_product();
    for (const FieldEncoding& f : product->fields) {
      FieldToProto(f, p->add_fields());
    }
  } else if (const auto* prefix = std::get_if<PrefixEncoding>(&spec)) {
    PrefixToProto(*prefix, proto->mutable_prefix());
  } else if (const auto* digest = std::get_if<DigestEncoding>(&spec)) {
    proto->mutable_digest()->set_field(digest->field);
    proto->mutable_digest()->set_seed(digest->seed);
  } else {
    const auto& q = std::get<QueryValueEncoding>(spec);
    ToProto(q.query, proto->mutable_query_value()->mutable_query());
    proto->mutable_query_value()->set_domain_size(q.domain_size);
  }
}

void ToProto(const DomainEncoding& encoding, v1::DomainEncoding* proto) {
  ToProto(encoding.spec(), proto);
}

}  // namespace ldp
