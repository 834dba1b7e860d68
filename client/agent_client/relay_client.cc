// RelayClient; see the header.
#include "client/agent_client/relay_client.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "client/agent_wire/shuffled_reports.h"
#include "common/base/status_macros.h"
#include "proto/convert/report_convert.h"
#include "proto/convert/task_convert.h"
#include "proto/grpc_convert/grpc_status.h"

namespace ldp {
namespace {

absl::Status Refusal(uint64_t task_id, const absl::Status& why) {
  return absl::Status(
      why.code(), absl::StrCat("refusing task ", task_id, ": ", why.message()));
}

// The distinct questions of one GetTasksBatch answer, each parsed and
// prepared once for all the agents it goes to.
class BatchQuestions {
 public:
  explicit BatchQuestions(const v1::GetTasksBatchResponse& response)
      : response_(response), prepared_(response.questions_size()) {
    envelopes_.reserve(response.questions_size());
    for (const v1::Task& question : response.questions()) {
      envelopes_.push_back(TaskFromProto(question));
    }
  }

  // One agent's assigned task, or why the agent refuses it. A shuffled one
  // (its shuffle set, or its question's) carries its sealer, or is refused.
  absl::StatusOr<AgentTask> TaskFor(const v1::AssignedTask& assigned,
                                    const ShuffledTaskOptions& shuffle) {
    const uint64_t task_id = assigned.task_id();
    if (assigned.question() >= envelopes_.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat("task ", task_id, " names question ",
                       assigned.question(), " of ", envelopes_.size()));
    }
    const int index = static_cast<int>(assigned.question());
    const absl::StatusOr<TaskEnvelope>& envelope = envelopes_[index];
    if (!envelope.ok()) return Refusal(task_id, envelope.status());
    std::shared_ptr<const PreparedQuestion>& prepared = prepared_[index];
    if (prepared == nullptr) {
      prepared = PreparedQuestion::Prepare(envelope->task, envelope->schema);
    }
    AgentTask task{
        .task = envelope->task,
        .schema = envelope->schema,
        .deadline = envelope->deadline.value_or(absl::InfiniteFuture()),
        .prepared = prepared};
    task.task.task_id = task_id;
    const v1::Task& question = response_.questions(index);
    if (assigned.has_shuffle() || question.has_shuffle()) {
      auto seal = ShuffledTaskSealer(
          question,
          assigned.has_shuffle() ? assigned.shuffle() : question.shuffle(),
          shuffle);
      if (!seal.ok()) return Refusal(task_id, seal.status());
      task.seal = *std::move(seal);
    }
    return task;
  }

 private:
  const v1::GetTasksBatchResponse& response_;
  std::vector<absl::StatusOr<TaskEnvelope>> envelopes_;
  std::vector<std::shared_ptr<const PreparedQuestion>> prepared_;
};

}  // namespace

RelayClient::RelayClient(std::shared_ptr<v1::RelayService::StubInterface> stub,
                         absl::Duration timeout)
    : stub_(std::move(stub)), timeout_(timeout) {}

std::unique_ptr<grpc::ClientContext> RelayClient::NewContext() const {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(absl::ToChronoTime(absl::Now() + timeout_));
  return context;
}

absl::StatusOr<std::vector<RelayedAgent>> RelayClient::EnrollBatch(
    absl::string_view enrollment_token, int count,
    absl::string_view request_id) {
  v1::EnrollBatchRequest request;
  request.set_enrollment_token(std::string(enrollment_token));
  request.set_count(static_cast<uint32_t>(count));
  request.set_request_id(std::string(request_id));
  v1::EnrollBatchResponse response;
  auto context = NewContext();
  const absl::Status status =
      FromGrpcStatus(stub_->EnrollBatch(context.get(), request, &response));
  if (absl::IsUnimplemented(status)) {
    return absl::UnimplementedError(
        "the server does not offer the relay API: start ldp-server with "
        "--relay_service (or use --mode=sessions)");
  }
  RETURN_IF_ERROR(status);
  if (response.agents_size() != count) {
    return absl::InternalError(absl::StrCat("asked for ", count,
                                            " agents, the server enrolled ",
                                            response.agents_size()));
  }
  std::vector<RelayedAgent> agents;
  agents.reserve(count);
  for (const v1::EnrollResponse& agent : response.agents()) {
    agents.push_back({.agent_id = agent.agent_id(),
                      .bearer_token = agent.credential().bearer_token()});
  }
  return agents;
}

