// Whether a study spec can be planned at all: its round limits, each
// question against the schema, distinct question ids, and explicit ε that
// fit the cap. Kept apart from the planner's choices so that every refusal
// a spec can earn is in one file, with the words the analyst will read.
#ifndef LDP_PLANNING_STUDY_VALIDATION_H_
#define LDP_PLANNING_STUDY_VALIDATION_H_

#include "absl/status/status.h"
#include "common/tasks/study_spec.h"

namespace ldp {

// INVALID_ARGUMENT naming the first problem. A program's round
// (program_round) may ask questions whose ε add up past the cap: the
// program's schedule is checked against the cap instead.
absl::Status ValidateStudy(const StudySpec& spec, bool program_round = false);

}  // namespace ldp

#endif  // LDP_PLANNING_STUDY_VALIDATION_H_
