// ldp.v1.Query (an expression tree) <-> Query (query_expression.h).
//
// Queries are data an agent type-checks and evaluates on its own record
// (DESIGN invariants 1 and 4). Conversion enforces the depth and node limits
// while walking the tree, before recursing further, so a hostile message
// cannot exhaust the stack; Query::Create then type-checks the result.
#ifndef LDP_PROTO_CONVERT_QUERY_CONVERT_H_
#define LDP_PROTO_CONVERT_QUERY_CONVERT_H_

#include "absl/status/statusor.h"
#include "common/queries/query_expression.h"
#include "common/queries/record_schema.h"
#include "proto/ldp/v1/types.pb.h"

namespace ldp {

// InvalidArgument (with the path of the offending node, e.g.
// "root.comparison.left: ...") for an unset node or operand, an unspecified
// or unknown operator, a malformed mask, more than kMaxQueryDepth levels or
// kMaxQueryNodes nodes, a missing output range, or anything Query::Create
// rejects against `schema`.
absl::StatusOr<Query> QueryFromProto(const v1::Query& proto,
                                     const RecordSchema& schema);
// Overwrites `proto`.
void ToProto(const Query& query, v1::Query* proto);

}  // namespace ldp

#endif  // LDP_PROTO_CONVERT_QUERY_CONVERT_H_
