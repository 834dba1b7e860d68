// AgentService stub calls, batching and retries; see the header.
#include "client/agent_client/agent_client.h"

#include <chrono>
#include <cstring>
#include <limits>
#include <map>
#include <utility>

#include "absl/random/distributions.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "client/agent_client/raw_call.h"
#include "client/agent_wire/shuffled_reports.h"
#include "client/agent_wire/upload_batches.h"
#include "common/base/file_text.h"
#include "common/base/status_macros.h"
#include "common/crypto/random_bytes.h"
#include "grpcpp/security/credentials.h"
#include "proto/convert/deterministic_bytes.h"
#include "proto/grpc_convert/grpc_status.h"

namespace ldp {
namespace {

absl::Status ValidateOptions(const AgentClientOptions& options) {
  if (options.max_reports_per_batch < 1 ||
      options.max_reports_per_batch > kMaxWireReportsPerBatch) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_reports_per_batch must be in [1, 1000], got ",
                     options.max_reports_per_batch));
  }
  if (options.max_batch_bytes < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "max_batch_bytes must be > 0, got ", options.max_batch_bytes));
  }
  if (options.max_attempts < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_attempts must be >= 1, got ", options.max_attempts));
  }
  if (!(options.rpc_timeout > absl::ZeroDuration())) {
    return absl::InvalidArgumentError(
        absl::StrCat("rpc_timeout must be > 0, got ",
                     absl::FormatDuration(options.rpc_timeout)));
  }
  return Backoff::Create(options.backoff).status();
}

// Files each report's ack, whichever hop answered: OK counts as accepted,
// a final refusal joins `rejections`, a transient failure neither (the
// report stays pending); every ack joins `verdicts` for the agent.
template <typename Report>
void FileAcks(const std::vector<Report>& reports,
              const std::vector<absl::Status>& acks, int& accepted,
              std::vector<absl::Status>& rejections,
              std::vector<std::pair<uint64_t, absl::Status>>& verdicts) {
  for (size_t i = 0; i < reports.size(); ++i) {
    const absl::Status& ack = acks[i];
    if (ack.ok()) {
      ++accepted;
    } else if (!IsTransient(ack.code())) {
      rejections.push_back(ack);
    }
    verdicts.emplace_back(reports[i].task_id, ack);
  }
}

}  // namespace

absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>>
ChannelCredentialsFromFiles(const ClientTlsFiles& files) {
  if (files.cert_file.empty() != files.key_file.empty()) {
    return absl::InvalidArgumentError(
        "give both --tls_cert_file and --tls_key_file (client certificate "
        "and its key), or neither");
  }
  if (files.ca_file.empty() && files.cert_file.empty()) {
    return grpc::InsecureChannelCredentials();
  }
  grpc::SslCredentialsOptions options;
  if (!files.ca_file.empty()) {
    ASSIGN_OR_RETURN(options.pem_root_certs,
                     ReadPemFile(files.ca_file, "--tls_ca_file"));
  }
  if (!files.cert_file.empty()) {
    ASSIGN_OR_RETURN(options.pem_cert_chain,
                     ReadPemFile(files.cert_file, "--tls_cert_file"));
    ASSIGN_OR_RETURN(options.pem_private_key,
                     ReadPemFile(files.key_file, "--tls_key_file"));
  }
  return grpc::SslCredentials(options);
}

absl::StatusOr<std::unique_ptr<AgentClient>> AgentClient::Create(
    const AgentClientOptions& options,
    std::shared_ptr<v1::AgentService::StubInterface> stub,
    absl::BitGenRef gen) {
  RETURN_IF_ERROR(ValidateOptions(options));
  if (stub == nullptr) return absl::InvalidArgumentError("stub is null");
  return std::unique_ptr<AgentClient>(
      new AgentClient(options, std::move(stub), gen));
}

absl::StatusOr<std::unique_ptr<AgentClient>> AgentClient::CreateForChannel(
    const AgentClientOptions& options, std::shared_ptr<grpc::Channel> channel,
    absl::BitGenRef gen) {
  if (channel == nullptr) return absl::InvalidArgumentError("channel is null");
  ASSIGN_OR_RETURN(std::unique_ptr<AgentClient> client,
                   Create(options, v1::AgentService::NewStub(channel), gen));
  client->raw_ = std::make_unique<grpc::GenericStub>(channel);
  return client;
}

std::unique_ptr<grpc::ClientContext> AgentCallContext(
    absl::string_view bearer_token, absl::Duration timeout) {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(absl::ToChronoTime(absl::Now() + timeout));
  if (!bearer_token.empty()) {
    context->AddMetadata("authorization",
                         absl::StrCat("Bearer ", bearer_token));
  }
  return context;
}

absl::StatusOr<std::string> NewEnrollmentRequestId() {
  std::string id(32, '\0');
  RETURN_IF_ERROR(FillRandomBytes(id.data(), id.size()));
  return id;
}

absl::StatusOr<AgentCredential> CredentialFromEnrollment(
    const v1::EnrollResponse& response) {
  if (!response.credential().has_bearer_token() ||
      response.credential().bearer_token().empty()) {
    return absl::UnimplementedError(
        "the server issued a certificate credential; this client supports "
        "bearer tokens only");
  }
  return AgentCredential{response.agent_id(),
                         response.credential().bearer_token()};
}

