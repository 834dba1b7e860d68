// Study specs and questions between ldp.v1 and study_spec.h; see the header.
#include "proto/convert/study_convert.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/estimation/confidence_interval.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/stubs/common.h"
#include "proto/convert/deterministic_bytes.h"
#include "proto/convert/encoding_convert.h"
#include "proto/convert/marginals_expansion.h"
#include "proto/convert/query_convert.h"
#include "proto/convert/randomizer_convert.h"
#include "proto/convert/rappor_question_convert.h"
#include "proto/convert/schema_convert.h"
#include "proto/convert/time_convert.h"
#include "proto/convert/workload_convert.h"

namespace ldp {
namespace {

constexpr uint64_t kMaxInt64 = std::numeric_limits<int64_t>::max();
constexpr double kDefaultConfidence = 0.95;
constexpr absl::Duration kDefaultRoundDuration = absl::Hours(1);

absl::Status FitsInt64(uint64_t value, std::string_view what) {
  if (value <= kMaxInt64) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      std::string(what), " must be at most 2^63 - 1, got ", value));
}

absl::StatusOr<std::optional<ConsistencyMethod>> PostProcessingFromProto(
    const std::string& name) {
  if (name.empty()) return std::nullopt;
  if (auto m = ConsistencyMethodFromName(name)) return *m;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown post_processing \"", name,
                   "\"; use \"\" (none) or one of ", ConsistencyMethodNames()));
}

// A question's mechanism kind; study_spec.h keeps no parameters for it.
absl::StatusOr<RealMechanismKind> QueryMechanismFromProto(
    const v1::RandomizerSpec& proto) {
  if (proto.mechanism_case() == v1::RandomizerSpec::MECHANISM_NOT_SET) {
    return RealMechanismKind::kHybrid;
  }
  v1::RandomizerSpec copy = proto;
  copy.set_epsilon_nanos(1);  // ε is the planner's; only parse the kind here
  ASSIGN_OR_RETURN(RandomizerConfig config, RandomizerFromProto(copy));
  const auto* spec = std::get_if<RealMechanismSpec>(&config.mechanism);
  if (spec == nullptr) {
    return absl::InvalidArgumentError(
        "a statistical query needs a real-valued randomizer (discrete_laplace, "
        "duchi, piecewise or hybrid), got a frequency oracle or a workload "
        "strategy");
  }
  if (spec->resolution_bits != 0 || spec->num_cells != 0) {
    return absl::InvalidArgumentError(
        "a statistical-query question takes its mechanism's default "
        "parameters; leave resolution_bits and num_cells 0");
  }
  return spec->kind;
}

absl::StatusOr<std::optional<FrequencyOracleSpec>> OracleFromProto(
    const v1::RandomizerSpec& proto, uint32_t domain_size) {
  if (proto.domain_size() != 0 && proto.domain_size() != domain_size) {
    return absl::InvalidArgumentError(
        absl::StrCat("randomizer.domain_size is ", proto.domain_size(),
                     " but the encoding's domain has ", domain_size,
                     " items; leave it 0 or make them equal"));
  }
  if (proto.mechanism_case() == v1::RandomizerSpec::MECHANISM_NOT_SET) {
    return std::nullopt;  // the planner chooses
  }
  v1::RandomizerSpec copy = proto;
  copy.set_epsilon_nanos(1);  // ε may still be the planner's (0)
  ASSIGN_OR_RETURN(RandomizerConfig config, RandomizerFromProto(copy));
  auto* spec = std::get_if<FrequencyOracleSpec>(&config.mechanism);
  if (spec == nullptr) {
    return absl::InvalidArgumentError(
        "a histogram question needs a frequency-oracle randomizer (e.g. oue, "
        "olh, grr), got a real-valued mechanism or a workload strategy (ask a "
        "workload question for those)");
  }
  spec->epsilon = NanosToEpsilon(static_cast<int64_t>(proto.epsilon_nanos()));
  spec->domain_size = domain_size;
  return *spec;
}

