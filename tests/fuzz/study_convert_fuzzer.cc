// libFuzzer target: the study converters (proto/convert/study_convert.h) on
// the parsed ldp.v1.StudySpec a client sends (CreateStudy): the step that
// must catch every shape error, and whose output the server stores and
// shows back.
//
// Bytes are a binary StudySpec (study_parsing_fuzzer reads text format and
// plans; this one stays in the converters, so it runs far more inputs).
// Properties: nothing crashes; StudySpecFromProto accepts or refuses with
// INVALID_ARGUMENT and a reason; an accepted spec's stored bytes
// (StudySpecToBytes) read back to the same bytes; ToProto gives back what
// the client set, with only the documented defaults filled in (confidence
// 0.95, 3600 s rounds, shuffle min_batch clamped): name, cap, mode, quorum,
// schema fields, each question's id, kind, ε and target (a MARGINALS
// question's as its expansion into histogram questions), the program, the
// deadline and the shuffle; the limits hold (name length, question ids,
// question count, program name and parameters). The same questions against
// the fixed schema (fuzz_fixtures.h, as program rounds are read back):
// QuestionsFromProto refuses with INVALID_ARGUMENT and a reason, or gives
// one question per expanded question, each converting to a proto that
// converts back to the same bytes.
// ProgramSpecFromProto alone: refuses with a reason or keeps its limits.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "proto/convert/deterministic_bytes.h"
#include "proto/convert/marginals_expansion.h"
#include "proto/convert/study_convert.h"
#include "tests/fuzz/fuzz_fixtures.h"

