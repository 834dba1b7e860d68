// AgentService adapter; see the header.
#include "server/grpc/agent_service.h"

#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "proto/convert/upload_batch.h"
#include "proto/grpc_convert/byte_buffer.h"
#include "proto/grpc_convert/grpc_status.h"
#include "server/grpc/auth_metadata.h"
#include "server/grpc/call_status.h"
#include "server/grpc/ledger_proto.h"

namespace ldp {
namespace {

// Reads batches one at a time, as raw bytes parsed here: a message that is
// not an UploadReportsRequest ends the stream with INVALID_ARGUMENT. Each
// batch is committed (group commit across all streams) before the next is
// read, so acks are final and in order. Each batch costs the agent one
// rate-limit token; a batch over the limit ends the stream with
// RESOURCE_EXHAUSTED, and the agent resends the unacked reports later
// (identical retries are never charged twice).
class UploadReactor final : public grpc::ServerReadReactor<grpc::ByteBuffer> {
 public:
  UploadReactor(Aggregator* aggregator, uint64_t agent_id, RateLimiter* limiter,
                grpc::CallbackServerContext* context,
                grpc::ByteBuffer* response)
      : aggregator_(aggregator),
        agent_id_(agent_id),
        limiter_(limiter),
        context_(context),
        response_(response) {
    StartRead(&request_);
  }

  void OnReadDone(bool ok) override {
    if (!ok) {  // the agent closed its side: every batch is acked
      *response_ = MessageToByteBuffer(acks_);
      Finish(grpc::Status::OK);
      return;
    }
    if (absl::Status throttled =
            Throttle(limiter_, absl::StrCat(agent_id_),
                     absl::StrCat("agent ", agent_id_), context_);
        !throttled.ok()) {
      Finish(ToGrpcStatus(throttled));
      return;
    }
    absl::StatusOr<UploadBatch> batch = Decode();
    if (!batch.ok()) {
      Finish(ToGrpcStatus(batch.status()));
      return;
    }
    Ingest(*std::move(batch));
  }

  void OnDone() override { delete this; }

 private:
  // The batch just read, parsed straight from gRPC's buffer.
  absl::StatusOr<UploadBatch> Decode() const {
    v1::UploadReportsRequest request;
    RETURN_IF_ERROR(ParseByteBuffer(request_, request));
    return DecodeUploadBatch(request, agent_id_);
  }

  // Acks every refused report now and the rest once committed, then reads
  // the next batch.
  void Ingest(UploadBatch batch) {
    std::vector<TaskReport> reports;
    std::vector<int> ack_index;  // the ack each valid report fills
    for (UploadBatch::Entry& entry : batch.entries) {
      const int index = acks_.acks_size();
      v1::ReportAck* ack = acks_.add_acks();
      ack->set_report_id(std::move(entry.report_id));
      if (!entry.report.ok()) {
        SetAck(entry.report.status(), ack);
        continue;
      }
      reports.push_back(*std::move(entry.report));
      ack_index.push_back(index);
    }
    aggregator_->UploadReportsAsync(
        agent_id_, std::move(reports),
        [this,
         ack_index = std::move(ack_index)](std::vector<absl::Status> statuses) {
          for (size_t i = 0; i < statuses.size() && i < ack_index.size(); ++i) {
            SetAck(statuses[i], acks_.mutable_acks(ack_index[i]));
          }
          StartRead(&request_);
        });
  }