absl::StatusOr<HistogramQuestion> HistogramFromProto(
    const v1::Question& proto, const RecordSchema& schema) {
  const v1::HistogramQuestion& h = proto.histogram();
  if (!h.has_encoding()) {
    return absl::InvalidArgumentError("histogram.encoding is missing");
  }
  if (h.encoding().has_digest()) {
    return absl::InvalidArgumentError(
        "histogram.encoding: a digest encoding is for rappor questions only "
        "(ask a rappor question with the string field and candidates)");
  }
  ASSIGN_OR_RETURN(DomainEncoding encoding,
                   EncodingFromProto(h.encoding(), schema));
  ASSIGN_OR_RETURN(auto oracle,
                   OracleFromProto(proto.randomizer(), encoding.domain_size()));
  ASSIGN_OR_RETURN(auto post_processing,
                   PostProcessingFromProto(h.post_processing()));
  const uint64_t permanent = h.longitudinal_epsilon_permanent_nanos();
  if (permanent != 0 && oracle.has_value()) {
    return absl::InvalidArgumentError(
        "histogram.longitudinal_epsilon_permanent_nanos asks the planner to "
        "choose a longitudinal oracle; leave it 0 when the randomizer names "
        "its mechanism (longitudinal mechanisms carry their own "
        "epsilon_permanent_nanos)");
  }
  if (permanent > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    return absl::InvalidArgumentError(
        "histogram.longitudinal_epsilon_permanent_nanos must be below 2^63");
  }
  return HistogramQuestion{
      .encoding = std::move(encoding),
      .oracle = std::move(oracle),
      .post_processing = post_processing,
      .epsilon_permanent = NanosToEpsilon(static_cast<int64_t>(permanent))};
}

absl::StatusOr<StatisticalQueryQuestion> QueryQuestionFromProto(
    const v1::Question& proto, const RecordSchema& schema) {
  if (proto.randomizer().domain_size() != 0) {
    return absl::InvalidArgumentError(
        "randomizer.domain_size must be 0 for a statistical query");
  }
  ASSIGN_OR_RETURN(RealMechanismKind kind,
                   QueryMechanismFromProto(proto.randomizer()));
  ASSIGN_OR_RETURN(Query query,
                   QueryFromProto(proto.statistical_query(), schema));
  return StatisticalQueryQuestion{.query = std::move(query), .mechanism = kind};
}

using QuestionKind =
    std::variant<StatisticalQueryQuestion, HistogramQuestion, WorkloadQuestion>;

absl::StatusOr<QuestionKind> KindFromProto(const v1::Question& proto,
                                           const RecordSchema& schema) {
  switch (proto.kind_case()) {
    case v1::Question::kStatisticalQuery: {
      ASSIGN_OR_RETURN(StatisticalQueryQuestion q,
                       QueryQuestionFromProto(proto, schema));
      return QuestionKind(std::move(q));
    }
    case v1::Question::kHistogram: {
      ASSIGN_OR_RETURN(HistogramQuestion q, HistogramFromProto(proto, schema));
      return QuestionKind(std::move(q));
    }
    case v1::Question::kWorkload: {
      ASSIGN_OR_RETURN(WorkloadQuestion q,
                       WorkloadQuestionFromProto(proto.workload(),
                                                 proto.randomizer(), schema));
      return QuestionKind(std::move(q));
    }
    case v1::Question::kRappor: {
      ASSIGN_OR_RETURN(HistogramQuestion q,
                       RapporQuestionFromProto(proto, schema));
      return QuestionKind(std::move(q));
    }
    case v1::Question::kMarginals:
      return absl::InvalidArgumentError(
          "a marginals question stands for several histogram questions: "
          "read it with the round's other questions (QuestionsFromProto)");
    case v1::Question::KIND_NOT_SET:
      break;
  }
  return absl::InvalidArgumentError(
      "question has no kind (set statistical_query, histogram, workload, "
      "marginals or rappor)");
}