std::unique_ptr<grpc::ClientContext> AgentClient::NewContext() const {
  return AgentCallContext(credential_.bearer_token, options_.rpc_timeout);
}

absl::Status AgentClient::WithRetries(
    const std::function<absl::Status()>& attempt) {
  Backoff backoff = *Backoff::Create(options_.backoff);  // validated
  absl::Status status;
  for (int i = 0; i < options_.max_attempts; ++i) {
    if (i > 0) {
      const absl::Duration delay = backoff.NextDelay(gen_);
      options_.sleep ? options_.sleep(delay) : absl::SleepFor(delay);
    }
    status = attempt();
    if (!IsTransient(status.code())) return status;
  }
  return status;
}

absl::StatusOr<AgentCredential> AgentClient::Enroll(
    absl::string_view enrollment_token) {
  ASSIGN_OR_RETURN(const std::string request_id, NewEnrollmentRequestId());
  return Enroll(enrollment_token, request_id);
}

absl::StatusOr<AgentCredential> AgentClient::Enroll(
    absl::string_view enrollment_token, absl::string_view request_id) {
  v1::EnrollRequest request;
  request.set_enrollment_token(std::string(enrollment_token));
  request.set_request_id(std::string(request_id));
  v1::EnrollResponse response;
  RETURN_IF_ERROR(WithRetries([&] {
    auto context = NewContext();
    return FromGrpcStatus(stub_->Enroll(context.get(), request, &response));
  }));
  ASSIGN_OR_RETURN(credential_, CredentialFromEnrollment(response));
  return credential_;
}

absl::StatusOr<TaskBatch> AgentClient::GetTasks() {
  v1::GetTasksRequest request;
  request.set_agent_id(credential_.agent_id);
  request.set_max_tasks(options_.max_tasks);
  std::string response;
  RETURN_IF_ERROR(WithRetries([&] { return FetchTasks(request, &response); }));
  return DecodeTaskBatch(response, {.agent_id = credential_.agent_id,
                                    .has_shuffler = shuffler_ != nullptr});
}

absl::Status AgentClient::FetchTasks(const v1::GetTasksRequest& request,
                                     std::string* response) {
  auto context = NewContext();
  if (raw_ != nullptr) {
    return RawUnaryCall(*raw_, *context, kGetTasksMethod, request, response);
  }
  v1::GetTasksResponse message;
  RETURN_IF_ERROR(
      FromGrpcStatus(stub_->GetTasks(context.get(), request, &message)));
  *response = DeterministicBytes(message);
  return absl::OkStatus();
}

absl::StatusOr<std::optional<int64_t>> AgentClient::StudyCap(
    uint64_t study_id) {
  v1::GetBudgetRequest request;
  request.set_agent_id(credential_.agent_id);
  request.set_study_id(study_id);
  v1::GetBudgetResponse response;
  RETURN_IF_ERROR(WithRetries([&] {
    auto context = NewContext();
    return FromGrpcStatus(stub_->GetBudget(context.get(), request, &response));
  }));
  for (const v1::BudgetEntry& entry : response.entries()) {
    if (entry.study_id() != study_id) continue;
    constexpr uint64_t kMax = std::numeric_limits<int64_t>::max();
    return static_cast<int64_t>(std::min(entry.cap_nanos(), kMax));
  }
  return std::nullopt;
}

absl::Status AgentClient::UploadOnce(
    const std::vector<v1::UploadReportsRequest>& batches,
    v1::UploadReportsResponse* response) {
  response->Clear();
  auto context = NewContext();
  auto writer = stub_->UploadReports(context.get(), response);
  for (const v1::UploadReportsRequest& batch : batches) {
    if (!writer->Write(batch)) break;  // the stream broke; Finish says why
  }
  writer->WritesDone();
  return FromGrpcStatus(writer->Finish());
}

absl::StatusOr<std::vector<absl::Status>> AgentClient::Upload(
    absl::Span<const TaskReport> reports) {
  if (reports.empty()) return std::vector<absl::Status>{};
  const std::vector<v1::UploadReportsRequest> batches = MakeUploadBatches(
      reports, credential_.agent_id,
      {.max_reports_per_batch = options_.max_reports_per_batch,
       .max_batch_bytes = options_.max_batch_bytes});
  v1::UploadReportsResponse response;
  RETURN_IF_ERROR(WithRetries([&] { return UploadOnce(batches, &response); }));
  return AcksToStatuses(response, reports);
}

