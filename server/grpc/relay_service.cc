// RelayService adapter; see the header.
#include "server/grpc/relay_service.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "proto/convert/report_convert.h"
#include "proto/grpc_convert/byte_buffer.h"
#include "proto/grpc_convert/grpc_status.h"
#include "server/grpc/auth_metadata.h"
#include "server/grpc/call_status.h"

namespace ldp {
namespace {

// Refused before any item is authenticated: the aggregator would refuse the
// batch anyway, after the relay had paid for every token check.
absl::Status BatchTooLarge(const Aggregator& aggregator, int size,
                           const char* what) {
  return absl::InvalidArgumentError(
      absl::StrCat("at most ", aggregator.max_reports_per_call(), " ", what,
                   " per call, got ", size));
}

// Authenticates each relayed report with its own token: consecutive reports
// of one agent (the usual order) are checked once. The tokens are views
// into the request, which outlives the check.
class TokenCheck {
 public:
  explicit TokenCheck(const Aggregator* aggregator) : aggregator_(aggregator) {}
  absl::StatusOr<uint64_t> Agent(std::string_view token) {
    if (!last_token_.empty() && token == last_token_) return last_agent_;
    absl::StatusOr<uint64_t> agent = aggregator_->AuthenticateAgent(token);
    if (agent.ok()) {
      last_token_ = token;
      last_agent_ = *agent;
    }
    return agent;
  }