absl::StatusOr<std::vector<absl::StatusOr<TaskBatch>>>
RelayClient::GetTasksBatch(const std::vector<const RelayedAgent*>& agents,
                           bool has_shuffler) {
  v1::GetTasksBatchRequest request;
  for (const RelayedAgent* agent : agents) {
    request.add_agents()->set_bearer_token(agent->bearer_token);
  }
  v1::GetTasksBatchResponse response;
  auto context = NewContext();
  RETURN_IF_ERROR(
      FromGrpcStatus(stub_->GetTasksBatch(context.get(), request, &response)));
  if (response.agents_size() != static_cast<int>(agents.size())) {
    return absl::InternalError(absl::StrCat("asked for ", agents.size(),
                                            " agents' tasks, got ",
                                            response.agents_size()));
  }
  BatchQuestions questions(response);
  std::vector<absl::StatusOr<TaskBatch>> batches;
  batches.reserve(agents.size());
  for (size_t i = 0; i < agents.size(); ++i) {
    const v1::AgentTasks& tasks = response.agents(static_cast<int>(i));
    if (tasks.code() != 0) {
      batches.push_back(absl::Status(
          static_cast<absl::StatusCode>(tasks.code()), tasks.message()));
      continue;
    }
    const ShuffledTaskOptions shuffle{.agent_id = agents[i]->agent_id,
                                      .has_shuffler = has_shuffler};
    TaskBatch batch;
    for (const v1::AssignedTask& assigned : tasks.tasks()) {
      absl::StatusOr<AgentTask> task = questions.TaskFor(assigned, shuffle);
      if (task.ok()) {
        batch.tasks.push_back(*std::move(task));
      } else {
        batch.malformed.push_back(task.status());
      }
    }
    batches.push_back(std::move(batch));
  }
  return batches;
}

std::unique_ptr<RelayClient::UploadStream> RelayClient::OpenUploadStream() {
  std::unique_ptr<UploadStream> stream(new UploadStream());
  stream->stream_ = stub_->UploadReports(&stream->context_);
  return stream;
}

RelayClient::UploadStream::~UploadStream() {
  if (!closed_) (void)Close();
}

absl::StatusOr<std::vector<absl::Status>> RelayClient::UploadStream::Send(
    absl::Span<const RelayedTaskReport> reports) {
  v1::RelayUploadRequest request;
  for (const RelayedTaskReport& item : reports) {
    v1::RelayedReport* wire = request.add_reports();
    wire->set_bearer_token(item.agent->bearer_token);
    ReportToProto(item.report, item.agent->agent_id, wire->mutable_report());
  }
  v1::RelayUploadResponse response;
  if (!stream_->Write(request) || !stream_->Read(&response)) {
    absl::Status status = Close();
    if (status.ok()) status = absl::UnavailableError("the upload stream ended");
    return status;
  }
  if (response.acks_size() != static_cast<int>(reports.size())) {
    return absl::InternalError(absl::StrCat("sent ", reports.size(),
                                            " reports, got ",
                                            response.acks_size(), " acks"));
  }
  std::vector<absl::Status> acks;
  acks.reserve(reports.size());
  for (const v1::ReportAck& ack : response.acks()) {
    acks.emplace_back(static_cast<absl::StatusCode>(ack.code()), ack.message());
  }
  return acks;
}

absl::Status RelayClient::UploadStream::Close() {
  if (closed_) return absl::OkStatus();
  closed_ = true;
  stream_->WritesDone();
  v1::RelayUploadResponse ignored;
  while (stream_->Read(&ignored)) {
  }
  return FromGrpcStatus(stream_->Finish());
}

}  // namespace ldp