absl::Status AgentClient::SubmitOnce(
    const std::vector<v1::SubmitRequest>& batches,
    std::vector<v1::SubmitResponse>* responses) {
  responses->clear();
  for (const v1::SubmitRequest& batch : batches) {
    // No bearer token: the shuffler is not the server's to know it.
    auto context = AgentCallContext("", options_.rpc_timeout);
    v1::SubmitResponse response;
    RETURN_IF_ERROR(
        FromGrpcStatus(shuffler_->Submit(context.get(), batch, &response)));
    responses->push_back(std::move(response));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<absl::Status>> AgentClient::Submit(
    absl::Span<const SealedReport> reports) {
  if (shuffler_ == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat(reports.size(),
                     " shuffled report(s) wait for a shuffler; start "
                     "ldp-agent with --shuffler to send them"));
  }
  if (reports.empty()) return std::vector<absl::Status>{};
  ASSIGN_OR_RETURN(
      const std::vector<v1::SubmitRequest> batches,
      MakeSubmitBatches(
          reports, {.max_reports_per_batch = options_.max_reports_per_batch,
                    .max_batch_bytes = options_.max_batch_bytes}));
  std::vector<v1::SubmitResponse> responses;
  RETURN_IF_ERROR(WithRetries([&] { return SubmitOnce(batches, &responses); }));
  std::vector<absl::Status> statuses;
  for (size_t i = 0; i < batches.size(); ++i) {
    ASSIGN_OR_RETURN(
        std::vector<absl::Status> acks,
        SubmitAcksToStatuses(responses[i], batches[i].submissions_size()));
    statuses.insert(statuses.end(), acks.begin(), acks.end());
  }
  return statuses;
}

void AgentClient::AnswerTasks(Agent& agent, const TaskBatch& batch,
                              CycleResult& result) {
  std::map<uint64_t, std::optional<int64_t>> caps;  // per study, this cycle
  std::vector<AgentTask> tasks = batch.tasks;
  for (AgentTask& task : tasks) {
    const uint64_t study = task.task.study_id;
    if (!agent.Budget(study).has_value() && !caps.contains(study)) {
      auto cap = StudyCap(study);
      caps[study] = cap.ok() ? *cap : std::nullopt;
    }
    if (auto it = caps.find(study); it != caps.end() && it->second) {
      task.study_cap_nanos = *it->second;
    }
  }
  for (const auto& answer : agent.AnswerAll(tasks)) {
    if (!answer.ok()) {
      result.refusals.push_back(answer.status());
    } else if (answer->source == AnswerSource::kFresh) {
      ++result.answered_fresh;
    } else if (answer->source == AnswerSource::kMemo) {
      ++result.answered_from_memo;
    } else {
      ++result.answered_again;
    }
  }
}

// Invariant 8: when reports leave must not depend on how long the record's
// answers took, so they wait for a moment drawn (independently of the
// record) in [window/2, window] after the poll returned.
void AgentClient::WaitForSendSlot(absl::Time polled) {
  if (options_.send_window <= absl::ZeroDuration()) return;
  const int64_t window = absl::ToInt64Microseconds(options_.send_window);
  const absl::Time slot =
      polled + absl::Microseconds(absl::Uniform<int64_t>(
                   absl::IntervalClosed, gen_, window / 2, window));
  const absl::Duration wait = slot - absl::Now();
  if (wait <= absl::ZeroDuration()) return;
  options_.sleep ? options_.sleep(wait) : absl::SleepFor(wait);
}

void AgentClient::SendToServer(const std::vector<TaskReport>& reports,
                               CycleResult& result, Verdicts& verdicts) {
  if (reports.empty()) return;
  auto acks = Upload(reports);
  if (!acks.ok()) {
    result.upload_status = acks.status();
    return;
  }
  FileAcks(reports, *acks, result.reports_accepted, result.rejections,
           verdicts);
}

void AgentClient::SendToShuffler(const std::vector<SealedReport>& reports,
                                 CycleResult& result, Verdicts& verdicts) {
  if (reports.empty()) return;
  auto acks = Submit(reports);
  if (!acks.ok()) {
    result.submit_status = acks.status();
    return;
  }
  FileAcks(reports, *acks, result.sealed_accepted, result.shuffler_rejections,
           verdicts);
}

CycleResult AgentClient::RunOnce(Agent& agent) {
  CycleResult result;
  absl::StatusOr<TaskBatch> batch = GetTasks();
  const absl::Time polled = absl::Now();
  if (batch.ok()) {
    result.tasks_received =
        static_cast<int>(batch->tasks.size() + batch->malformed.size());
    result.refusals = batch->malformed;
    result.poll_after = batch->poll_after;
    AnswerTasks(agent, *batch, result);
  } else {
    result.poll_status = batch.status();
  }
  // Everything not yet settled goes out, fresh answers and earlier ones;
  // the server's and the shuffler's in one send slot, so the way a report
  // leaves adds nothing to when it leaves.
  const std::vector<TaskReport> pending = agent.PendingReports();
  const std::vector<SealedReport> sealed = agent.PendingSealed();
  result.reports_sent = static_cast<int>(pending.size());
  result.sealed_sent =
      shuffler_ != nullptr ? static_cast<int>(sealed.size()) : 0;
  if (result.reports_sent > 0 || result.sealed_sent > 0) {
    WaitForSendSlot(polled);
  }
  Verdicts verdicts;
  SendToServer(pending, result, verdicts);
  SendToShuffler(sealed, result, verdicts);
  if (!verdicts.empty()) {
    result.upload_status.Update(agent.RecordAcks(verdicts));
  }
  return result;
}

}  // namespace ldp
