// RapporQuestion (analyst_service.proto) <-> the HistogramQuestion it
// stands for: a digest encoding of the string field, RAPPOR over the
// digests' open domain, and the candidate strings the estimate covers.
#ifndef LDP_PROTO_CONVERT_RAPPOR_QUESTION_CONVERT_H_
#define LDP_PROTO_CONVERT_RAPPOR_QUESTION_CONVERT_H_

#include "absl/status/statusor.h"
#include "common/queries/record_schema.h"
#include "common/tasks/study_spec.h"
#include "proto/ldp/v1/analyst_service.pb.h"

namespace ldp {

// InvalidArgument, naming the problem, for a field that is not a bit
// vector, no candidates or more than kMaxRapporCandidates, a candidate too
// long for the field or listed twice, a hash_seed under which two share a
// digest, a false-discovery rate outside [0, 1), a randomizer that sets
// more than epsilon_nanos, or ε∞ at or past 2^63 nano-ε. hash_seed 0 is
// replaced by the first seed that gives every candidate its own digest.
absl::StatusOr<HistogramQuestion> RapporQuestionFromProto(
    const v1::Question& proto, const RecordSchema& schema);

// `question` must have candidates (a RAPPOR question); sets the kind.
void RapporQuestionToProto(const HistogramQuestion& question,
                           v1::Question* proto);

}  // namespace ldp

#endif  // LDP_PROTO_CONVERT_RAPPOR_QUESTION_CONVERT_H_