// proto3 will not parse a string field holding invalid UTF-8, so a spec
// with one would be accepted and then never read back from its stored bytes
// (found by tests/fuzz/study_parsing_fuzzer). Checks every string field at
// any depth; `path` names the field in the message.
absl::Status CheckStringsAreUtf8(const google::protobuf::Message& message,
                                 const std::string& path) {
  using google::protobuf::FieldDescriptor;
  const google::protobuf::Reflection* reflection = message.GetReflection();
  std::vector<const FieldDescriptor*> fields;
  reflection->ListFields(message, &fields);
  for (const FieldDescriptor* field : fields) {
    const std::string where =
        path.empty() ? field->name() : absl::StrCat(path, ".", field->name());
    const int n =
        field->is_repeated() ? reflection->FieldSize(message, field) : 1;
    for (int i = 0; i < n; ++i) {
      if (field->type() == FieldDescriptor::TYPE_STRING) {
        std::string scratch;
        const std::string& value =
            field->is_repeated()
                ? reflection->GetRepeatedStringReference(message, field, i,
                                                         &scratch)
                : reflection->GetStringReference(message, field, &scratch);
        if (!google::protobuf::internal::IsStructurallyValidUTF8(
                value.data(), static_cast<int>(value.size()))) {
          return absl::InvalidArgumentError(
              absl::StrCat(where, " is not valid UTF-8"));
        }
      } else if (field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
        RETURN_IF_ERROR(CheckStringsAreUtf8(
            field->is_repeated()
                ? reflection->GetRepeatedMessage(message, field, i)
                : reflection->GetMessage(message, field),
            where));
      }
    }
  }
  return absl::OkStatus();
}

absl::Status CheckQuestionId(const std::string& id) {
  if (id.empty()) {
    return absl::InvalidArgumentError("question_id must not be empty");
  }
  if (id.size() > kMaxQuestionIdLength) {
    return absl::InvalidArgumentError(
        absl::StrCat("question_id has ", id.size(), " bytes; at most ",
                     kMaxQuestionIdLength, " are allowed"));
  }
  return absl::OkStatus();
}

absl::StatusOr<Question> CheckedQuestionFromProto(const v1::Question& proto,
                                                  const RecordSchema& schema) {
  RETURN_IF_ERROR(CheckQuestionId(proto.question_id()));
  RETURN_IF_ERROR(FitsInt64(proto.randomizer().epsilon_nanos(),
                            "randomizer.epsilon_nanos"));
  RETURN_IF_ERROR(FitsInt64(proto.target_reports(), "target_reports"));
  ASSIGN_OR_RETURN(QuestionKind kind, KindFromProto(proto, schema));
  return Question{
      .id = proto.question_id(),
      .kind = std::move(kind),
      .epsilon_nanos = static_cast<int64_t>(proto.randomizer().epsilon_nanos()),
      .target_reports = static_cast<int64_t>(proto.target_reports())};
}

absl::StatusOr<StudyMode> ModeFromProto(v1::StudyMode mode) {
  switch (mode) {
    case v1::NONINTERACTIVE:
      return StudyMode::kNoninteractive;
    case v1::INTERACTIVE:
      return StudyMode::kInteractive;
    default:
      return absl::InvalidArgumentError(absl::StrCat(
          "study mode must be NONINTERACTIVE or INTERACTIVE, got ", mode));
  }
}

