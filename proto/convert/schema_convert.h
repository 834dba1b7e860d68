// ldp.v1.RecordSchema / Record <-> RecordSchema / Record (record_schema.h).
//
// Schemas arrive from analysts (StudySpec) and travel to agents inside every
// task; the converted schema goes through RecordSchema::Create, so a schema
// that converts is a valid one. Records never travel in an RPC; the proto
// form exists for local tools (agent stores, simulators).
#ifndef LDP_PROTO_CONVERT_SCHEMA_CONVERT_H_
#define LDP_PROTO_CONVERT_SCHEMA_CONVERT_H_

#include "absl/status/statusor.h"
#include "common/queries/record_schema.h"
#include "proto/ldp/v1/types.pb.h"

namespace ldp {

// InvalidArgument for a field without a kind, a default of the wrong shape,
// or anything RecordSchema::Create rejects (the message names the field).
absl::StatusOr<RecordSchema> RecordSchemaFromProto(
    const v1::RecordSchema& proto);
// Overwrites `proto`.
void ToProto(const RecordSchema& schema, v1::RecordSchema* proto);

// InvalidArgument for a value without a kind or a malformed bit vector.
// Values are not checked against any schema: Sanitize() defaults or clamps
// them (DESIGN invariant 8).
absl::StatusOr<Record> RecordFromProto(const v1::Record& proto);
// Overwrites `proto`.
void ToProto(const Record& record, v1::Record* proto);

}  // namespace ldp

#endif  // LDP_PROTO_CONVERT_SCHEMA_CONVERT_H_
