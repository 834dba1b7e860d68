// AnalystService adapter; see the header.
#include "server/grpc/analyst_service.h"

#include <string>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/workload/strategies/workload_estimator.h"
#include "proto/convert/estimate_convert.h"
#include "proto/convert/study_convert.h"
#include "proto/convert/time_convert.h"
#include "proto/grpc_convert/byte_buffer.h"
#include "proto/grpc_convert/grpc_status.h"
#include "server/grpc/auth_metadata.h"
#include "server/grpc/call_status.h"
#include "server/grpc/ledger_proto.h"

namespace ldp {
namespace {

constexpr int kDefaultPageSize = 50;
constexpr int kMaxPageSize = 1000;
// Workloads with more queries release no labels (all ranges at N = 1024 has
// 524,800): the answers' order is the workload's documented one.
constexpr uint64_t kMaxWorkloadLabels = uint64_t{1} << 16;

v1::RoundState RoundStateToProto(RoundState state) {
  switch (state) {
    case RoundState::kOpen:
      return v1::ROUND_OPEN;
    case RoundState::kClosedQuorum:
      return v1::ROUND_CLOSED_QUORUM;
    case RoundState::kClosedDeadline:
      return v1::ROUND_CLOSED_DEADLINE;
    case RoundState::kClosedEarly:
      return v1::ROUND_CLOSED_EARLY;
  }
  return v1::ROUND_STATE_UNSPECIFIED;
}

void StudyToProto(const StudyInfo& info, v1::Study* out) {
  out->set_study_id(info.study_id);
  if (info.spec != nullptr) ToProto(*info.spec, out->mutable_spec());
  v1::StudyStatus* status = out->mutable_status();
  status->set_state(info.state == StudyState::kActive ? v1::STUDY_ACTIVE
                                                      : v1::STUDY_CLOSED);
  for (const RoundInfo& round : info.rounds)
    status->add_round_ids(round.round_id);
  status->set_num_agents(static_cast<uint64_t>(info.num_agents));
  status->set_num_reports(static_cast<uint64_t>(info.num_reports));
  status->set_max_spent_nanos(static_cast<uint64_t>(info.max_spent_nanos));
  if (info.program_result.has_value()) {
    v1::ProgramResult* result = status->mutable_program_result();
    result->set_summary(info.program_result->summary);
    result->set_done(info.program_done);
    for (const ProgramValue& value : info.program_result->values) {
      v1::ProgramValue* out = result->add_values();
      out->set_name(value.name);
      out->set_value(value.value);
      if (value.interval.has_value()) {
        out->mutable_interval()->set_lower(value.interval->lower);
        out->mutable_interval()->set_upper(value.interval->upper);
        out->mutable_interval()->set_confidence(info.spec->confidence);
      }
    }
  }
  TimeToProto(info.create_time, out->mutable_create_time());
}

void RoundToProto(const StudyInfo& study, const RoundInfo& round,
                  v1::Round* out) {
  out->set_study_id(study.study_id);
  out->set_round_id(round.round_id);
  out->set_state(RoundStateToProto(round.state));
  const std::vector<Question>& questions =
      round.from_program ? round.program_questions : study.spec->questions;
  for (const Question& question : questions) {
    ToProto(question, out->add_questions());
  }
  if (round.from_program) out->set_name(round.name);
  out->set_slice_begin(round.slice.begin);
  out->set_slice_end(round.slice.end);
  for (const QuestionInfo& question : round.questions) {
    v1::QuestionProgress* progress = out->add_progress();
    progress->set_question_id(question.question_id);
    progress->set_num_reports(static_cast<uint64_t>(question.num_reports));
  }
  TimeToProto(round.start_time, out->mutable_start_time());
  if (round.deadline != absl::InfiniteFuture()) {
    TimeToProto(round.deadline, out->mutable_deadline());
  }
  out->set_split_strategy(std::string(SplitStrategyName(round.strategy)));
  out->set_plan_explanation(round.plan_explanation);
}

// The encoding's field names, for the bit workloads' "b<i>" (bit i is
// field i of the product encoding, first field first).
std::vector<std::string> BitFieldNames(const Task& task) {
  const auto* w = std::get_if<WorkloadTask>(&task.question);
  if (w == nullptr) return {};
  if (const auto* field = std::get_if<FieldEncoding>(&w->encoding.spec())) {
    return {field->field};
  }
  std::vector<std::string> names;
  if (const auto* product = std::get_if<ProductEncoding>(&w->encoding.spec())) {
    for (const FieldEncoding& f : product->fields) names.push_back(f.field);
  }
  return names;
}

// Replaces every "b<i>" token (at the start or after ' ' or '⊕') by field
// i's name: "b0=1 b3=0" → "smoker=1 vegan=0".
std::string NameBits(const std::string& label,
                     const std::vector<std::string>& names) {
  std::string out;
  size_t i = 0;
  while (i < label.size()) {
    const bool token_start = i == 0 || label[i - 1] == ' ' ||
                             (i >= 3 && label.compare(i - 3, 3, "⊕") == 0);
    if (token_start && label[i] == 'b' && i + 1 < label.size() &&
        absl::ascii_isdigit(static_cast<unsigned char>(label[i + 1]))) {
      size_t end = i + 1;
      while (end < label.size() &&
             absl::ascii_isdigit(static_cast<unsigned char>(label[end]))) {
        ++end;
      }
      size_t bit = 0;
      if (absl::SimpleAtoi(label.substr(i + 1, end - i - 1), &bit) &&
          bit < names.size()) {
        out += names[bit];
        i = end;
        continue;
      }
    }
    out += label[i++];
  }
  return out;
}

WorkloadRelease ToWorkloadRelease(const QuestionEstimate& q) {
  WorkloadRelease release{.answer = std::get<WorkloadAnswer>(q.estimate),
                          .epsilon_nanos = q.epsilon_nanos};
  if (q.strategy.has_value()) {
    release.strategy = q.strategy->description;
    release.predicted_v_max = q.strategy->v_max;
    release.predicted_v_avg = q.strategy->v_avg;
    release.best_fixed_strategy = q.strategy->best_fixed;
    release.best_fixed_v_max = q.strategy->best_fixed_v_max;
    release.gamma2_lower = q.strategy->gamma2_lower;
    release.gamma2_upper = q.strategy->gamma2_upper;
  }
  if (q.workload_estimator == nullptr) return release;
  const Workload& workload = q.workload_estimator->workload();
  release.workload = workload.Describe();
  const uint64_t m = workload.num_queries();
  if (m > kMaxWorkloadLabels || release.answer.answers.size() != m) {
    return release;
  }
  const bool bits = workload.kind() == WorkloadKind::kMarginals ||
                    workload.kind() == WorkloadKind::kParities;
  const std::vector<std::string> names = bits && q.question != nullptr
                                             ? BitFieldNames(*q.question)
                                             : std::vector<std::string>();
  release.labels.reserve(m);
  for (uint64_t j = 0; j < m; ++j) {
    std::string label = workload.QueryLabel(j);
    release.labels.push_back(names.empty() ? std::move(label)
                                           : NameBits(label, names));
  }
  return release;
}

void ShuffledToProto(const ShuffledGuaranteeInfo& info,
                     v1::QuestionEstimate* proto) {
  v1::ShuffledGuarantee* out = proto->mutable_shuffled();
  out->set_local_epsilon(info.local_epsilon);
  out->set_central_epsilon(info.central_epsilon);
  out->set_delta(info.delta);
  out->set_num_batches(static_cast<uint64_t>(info.num_batches));
  out->set_smallest_batch(static_cast<uint64_t>(info.smallest_batch));
}

EstimateRelease ToRelease(const QuestionEstimate& q, double confidence) {
  if (std::holds_alternative<WorkloadAnswer>(q.estimate)) {
    return ToWorkloadRelease(q);
  }
  if (const auto* scalar = std::get_if<ScalarEstimate>(&q.estimate)) {
    return ScalarRelease{.estimate = *scalar,
                         .epsilon_nanos = q.epsilon_nanos,
                         .mechanism = q.mechanism};
  }
  HistogramRelease release{.estimate = std::get<HistogramEstimate>(q.estimate),
                           .confidence = confidence,
                           .epsilon_nanos = q.epsilon_nanos,
                           .mechanism = q.mechanism};
  if (const auto& test = release.estimate.candidates; test.has_value()) {
    release.labels = test->labels;
  } else if (q.question != nullptr) {
    if (const auto* h = std::get_if<HistogramTask>(&q.question->question)) {
      const size_t n = release.estimate.frequencies.size();
      release.labels.reserve(n);
      for (size_t v = 0; v < n; ++v) {
        release.labels.push_back(
            h->encoding.Describe(static_cast<uint32_t>(v)));
      }
    }
  }
  if (q.post_processing.has_value()) {
    release.post_processed = PostProcessedFrequencies{
        .method = *q.post_processing, .frequencies = q.post_processed};
  }
  return release;
}

}  // namespace

absl::Status AnalystServiceImpl::Authenticate(
    grpc::CallbackServerContext* context) const {
  absl::StatusOr<std::string_view> token = BearerToken(*context);
  if (!token.ok()) return token.status();
  absl::Status analyst = aggregator_->AuthenticateAnalyst(*token);
  // A genuine agent credential is an identity, just the wrong one: say so
  // (PERMISSION_DENIED) rather than "who are you" (UNAUTHENTICATED).
  if (!analyst.ok() && aggregator_->AuthenticateAgent(*token).ok()) {
    return absl::PermissionDeniedError(
        "an agent credential cannot call the analyst API");
  }
  return analyst;
}

grpc::ServerUnaryReactor* AnalystServiceImpl::CreateStudy(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* raw,
    grpc::ByteBuffer* response) {
  if (absl::Status s = Authenticate(context); !s.ok())
    return FinishWith(context, s);
  v1::CreateStudyRequest request;
  if (absl::Status parsed = ParseByteBuffer(*raw, request); !parsed.ok()) {
    return FinishWith(context, parsed);
  }
  absl::StatusOr<StudySpec> spec = StudySpecFromProto(request.spec());
  if (!spec.ok()) return FinishWith(context, spec.status());
  absl::StatusOr<StudyInfo> info =
      aggregator_->CreateStudy(*std::move(spec), request.request_id());
  if (info.ok()) {
    v1::Study study;
    StudyToProto(*info, &study);
    *response = MessageToByteBuffer(study);
  }
  return FinishWith(context, info.status());
}

grpc::ServerUnaryReactor* AnalystServiceImpl::GetStudy(
    grpc::CallbackServerContext* context, const v1::GetStudyRequest* request,
    v1::Study* response) {
  if (absl::Status s = Authenticate(context); !s.ok())
    return FinishWith(context, s);
  absl::StatusOr<StudyInfo> info = aggregator_->GetStudy(request->study_id());
  if (info.ok()) StudyToProto(*info, response);
  return FinishWith(context, info.status());
}

grpc::ServerUnaryReactor* AnalystServiceImpl::ListStudies(
    grpc::CallbackServerContext* context, const v1::ListStudiesRequest* request,
    v1::ListStudiesResponse* response) {
  if (absl::Status s = Authenticate(context); !s.ok())
    return FinishWith(context, s);
  uint64_t start = 0;
  if (!request->page_token().empty() &&
      !absl::SimpleAtoi(request->page_token(), &start)) {
    return FinishWith(context, absl::InvalidArgumentError(absl::StrCat(
                                   "page_token '", request->page_token(),
                                   "' is not one this server returned")));
  }
  const int size = request->page_size() == 0
                       ? kDefaultPageSize
                       : static_cast<int>(std::min<uint32_t>(
                             request->page_size(), kMaxPageSize));
  const StudyPage page = aggregator_->ListStudies(size, start);
  for (const StudyInfo& info : page.studies)
    StudyToProto(info, response->add_studies());
  if (page.next_page_start != 0) {
    response->set_next_page_token(absl::StrCat(page.next_page_start));
  }
  return FinishWith(context, absl::OkStatus());
}

grpc::ServerUnaryReactor* AnalystServiceImpl::StartRound(
    grpc::CallbackServerContext* context, const v1::StartRoundRequest* request,
    v1::Round* response) {
  if (absl::Status s = Authenticate(context); !s.ok())
    return FinishWith(context, s);
  if (!request->questions().empty()) {
    return FinishWith(
        context,
        absl::InvalidArgumentError(
            "StartRound takes no questions: an INTERACTIVE study's analyst "
            "program asks each round; send only study_id"));
  }
  absl::StatusOr<RoundInfo> round =
      aggregator_->AdvanceStudy(request->study_id());
  if (!round.ok()) return FinishWith(context, round.status());
  absl::StatusOr<StudyInfo> info = aggregator_->GetStudy(request->study_id());
  if (!info.ok()) return FinishWith(context, info.status());
  RoundToProto(*info, *round, response);
  return FinishWith(context, absl::OkStatus());
}

grpc::ServerUnaryReactor* AnalystServiceImpl::GetRound(
    grpc::CallbackServerContext* context, const v1::GetRoundRequest* request,
    v1::Round* response) {
  if (absl::Status s = Authenticate(context); !s.ok())
    return FinishWith(context, s);
  absl::StatusOr<StudyInfo> info = aggregator_->GetStudy(request->study_id());
  if (!info.ok()) return FinishWith(context, info.status());
  for (const RoundInfo& round : info->rounds) {
    if (round.round_id == request->round_id() ||
        (request->round_id() == 0 && &round == &info->rounds.back())) {
      RoundToProto(*info, round, response);
      return FinishWith(context, absl::OkStatus());
    }
  }
  return FinishWith(context, absl::NotFoundError(absl::StrCat(
                                 "study ", request->study_id(),
                                 " has no round ", request->round_id())));
}

grpc::ServerUnaryReactor* AnalystServiceImpl::GetEstimates(
    grpc::CallbackServerContext* context,
    const v1::GetEstimatesRequest* request,
    v1::GetEstimatesResponse* response) {
  if (absl::Status s = Authenticate(context); !s.ok())
    return FinishWith(context, s);
  absl::StatusOr<RoundEstimates> estimates =
      aggregator_->GetEstimates(request->study_id(), request->round_id());
  if (!estimates.ok()) return FinishWith(context, estimates.status());
  response->set_round_id(estimates->round_id);
  response->set_round_state(RoundStateToProto(estimates->state));
  for (const QuestionEstimate& q : estimates->questions) {
    v1::QuestionEstimate* out = response->add_estimates();
    ToProto(q.question_id, ToRelease(q, estimates->confidence), out);
    if (q.shuffled.has_value()) ShuffledToProto(*q.shuffled, out);
  }
  return FinishWith(context, absl::OkStatus());
}

grpc::ServerUnaryReactor* AnalystServiceImpl::GetAgentBudget(
    grpc::CallbackServerContext* context, const v1::GetBudgetRequest* request,
    v1::GetBudgetResponse* response) {
  if (absl::Status s = Authenticate(context); !s.ok())
    return FinishWith(context, s);
  absl::StatusOr<std::vector<LedgerEntry>> ledger =
      aggregator_->GetBudget(request->agent_id(), request->study_id());
  if (!ledger.ok()) return FinishWith(context, ledger.status());
  LedgerToProto(*ledger, response);
  return FinishWith(context, absl::OkStatus());
}

}  // namespace ldp