absl::Status CheckStudyScalars(const v1::StudySpec& proto) {
  if (proto.display_name().size() > kMaxDisplayNameLength) {
    return absl::InvalidArgumentError(absl::StrCat(
        "display_name has ", proto.display_name().size(), " bytes; at most ",
        kMaxDisplayNameLength, " are allowed"));
  }
  if (proto.epsilon_cap_nanos() == 0 || proto.epsilon_cap_nanos() > kMaxInt64) {
    return absl::InvalidArgumentError(absl::StrCat(
        "epsilon_cap_nanos must be in [1, 2^63 - 1] (1 epsilon = 1e9 "
        "nano-epsilon), got ",
        proto.epsilon_cap_nanos()));
  }
  RETURN_IF_ERROR(FitsInt64(proto.quorum(), "quorum"));
  if (proto.confidence() != 0) {
    RETURN_IF_ERROR(ValidateConfidence(proto.confidence()));
  }
  if (!proto.has_schema()) {
    return absl::InvalidArgumentError("study schema is missing");
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Question> QuestionFromProto(const v1::Question& proto,
                                           const RecordSchema& schema) {
  absl::StatusOr<Question> question = CheckedQuestionFromProto(proto, schema);
  if (!question.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("question \"", proto.question_id(),
                     "\": ", question.status().message()));
  }
  return question;
}

void ToProto(const Question& question, v1::Question* proto) {
  proto->Clear();
  proto->set_question_id(question.id);
  proto->set_target_reports(static_cast<uint64_t>(question.target_reports));
  v1::RandomizerSpec* randomizer = proto->mutable_randomizer();
  randomizer->set_epsilon_nanos(static_cast<uint64_t>(question.epsilon_nanos));
  if (const auto* sq = std::get_if<StatisticalQueryQuestion>(&question.kind)) {
    ToProto(sq->query, proto->mutable_statistical_query());
    MechanismToProto(RealMechanismSpec{.kind = sq->mechanism}, randomizer);
    return;
  }
  if (const auto* w = std::get_if<WorkloadQuestion>(&question.kind)) {
    ToProto(*w, proto->mutable_workload());
    return;
  }
  const auto& h = std::get<HistogramQuestion>(question.kind);
  if (h.candidates.has_value()) {
    RapporQuestionToProto(h, proto);
    return;
  }
  v1::HistogramQuestion* histogram = proto->mutable_histogram();
  ToProto(h.encoding, histogram->mutable_encoding());
  if (h.post_processing.has_value()) {
    histogram->set_post_processing(
        std::string(ConsistencyMethodName(*h.post_processing)));
  }
  if (h.oracle.has_value()) {
    randomizer->set_domain_size(h.encoding.domain_size());
    MechanismToProto(*h.oracle, randomizer);
  }
  histogram->set_longitudinal_epsilon_permanent_nanos(
      static_cast<uint64_t>(EpsilonToNanos(h.epsilon_permanent)));
}

absl::StatusOr<std::vector<Question>> QuestionsFromProto(
    const google::protobuf::RepeatedPtrField<v1::Question>& proto,
    const RecordSchema& schema) {
  ASSIGN_OR_RETURN(const std::vector<v1::Question> expanded,
                   ExpandMarginals(proto));
  if (expanded.empty() || expanded.size() > kMaxQuestionsPerRound) {
    return absl::InvalidArgumentError(
        absl::StrCat("a round needs 1 to ", kMaxQuestionsPerRound,
                     " questions, got ", expanded.size(),
                     expanded.size() == static_cast<size_t>(proto.size())
                         ? ""
                         : " once its marginals questions are expanded"));
  }
  std::vector<Question> questions;
  absl::flat_hash_set<std::string> ids;
  for (const v1::Question& q : expanded) {
    RETURN_IF_ERROR(CheckStringsAreUtf8(q, "question"));
    if (!ids.insert(q.question_id()).second) {
      return absl::InvalidArgumentError(absl::StrCat(
          "question_id \"", q.question_id(), "\" appears more than once"));
    }
    ASSIGN_OR_RETURN(Question question, QuestionFromProto(q, schema));
    questions.push_back(std::move(question));
  }
  return questions;
}

absl::StatusOr<ProgramSpec> ProgramSpecFromProto(
    const v1::AnalystProgramSpec& proto) {
  if (proto.name().empty() || proto.name().size() > kMaxProgramNameLength) {
    return absl::InvalidArgumentError(
        absl::StrCat("program.name must have 1 to ", kMaxProgramNameLength,
                     " characters, got ", proto.name().size()));
  }
  if (proto.parameters_size() > kMaxProgramParameters) {
    return absl::InvalidArgumentError(
        absl::StrCat("a program takes at most ", kMaxProgramParameters,
                     " parameters, got ", proto.parameters_size()));
  }
  ProgramSpec spec{.name = proto.name()};
  for (const auto& [name, value] : proto.parameters()) {
    if (name.empty() || name.size() > kMaxProgramParameterLength ||
        value.size() > kMaxProgramParameterLength) {
      return absl::InvalidArgumentError(absl::StrCat(
          "program parameter names must have 1 to ", kMaxProgramParameterLength,
          " characters and values at most as many; \"", name.substr(0, 64),
          "\" does not"));
    }
    spec.parameters[name] = value;
  }
  return spec;
}

absl::StatusOr<StudySpec> StudySpecFromProto(const v1::StudySpec& proto) {
  RETURN_IF_ERROR(CheckStringsAreUtf8(proto, ""));
  RETURN_IF_ERROR(CheckStudyScalars(proto));
  ASSIGN_OR_RETURN(StudyMode mode, ModeFromProto(proto.mode()));
  ASSIGN_OR_RETURN(RecordSchema schema, RecordSchemaFromProto(proto.schema()));
  // An interactive study's program asks its questions; the aggregator
  // checks that the two fit together.
  std::vector<Question> questions;
  if (!(mode == StudyMode::kInteractive && proto.questions().empty())) {
    ASSIGN_OR_RETURN(questions, QuestionsFromProto(proto.questions(), schema));
  }
  std::optional<ProgramSpec> program;
  if (proto.has_program()) {
    ASSIGN_OR_RETURN(program, ProgramSpecFromProto(proto.program()));
  }
  absl::Time deadline = absl::InfiniteFuture();
  if (proto.has_deadline()) {
    ASSIGN_OR_RETURN(deadline, TimeFromProto(proto.deadline()));
  }
  std::optional<ShuffleSpec> shuffle;
  if (proto.has_shuffle()) {
    shuffle =
        ShuffleSpec{.target_epsilon = proto.shuffle().target_epsilon(),
                    .delta = proto.shuffle().delta(),
                    .min_batch = static_cast<int64_t>(std::min<uint64_t>(
                        proto.shuffle().min_batch(), kMaxShuffleBatch + 1))};
  }
  return StudySpec{
      .display_name = proto.display_name(),
      .schema = std::move(schema),
      .epsilon_cap_nanos = static_cast<int64_t>(proto.epsilon_cap_nanos()),
      .mode = mode,
      .questions = std::move(questions),
      .program = std::move(program),
      .confidence =
          proto.confidence() == 0 ? kDefaultConfidence : proto.confidence(),
      .quorum = static_cast<int64_t>(proto.quorum()),
      .round_duration = proto.round_duration_seconds() == 0
                            ? kDefaultRoundDuration
                            : absl::Seconds(proto.round_duration_seconds()),
      .deadline = deadline,
      .shuffle = shuffle};
}

void ToProto(const StudySpec& spec, v1::StudySpec* proto) {
  proto->Clear();
  proto->set_display_name(spec.display_name);
  ToProto(spec.schema, proto->mutable_schema());
  proto->set_epsilon_cap_nanos(static_cast<uint64_t>(spec.epsilon_cap_nanos));
  proto->set_mode(spec.mode == StudyMode::kInteractive ? v1::INTERACTIVE
                                                       : v1::NONINTERACTIVE);
  for (const Question& q : spec.questions) ToProto(q, proto->add_questions());
  if (spec.program.has_value()) {
    proto->mutable_program()->set_name(spec.program->name);
    for (const auto& [name, value] : spec.program->parameters) {
      (*proto->mutable_program()->mutable_parameters())[name] = value;
    }
  }
  proto->set_confidence(spec.confidence);
  proto->set_quorum(static_cast<uint64_t>(spec.quorum));
  // Whole seconds, rounded up so a short positive duration stays positive.
  const int64_t seconds =
      absl::ToInt64Seconds(absl::Ceil(spec.round_duration, absl::Seconds(1)));
  proto->set_round_duration_seconds(static_cast<uint32_t>(
      std::clamp<int64_t>(seconds, 0, std::numeric_limits<uint32_t>::max())));
  if (spec.deadline != absl::InfiniteFuture()) {
    TimeToProto(spec.deadline, proto->mutable_deadline());
  }
  if (spec.shuffle.has_value()) {
    v1::ShuffleSpec* shuffle = proto->mutable_shuffle();
    shuffle->set_target_epsilon(spec.shuffle->target_epsilon);
    shuffle->set_delta(spec.shuffle->delta);
    shuffle->set_min_batch(static_cast<uint64_t>(spec.shuffle->min_batch));
  }
}

std::string StudySpecToBytes(const StudySpec& spec) {
  v1::StudySpec proto;
  ToProto(spec, &proto);
  return DeterministicBytes(proto);
}

absl::StatusOr<StudySpec> StudySpecFromBytes(std::string_view bytes) {
  v1::StudySpec proto;
  if (!proto.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return absl::InvalidArgumentError(
        "bytes are not a serialized ldp.v1.StudySpec");
  }
  return StudySpecFromProto(proto);
}

}  // namespace ldp
