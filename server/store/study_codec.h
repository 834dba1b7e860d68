// The stored forms of study specs and of the questions an analyst program
// asks in one round, beside storage_codec.h's payloads and plans.
//
// Both are messages of the wire contract, serialized deterministically: a
// study spec as ldp.v1.StudySpec, a round's questions as the `questions` of
// an otherwise empty ldp.v1.StudySpec. The wire's StudySpec is already the
// study's one public, versioned schema, and the analyst sees the stored
// spec back through GetStudy, so the server keeps no second schema for it.
// The analyst adapter hands the core a parsed StudySpec; these functions
// are the only place the core turns one into bytes and back. Databases
// written before this file stored the analyst's own serialization of the
// same message, which decodes the same way.
#ifndef LDP_SERVER_STORE_STUDY_CODEC_H_
#define LDP_SERVER_STORE_STUDY_CODEC_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "common/queries/record_schema.h"
#include "common/tasks/study_spec.h"

namespace ldp {

std::string EncodeStudySpec(const StudySpec& spec);

// InvalidArgument for bytes that are not a valid ldp.v1.StudySpec.
absl::StatusOr<StudySpec> DecodeStudySpec(std::string_view bytes);

std::string EncodeQuestions(const std::vector<Question>& questions);

// InvalidArgument unless `bytes` hold 1 or more valid questions over
// `schema` (as EncodeQuestions writes them).
absl::StatusOr<std::vector<Question>> DecodeQuestions(
    std::string_view bytes, const RecordSchema& schema);

}  // namespace ldp

#endif  // LDP_SERVER_STORE_STUDY_CODEC_H_
