// ldp.v1.WorkloadQuestion <-> WorkloadQuestion (study_spec.h).
//
// A workload's size follows from its encoding: N for histogram, prefix,
// all-range and custom workloads; d bool fields (N = 2^d) for marginals and
// parities. The wire lets the analyst leave those 0; reading resolves them
// against the encoding and refuses a workload that disagrees with it, so
// the planner always sees a complete WorkloadSpec. The workload itself is
// validated by Workload::Create (shapes, limits, custom matrices).
#ifndef LDP_PROTO_CONVERT_WORKLOAD_CONVERT_H_
#define LDP_PROTO_CONVERT_WORKLOAD_CONVERT_H_

#include "absl/status/statusor.h"
#include "common/queries/record_schema.h"
#include "common/tasks/study_spec.h"
#include "common/workload/specs/workload_spec.h"
#include "proto/ldp/v1/analyst_service.pb.h"

namespace ldp {

// Most bool fields a marginal or parity workload reads (N = 2^12).
inline constexpr uint32_t kMaxWorkloadBits = 12;

// InvalidArgument unless: an encoding valid for `schema`; a workload kind;
// domain_size 0 or N (≤ kMaxWorkloadDomainSize) and num_bits 0 for
// histogram, prefix, all-range and custom workloads; for marginals and
// parities an encoding of 1 to kMaxWorkloadBits bool fields (a product or
// a single field, no buckets), num_bits 0 or d, domain_size 0 or 2^d;
// custom data only for CUSTOM; a strategy choice with a kind, and
// branching only for HIERARCHICAL (0 or ≥ 2); randomizer with no mechanism
// (the strategy is the workload's) and domain_size 0 or N; and whatever
// Workload::Create refuses.
absl::StatusOr<WorkloadQuestion> WorkloadQuestionFromProto(
    const v1::WorkloadQuestion& proto, const v1::RandomizerSpec& randomizer,
    const RecordSchema& schema);
// Overwrites `proto`, writing N (or d) explicitly.
void ToProto(const WorkloadQuestion& question, v1::WorkloadQuestion* proto);

// WorkloadKind <-> the wire enum; InvalidArgument for KIND_UNSPECIFIED or
// an unknown value.
absl::StatusOr<WorkloadKind> WorkloadKindFromProto(int kind);
v1::Workload::Kind WorkloadKindToProto(WorkloadKind kind);

}  // namespace ldp

#endif  // LDP_PROTO_CONVERT_WORKLOAD_CONVERT_H_
