// A MarginalsQuestion (analyst_service.proto) is shorthand for histogram
// questions, one per k-subset of its fields. The expansion happens here, on
// the wire types, before any question is read: everything after it (the
// checks, the planner's sample splitting and oracle choice, the histogram
// accumulators and their intervals, storage) sees plain histogram
// questions over small product domains, and no joint domain of all the
// fields is ever built.
#ifndef LDP_PROTO_CONVERT_MARGINALS_EXPANSION_H_
#define LDP_PROTO_CONVERT_MARGINALS_EXPANSION_H_

#include <vector>

#include "absl/status/statusor.h"
#include "google/protobuf/repeated_ptr_field.h"
#include "proto/ldp/v1/analyst_service.pb.h"

namespace ldp {

// `questions` with every marginals question replaced, in place, by its
// histogram questions; the others as they are. InvalidArgument, naming the
// question, for no fields or more than 64, a field named twice, an order
// outside [1, min(3, fields)], or an expansion past kMaxQuestionsPerRound
// questions in all.
absl::StatusOr<std::vector<v1::Question>> ExpandMarginals(
    const google::protobuf::RepeatedPtrField<v1::Question>& questions);

}  // namespace ldp

#endif  // LDP_PROTO_CONVERT_MARGINALS_EXPANSION_H_