 private:
  const Aggregator* aggregator_;
  std::string_view last_token_;
  uint64_t last_agent_ = 0;
};

// One batch read, committed, acknowledged; then the next read. Every stream
// runs this loop, and the aggregator's writer commits the batches of all
// streams together (group commit). Messages arrive as raw bytes, parsed
// here: one that is not a RelayUploadRequest, or carries no report, ends
// the stream with INVALID_ARGUMENT (the agent stream's rule).
class RelayUploadReactor final
    : public grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer> {
 public:
  explicit RelayUploadReactor(Aggregator* aggregator)
      : aggregator_(aggregator) {
    StartRead(&raw_request_);
  }

  void OnReadDone(bool ok) override {
    if (!ok) {
      Finish(grpc::Status::OK);
      return;
    }
    if (absl::Status parsed = Parse(); !parsed.ok()) {
      Finish(ToGrpcStatus(parsed));
      return;
    }
    response_.Clear();
    if (request_.reports_size() > aggregator_->max_reports_per_call()) {
      const absl::Status status =
          BatchTooLarge(*aggregator_, request_.reports_size(), "reports");
      for (const v1::RelayedReport& item : request_.reports()) {
        v1::ReportAck* ack = response_.add_acks();
        ack->set_report_id(item.report().report_id());
        SetAck(status, ack);
      }
      Write();
      return;
    }
    std::vector<AgentReport> reports;
    std::vector<int> ack_index;  // the ack each admitted report fills
    reports.reserve(request_.reports_size());
    TokenCheck tokens(aggregator_);
    for (const v1::RelayedReport& item : request_.reports()) {
      const int index = response_.acks_size();
      v1::ReportAck* ack = response_.add_acks();
      ack->set_report_id(item.report().report_id());
      absl::StatusOr<uint64_t> agent = tokens.Agent(item.bearer_token());
      if (!agent.ok()) {
        SetAck(agent.status(), ack);
        continue;
      }
      if (item.report().agent_id() != *agent) {
        SetAck(absl::PermissionDeniedError(absl::StrCat(
                   "report names agent ", item.report().agent_id(),
                   " but its bearer token belongs to agent ", *agent)),
               ack);
        continue;
      }
      absl::StatusOr<TaskReport> report = ReportFromProto(item.report());
      if (!report.ok()) {
        SetAck(report.status(), ack);
        continue;
      }
      reports.push_back({.agent_id = *agent, .report = *std::move(report)});
      ack_index.push_back(index);
    }
    aggregator_->UploadAgentReportsAsync(
        std::move(reports), [this, ack_index = std::move(ack_index)](
                                std::vector<absl::Status> statuses) {
          for (size_t i = 0; i < statuses.size() && i < ack_index.size(); ++i) {
            SetAck(statuses[i], response_.mutable_acks(ack_index[i]));
          }
          Write();
        });
  }

  void OnWriteDone(bool ok) override {
    if (!ok) {
      Finish(grpc::Status(grpc::StatusCode::CANCELLED,
                          "the relay went away before its acks were sent"));
      return;
    }
    StartRead(&raw_request_);
  }

  void OnDone() override { delete this; }

 private:
  absl::Status Parse() {
    RETURN_IF_ERROR(ParseByteBuffer(raw_request_, request_));
    if (request_.reports_size() == 0) {
      return absl::InvalidArgumentError(
          "a RelayUploadRequest must carry at least one report");
    }
    return absl::OkStatus();
  }

  void Write() {
    raw_response_ = MessageToByteBuffer(response_);
    StartWrite(&raw_response_);
  }

  Aggregator* aggregator_;
  grpc::ByteBuffer raw_request_;
  grpc::ByteBuffer raw_response_;
  v1::RelayUploadRequest request_;
  v1::RelayUploadResponse response_;
};

class RejectingRelayUploadReactor final
    : public grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer> {
 public:
  explicit RejectingRelayUploadReactor(const absl::Status& status) {
    Finish(ToGrpcStatus(status));
  }
  void OnDone() override { delete this; }
};

}  // namespace

absl::Status RelayServiceImpl::CheckRelay(
    const grpc::CallbackServerContext& context) const {
  if (options_.require_client_certificate &&
      !HasVerifiedClientCertificate(context)) {
    return absl::UnauthenticatedError(
        "this server requires relays to present a client certificate "
        "(mutual TLS)");
  }
  return absl::OkStatus();
}

grpc::ServerUnaryReactor* RelayServiceImpl::EnrollBatch(
    grpc::CallbackServerContext* context, const v1::EnrollBatchRequest* request,
    v1::EnrollBatchResponse* response) {
  if (absl::Status relay = CheckRelay(*context); !relay.ok()) {
    return FinishWith(context, relay);
  }
  if (absl::Status throttled = ThrottlePeer(options_.enroll_limiter, context);
      !throttled.ok()) {
    return FinishWith(context, throttled);
  }
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  aggregator_->EnrollManyAsync(
      // The aggregator checks the count (1 to max_reports_per_call) and the
      // request id.
      request->enrollment_token(),
      static_cast<int>(std::min<uint32_t>(request->count(), INT32_MAX)),
      {.request_id = request->request_id()},
      [reactor, response](absl::StatusOr<std::vector<Enrollment>> enrolled) {
        if (enrolled.ok()) {
          for (Enrollment& enrollment : *enrolled) {
            v1::EnrollResponse* agent = response->add_agents();
            agent->set_agent_id(enrollment.agent_id);
            agent->mutable_credential()->set_bearer_token(
                std::move(enrollment.bearer_token));
          }
        }
        reactor->Finish(ToGrpcStatus(enrolled.status()));
      });
  return reactor;
}

std::vector<absl::StatusOr<std::vector<TaskAssignment>>>
RelayServiceImpl::PollAll(const v1::GetTasksBatchRequest& request,
                          std::vector<absl::StatusOr<uint64_t>>& agents) {
  std::vector<Aggregator::TaskPoll> polls;
  polls.reserve(request.agents_size());
  agents.reserve(request.agents_size());
  for (const v1::AgentTasksRequest& call : request.agents()) {
    agents.push_back(aggregator_->AuthenticateAgent(call.bearer_token()));
    if (!agents.back().ok()) continue;
    polls.push_back({.agent_id = *agents.back(),
                     .max_tasks = static_cast<int>(
                         std::min<uint32_t>(call.max_tasks(), 1 << 16))});
  }
  return aggregator_->GetTasksMany(polls);
}

uint32_t RelayServiceImpl::QuestionIndex(const TaskAssignment& assignment,
                                         WireBatch& batch) {
  auto [it, added] = batch.index.try_emplace(
      assignment.question.get(),
      static_cast<uint32_t>(batch.response.questions_size()));
  if (added) *batch.response.add_questions() = *wire_questions_.Get(assignment);
  return it->second;
}

grpc::ServerUnaryReactor* RelayServiceImpl::GetTasksBatch(
    grpc::CallbackServerContext* context,
    const v1::GetTasksBatchRequest* request,
    v1::GetTasksBatchResponse* response) {
  if (absl::Status relay = CheckRelay(*context); !relay.ok()) {
    return FinishWith(context, relay);
  }
  if (request->agents_size() > aggregator_->max_reports_per_call()) {
    return FinishWith(
        context, BatchTooLarge(*aggregator_, request->agents_size(), "agents"));
  }
  std::vector<absl::StatusOr<uint64_t>> agents;
  std::vector<absl::StatusOr<std::vector<TaskAssignment>>> polled =
      PollAll(*request, agents);
  WireBatch batch{.response = *response};
  size_t next_poll = 0;
  for (const absl::StatusOr<uint64_t>& agent : agents) {
    v1::AgentTasks* out = response->add_agents();
    const absl::StatusOr<std::vector<TaskAssignment>> tasks =
        agent.ok()
            ? std::move(polled[next_poll++])
            : absl::StatusOr<std::vector<TaskAssignment>>(agent.status());
    if (!tasks.ok()) {
      out->set_code(static_cast<int32_t>(tasks.status().code()));
      out->set_message(std::string(tasks.status().message()));
      continue;
    }
    out->set_agent_id(*agent);
    for (const TaskAssignment& assignment : *tasks) {
      v1::AssignedTask* task = out->add_tasks();
      task->set_question(QuestionIndex(assignment, batch));
      task->set_task_id(assignment.task_id);
      if (!assignment.study->shuffle.has_value()) continue;
      absl::Status shuffle = AttachShuffle(options_.shuffle_tickets, assignment,
                                           wire_questions_.Digest(assignment),
                                           *agent, *task->mutable_shuffle());
      if (!shuffle.ok()) return FinishWith(context, shuffle);
    }
  }
  return FinishWith(context, absl::OkStatus());
}

grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer>*
RelayServiceImpl::UploadReports(grpc::CallbackServerContext* context) {
  if (absl::Status relay = CheckRelay(*context); !relay.ok()) {
    return new RejectingRelayUploadReactor(relay);
  }
  return new RelayUploadReactor(aggregator_);
}

}  // namespace ldp
