// ldp.v1.StudySpec / Question <-> StudySpec / Question (study_spec.h).
//
// A study fixes everything privacy-relevant before any report arrives; the
// server plans from the converted spec, so every shape error must surface
// here, at CreateStudy, with a message the analyst can act on.
//
// Mapping of the wire's defaults (proto3 cannot tell "unset" from 0):
//   confidence 0 → 0.95; round_duration_seconds 0 → 1 hour;
//   Question.randomizer.epsilon_nanos 0 → the planner decides;
//   a statistical query without a mechanism → hybrid; a histogram question
//   without a mechanism → the planner chooses the oracle; a workload
//   question without a strategy → the planner chooses it.
// ToProto(StudySpecFromProto(p)) is p with those defaults filled in, so the
// server can store a study as the deterministic bytes of its StudySpec
// (server/store/storage_codec.h) and show it back to the analyst.
#ifndef LDP_PROTO_CONVERT_STUDY_CONVERT_H_
#define LDP_PROTO_CONVERT_STUDY_CONVERT_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "common/queries/record_schema.h"
#include "common/tasks/study_spec.h"
#include "google/protobuf/repeated_field.h"
#include "proto/ldp/v1/analyst_service.pb.h"

namespace ldp {

inline constexpr int kMaxDisplayNameLength = 1024;

// InvalidArgument unless: a non-empty question_id of ≤ kMaxQuestionIdLength
// characters; exactly one kind; a statistical query with a real-valued
// mechanism (default parameters only: study_spec.h keeps just the kind) or
// none; a histogram with a frequency oracle or none, whose domain_size is 0
// or the encoding's N; a known post_processing name ("" = none); a valid
// workload question (workload_convert.h);
// epsilon_nanos and target_reports fit int64.
absl::StatusOr<Question> QuestionFromProto(const v1::Question& proto,
                                           const RecordSchema& schema);
// Overwrites `proto`. The randomizer is always written (epsilon_nanos, and
// for a histogram with a chosen oracle its parameters and domain_size = N).
void ToProto(const Question& question, v1::Question* proto);

// 1 to kMaxQuestionsPerRound questions with distinct ids (StartRound).
absl::StatusOr<std::vector<Question>> QuestionsFromProto(
    const google::protobuf::RepeatedPtrField<v1::Question>& proto,
    const RecordSchema& schema);

inline constexpr int kMaxProgramNameLength = 64;
inline constexpr int kMaxProgramParameters = 64;
inline constexpr int kMaxProgramParameterLength = 4096;

// InvalidArgument unless the name has 1 to kMaxProgramNameLength characters
// and there are at most kMaxProgramParameters parameters, each name 1 to
// kMaxProgramParameterLength characters and each value at most that many.
// Whether the program exists is the aggregator's check.
absl::StatusOr<ProgramSpec> ProgramSpecFromProto(
    const v1::AnalystProgramSpec& proto);

// InvalidArgument unless: a valid schema; 0 < epsilon_cap_nanos ≤ 2^63 − 1;
// mode NONINTERACTIVE or INTERACTIVE; valid questions (above; none for an
// INTERACTIVE study, whose program asks them); a valid program if any;
// confidence 0 or in (0, 1); quorum fits int64; display_name ≤
// kMaxDisplayNameLength bytes; deadline (if set) a valid Timestamp; every
// string valid UTF-8 (else the stored bytes could not be parsed back).
absl::StatusOr<StudySpec> StudySpecFromProto(const v1::StudySpec& proto);
// Overwrites `proto` (no deadline: see above).
void ToProto(const StudySpec& spec, v1::StudySpec* proto);

// Deterministic bytes of ToProto, and StudySpecFromProto of parsed bytes.
std::string StudySpecToBytes(const StudySpec& spec);
absl::StatusOr<StudySpec> StudySpecFromBytes(std::string_view bytes);

}  // namespace ldp

#endif  // LDP_PROTO_CONVERT_STUDY_CONVERT_H_