namespace ldp::fuzz {
namespace {

bool RefusedWithReason(const absl::Status& status) {
  return status.code() == absl::StatusCode::kInvalidArgument &&
         !status.message().empty();
}

bool Same(double a, double b) {
  return a == b || (std::isnan(a) && std::isnan(b));
}

void CheckLimits(const StudySpec& spec) {
  Check(spec.display_name.size() <= kMaxDisplayNameLength,
        "an accepted display_name is too long");
  Check(spec.questions.size() <= kMaxQuestionsPerRound,
        "an accepted study has too many questions");
  std::set<std::string> ids;
  for (const Question& q : spec.questions) {
    Check(!q.id.empty() && q.id.size() <= kMaxQuestionIdLength,
          "an accepted question id is empty or too long");
    Check(ids.insert(q.id).second, "an accepted study repeats a question id");
    Check(q.epsilon_nanos >= 0 && q.target_reports >= 0,
          "an accepted question has a negative ε or target");
  }
}

void CheckProgram(const v1::AnalystProgramSpec& proto) {
  absl::StatusOr<ProgramSpec> program = ProgramSpecFromProto(proto);
  if (!program.ok()) {
    Check(RefusedWithReason(program.status()),
          "a refused program is not INVALID_ARGUMENT with a reason");
    return;
  }
  Check(!program->name.empty() && program->name.size() <= kMaxProgramNameLength,
        "an accepted program name is empty or too long");
  Check(program->parameters.size() <= kMaxProgramParameters &&
            program->parameters.size() ==
                static_cast<size_t>(proto.parameters_size()),
        "accepted program parameters are too many, or were lost");
  for (const auto& [name, value] : program->parameters) {
    Check(!name.empty() && name.size() <= kMaxProgramParameterLength &&
              value.size() <= kMaxProgramParameterLength,
          "an accepted program parameter is out of its limits");
  }
}

// The questions as the server reads them: MARGINALS expanded (which must
// succeed for anything the converters accepted).
std::vector<v1::Question> Expanded(const v1::StudySpec& sent) {
  absl::StatusOr<std::vector<v1::Question>> expanded =
      ExpandMarginals(sent.questions());
  Check(expanded.ok(), "accepted questions whose marginals do not expand");
  return *std::move(expanded);
}

// What the client set is what ToProto shows back, defaults filled in.
void CheckKept(const v1::StudySpec& sent, const v1::StudySpec& shown) {
  Check(shown.display_name() == sent.display_name() &&
            shown.epsilon_cap_nanos() == sent.epsilon_cap_nanos() &&
            shown.mode() == sent.mode() && shown.quorum() == sent.quorum(),
        "a study's name, cap, mode or quorum changed");
  Check(
      shown.confidence() == (sent.confidence() == 0 ? 0.95 : sent.confidence()),
      "confidence is not the one sent (or 0.95)");
  Check(shown.round_duration_seconds() == (sent.round_duration_seconds() == 0
                                               ? 3600
                                               : sent.round_duration_seconds()),
        "round_duration_seconds is not the one sent (or 3600)");
  Check(shown.schema().fields_size() == sent.schema().fields_size(),
        "schema fields were lost or added");
  for (int i = 0; i < shown.schema().fields_size(); ++i) {
    Check(shown.schema().fields(i).name() == sent.schema().fields(i).name(),
          "schema fields were renamed or reordered");
  }
  const std::vector<v1::Question> questions = Expanded(sent);
  Check(static_cast<size_t>(shown.questions_size()) == questions.size(),
        "questions were lost or added");
  for (int i = 0; i < shown.questions_size(); ++i) {
    const v1::Question& a = questions[i];
    const v1::Question& b = shown.questions(i);
    Check(a.question_id() == b.question_id() &&
              a.kind_case() == b.kind_case() &&
              a.target_reports() == b.target_reports() &&
              a.randomizer().epsilon_nanos() == b.randomizer().epsilon_nanos(),
          "a question's id, kind, target or ε changed");
  }
  Check(
      sent.has_program() == shown.has_program() &&
          sent.program().name() == shown.program().name() &&
          sent.program().parameters_size() == shown.program().parameters_size(),
      "the program changed");
  for (const auto& [name, value] : sent.program().parameters()) {
    const auto it = shown.program().parameters().find(name);
    Check(it != shown.program().parameters().end() && it->second == value,
          "a program parameter changed");
  }
  Check(sent.has_deadline() == shown.has_deadline() &&
            sent.deadline().seconds() == shown.deadline().seconds() &&
            sent.deadline().nanos() == shown.deadline().nanos(),
        "the deadline changed");
  Check(sent.has_shuffle() == shown.has_shuffle() &&
            Same(sent.shuffle().target_epsilon(),
                 shown.shuffle().target_epsilon()) &&
            Same(sent.shuffle().delta(), shown.shuffle().delta()) &&
            shown.shuffle().min_batch() ==
                std::min<uint64_t>(sent.shuffle().min_batch(),
                                   kMaxShuffleBatch + 1),
        "the shuffle changed");
}

void FuzzStudy(const v1::StudySpec& proto) {
  absl::StatusOr<StudySpec> spec = StudySpecFromProto(proto);
  if (!spec.ok()) {
    Check(RefusedWithReason(spec.status()),
          "a refused study is not INVALID_ARGUMENT with a reason");
    return;
  }
  CheckLimits(*spec);
  const std::string bytes = StudySpecToBytes(*spec);
  absl::StatusOr<StudySpec> stored = StudySpecFromBytes(bytes);
  Check(stored.ok(), "an accepted study does not read back");
  Check(StudySpecToBytes(*stored) == bytes,
        "a stored study does not read back to the same bytes");
  v1::StudySpec shown;
  ToProto(*spec, &shown);
  CheckKept(proto, shown);
}

// The questions alone, against a schema the client does not control.
void FuzzQuestions(const v1::StudySpec& proto) {
  absl::StatusOr<std::vector<Question>> questions =
      QuestionsFromProto(proto.questions(), Schema());
  if (!questions.ok()) {
    Check(RefusedWithReason(questions.status()),
          "refused questions are not INVALID_ARGUMENT with a reason");
    return;
  }
  Check(questions->size() == Expanded(proto).size(), "questions were lost");
  for (const Question& question : *questions) {
    v1::Question shown;
    ToProto(question, &shown);
    absl::StatusOr<Question> again = QuestionFromProto(shown, Schema());
    Check(again.ok(), "a converted question does not convert back");
    v1::Question twice;
    ToProto(*again, &twice);
    Check(DeterministicBytes(twice) == DeterministicBytes(shown),
          "a question does not convert back to the same bytes");
  }
}

}  // namespace
}  // namespace ldp::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ldp::v1::StudySpec proto;
  if (!proto.ParseFromArray(data, static_cast<int>(size))) return 0;
  ldp::fuzz::FuzzStudy(proto);
  if (!proto.questions().empty()) ldp::fuzz::FuzzQuestions(proto);
  if (proto.has_program()) ldp::fuzz::CheckProgram(proto.program());
  return 0;
}
