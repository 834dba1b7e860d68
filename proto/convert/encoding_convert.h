// ldp.v1.DomainEncoding <-> DomainEncodingSpec / DomainEncoding
// (domain_encoding.h): how a record becomes an item of [N].
//
// A built DomainEncoding keeps the spec it came from (spec()), so the server
// can send the very encoding it validated.
#ifndef LDP_PROTO_CONVERT_ENCODING_CONVERT_H_
#define LDP_PROTO_CONVERT_ENCODING_CONVERT_H_

#include "absl/status/statusor.h"
#include "common/queries/domain_encoding.h"
#include "common/queries/record_schema.h"
#include "proto/ldp/v1/types.pb.h"

namespace ldp {

// The spec only (a query-value encoding's query is type-checked against
// `schema`). InvalidArgument for an unset kind, a malformed query, more
// than kMaxPrefixCandidates prefix candidates or a malformed candidate
// bit vector.
absl::StatusOr<DomainEncodingSpec> EncodingSpecFromProto(
    const v1::DomainEncoding& proto, const RecordSchema& schema);

// EncodingSpecFromProto, then DomainEncoding::Create: InvalidArgument for
// anything either rejects (unknown fields, bad bucket counts, N > 2^31, ...).
absl::StatusOr<DomainEncoding> EncodingFromProto(
    const v1::DomainEncoding& proto, const RecordSchema& schema);

// Overwrite `proto`.
void ToProto(const DomainEncodingSpec& spec, v1::DomainEncoding* proto);
void ToProto(const DomainEncoding& encoding, v1::DomainEncoding* proto);

}  // namespace ldp

#endif  // LDP_PROTO_CONVERT_ENCODING_CONVERT_H_