  Aggregator* aggregator_;
  const uint64_t agent_id_;
  RateLimiter* limiter_;                  // may be null
  grpc::CallbackServerContext* context_;  // outlives the reactor's work
  grpc::ByteBuffer* response_;
  grpc::ByteBuffer request_;
  v1::UploadReportsResponse acks_;
};

class RejectingUploadReactor final
    : public grpc::ServerReadReactor<grpc::ByteBuffer> {
 public:
  explicit RejectingUploadReactor(const absl::Status& status) {
    Finish(ToGrpcStatus(status));
  }
  void OnDone() override { delete this; }
};

}  // namespace

absl::StatusOr<uint64_t> AgentServiceImpl::Authenticate(
    grpc::CallbackServerContext* context, uint64_t claimed_agent_id,
    bool charge) const {
  if (options_.require_client_certificate &&
      !HasVerifiedClientCertificate(*context)) {
    return absl::UnauthenticatedError(
        "this server requires agents to present a client certificate "
        "(mutual TLS): configure the agent's --tls_cert_file and "
        "--tls_key_file");
  }
  absl::StatusOr<std::string_view> token = BearerToken(*context);
  if (!token.ok()) return token.status();
  absl::StatusOr<uint64_t> agent = aggregator_->AuthenticateAgent(*token);
  if (!agent.ok()) return agent.status();
  if (claimed_agent_id != 0 && claimed_agent_id != *agent) {
    return absl::PermissionDeniedError(
        absl::StrCat("request names agent ", claimed_agent_id,
                     " but the credential belongs to agent ", *agent));
  }
  if (charge) {
    RETURN_IF_ERROR(Throttle(options_.agent_limiter, absl::StrCat(*agent),
                             absl::StrCat("agent ", *agent), context));
  }
  return *agent;
}

grpc::ServerUnaryReactor* AgentServiceImpl::Enroll(
    grpc::CallbackServerContext* context, const v1::EnrollRequest* request,
    v1::EnrollResponse* response) {
  if (options_.require_client_certificate &&
      !HasVerifiedClientCertificate(*context)) {
    return FinishWith(
        context,
        absl::UnauthenticatedError(
            "this server requires agents to present a client certificate "
            "(mutual TLS) to enroll"));
  }
  if (absl::Status throttled = ThrottlePeer(options_.enroll_limiter, context);
      !throttled.ok()) {
    return FinishWith(context, throttled);
  }
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  aggregator_->EnrollAsync(
      request->enrollment_token(),
      {.request_id = request->request_id(), .csr_pem = request->csr_pem()},
      [reactor, response](absl::StatusOr<Enrollment> enrollment) {
        if (enrollment.ok()) {
          response->set_agent_id(enrollment->agent_id);
          response->mutable_credential()->set_bearer_token(
              enrollment->bearer_token);
        }
        reactor->Finish(ToGrpcStatus(enrollment.status()));
      });
  return reactor;
}

grpc::ServerUnaryReactor* AgentServiceImpl::GetTasks(
    grpc::CallbackServerContext* context, const v1::GetTasksRequest* request,
    v1::GetTasksResponse* response) {
  absl::StatusOr<uint64_t> agent =
      Authenticate(context, request->agent_id(), /*charge=*/true);
  if (!agent.ok()) return FinishWith(context, agent.status());
  absl::StatusOr<std::vector<TaskAssignment>> tasks = aggregator_->GetTasks(
      *agent,
      static_cast<int>(std::min<uint32_t>(request->max_tasks(), 1 << 16)));
  if (!tasks.ok()) return FinishWith(context, tasks.status());
  for (const TaskAssignment& assignment : *tasks) {
    v1::Task* wire = response->add_tasks();
    *wire = *wire_questions_.Get(assignment);
    wire->set_task_id(assignment.task_id);
    if (assignment.study->shuffle.has_value()) {
      absl::Status shuffle = AttachShuffle(options_.shuffle_tickets, assignment,
                                           wire_questions_.Digest(assignment),
                                           *agent, *wire->mutable_shuffle());
      if (!shuffle.ok()) return FinishWith(context, shuffle);
    }
  }
  response->set_poll_after_seconds(tasks->empty() ? 10 : 0);
  return FinishWith(context, absl::OkStatus());
}

grpc::ServerReadReactor<grpc::ByteBuffer>* AgentServiceImpl::UploadReports(
    grpc::CallbackServerContext* context, grpc::ByteBuffer* response) {
  // Charged per batch by the reactor, not per stream.
  absl::StatusOr<uint64_t> agent = Authenticate(context, 0, /*charge=*/false);
  if (!agent.ok()) return new RejectingUploadReactor(agent.status());
  return new UploadReactor(aggregator_, *agent, options_.agent_limiter, context,
                           response);
}

grpc::ServerUnaryReactor* AgentServiceImpl::GetBudget(
    grpc::CallbackServerContext* context, const v1::GetBudgetRequest* request,
    v1::GetBudgetResponse* response) {
  absl::StatusOr<uint64_t> agent =
      Authenticate(context, request->agent_id(), /*charge=*/true);
  if (!agent.ok()) return FinishWith(context, agent.status());
  absl::StatusOr<std::vector<LedgerEntry>> ledger =
      aggregator_->GetBudget(*agent, request->study_id());
  if (!ledger.ok()) return FinishWith(context, ledger.status());
  LedgerToProto(*ledger, response);
  return FinishWith(context, absl::OkStatus());
}

}  // namespace ldp
