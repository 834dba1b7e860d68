// Study specs and program rounds' questions as ldp.v1 messages; see the
// header. The mapping itself is proto/convert/study_convert.cc's, the same
// the analyst adapter uses, so what is stored and what was accepted on the
// wire are checked by one piece of code.
#include "server/store/study_codec.h"

#include "proto/convert/deterministic_bytes.h"
#include "proto/convert/study_convert.h"
#include "proto/ldp/v1/analyst_service.pb.h"

namespace ldp {

std::string EncodeStudySpec(const StudySpec& spec) {
  return StudySpecToBytes(spec);
}

absl::StatusOr<StudySpec> DecodeStudySpec(std::string_view bytes) {
  return StudySpecFromBytes(bytes);
}

std::string EncodeQuestions(const std::vector<Question>& questions) {
  v1::StudySpec holder;
  for (const Question& q : questions) ToProto(q, holder.add_questions());
  return DeterministicBytes(holder);
}

absl::StatusOr<std::vector<Question>> DecodeQuestions(
    std::string_view bytes, const RecordSchema& schema) {
  v1::StudySpec holder;
  if (!holder.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return absl::InvalidArgumentError(
        "stored questions are not an ldp.v1.StudySpec");
  }
  return QuestionsFromProto(holder.questions(), schema);
}

}  // namespace ldp
