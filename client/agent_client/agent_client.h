// The agent's gRPC adapter: moves Agent's tasks and reports over the
// ldp.v1.AgentService wire, and a shuffled study's sealed reports to the
// agent's own shuffler (ldp.v1.ShufflerService), and nothing else.
//
// All protocol decisions (validation, budget, memo, what to send) live in
// Agent (agent.h); this class only translates messages
// (ldp::proto_convert), attaches the bearer credential, splits uploads into
// batches, and retries transient failures with exponential backoff. A
// retry resends the SAME report messages: each report is serialized once
// from what the Agent saved, so its bytes (and its report_id, the server's
// idempotency key) never change between attempts or across restarts
// (DESIGN invariant 5). Sealed reports are sealed once, when the Agent
// saves them, and resent as saved too; the shuffler answers an identical
// retry OK. The shuffler gets no credential: the signed ticket inside each
// submission is one, and the bearer token is a secret between the agent
// and its server. Generated types do not escape this class.
//
// Thread-compatible; the stub may be shared by many clients.
#ifndef LDP_CLIENT_AGENT_CLIENT_AGENT_CLIENT_H_
#define LDP_CLIENT_AGENT_CLIENT_AGENT_CLIENT_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/random/bit_gen_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "client/agent_wire/task_batch.h"
#include "client/core/agent.h"
#include "client/core/retry.h"
#include "grpcpp/channel.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/security/credentials.h"
#include "proto/ldp/v1/agent_service.grpc.pb.h"
#include "proto/ldp/v1/shuffle_service.grpc.pb.h"

namespace ldp {

// PEM files for a client's channel (ldp-agent, ldp, ldp-loadtest, tests).
struct ClientTlsFiles {
  // CA certificate(s) the server's certificate must chain to; empty with a
  // client certificate = the system's roots.
  std::string ca_file{};
  // Both or neither: a client certificate and its key, for servers that
  // require mutual TLS.
  std::string cert_file{};
  std::string key_file{};
};

// Plaintext credentials when no file is named (loopback and testing only);
// SSL credentials otherwise. InvalidArgument for a certificate without its
// key (or the reverse) or a file that is not PEM; NotFound or
// PermissionDenied naming the flag and file that cannot be read.
absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>>
ChannelCredentialsFromFiles(const ClientTlsFiles& files);

// What Enroll hands back; the agent keeps it (the token is a secret).
struct AgentCredential {
  uint64_t agent_id = 0;
  std::string bearer_token{};
};

// The pieces of AgentClient's calls for a caller that makes the same calls
// itself, on gRPC's callback API (ldp-loadtest --in_flight):
//
// The task poll's method, called raw (raw_call.h) so that the agent parses
// the answer itself (task_batch.h).
inline constexpr char kGetTasksMethod[] = "/ldp.v1.AgentService/GetTasks";
// A context for one AgentService call: its deadline `timeout` from now and,
// when `bearer_token` is not empty, the agent's credential.
std::unique_ptr<grpc::ClientContext> AgentCallContext(
    absl::string_view bearer_token, absl::Duration timeout);
// A request id for one enrollment (EnrollRequest.request_id): 32 bytes
// from the system CSPRNG. Draw it once per enrollment and send it on every
// try, so a retry after a lost reply gets the agent the first try made;
// keep it as secret as the credential (the bearer token derives from it).
absl::StatusOr<std::string> NewEnrollmentRequestId();
// The credential an Enroll answer carries; UNIMPLEMENTED when it holds no
// bearer token (this client supports no other kind).
absl::StatusOr<AgentCredential> CredentialFromEnrollment(
    const v1::EnrollResponse& response);

struct AgentClientOptions {
  // Upload batch limits (the wire allows ≤ 1000 reports and 64 KiB).
  int max_reports_per_batch = 1000;
  int64_t max_batch_bytes = 64 * 1024;
  // Tries per call including the first (≥ 1); transient failures only.
  int max_attempts = 8;
  BackoffOptions backoff{};
  // Deadline of each RPC attempt (> 0).
  absl::Duration rpc_timeout = absl::Seconds(30);
  // Tasks asked for per poll; 0 = the server's default.
  uint32_t max_tasks = 0;
  // Reports leave at a moment drawn uniformly from [W/2, W] after the poll
  // returned, never when their computation ends (DESIGN invariant 8).
  // Zero only for simulations whose timing nobody observes.
  absl::Duration send_window = absl::Seconds(2);
  // Waits (between tries, and for the send slot); absl::SleepFor if unset
  // (tests record instead).
  std::function<void(absl::Duration)> sleep{};
};

// What one RunOnce did.
struct CycleResult {
  // Whether polling for tasks worked (pending reports are uploaded anyway).
  absl::Status poll_status;
  int tasks_received = 0;
  int answered_fresh = 0;
  int answered_from_memo = 0;
  int answered_again = 0;  // tasks seen before (AnswerSource::kStored)
  // One status per refused task (malformed or refused by the Agent).
  std::vector<absl::Status> refusals;
  int reports_sent = 0;  // includes resends of pending reports
  int reports_accepted = 0;
  // Final non-OK acks (the agent will not resend these).
  std::vector<absl::Status> rejections;
  // Whether the upload got through; if not, reports stay pending.
  absl::Status upload_status;
  // The same for shuffled tasks' sealed reports and the agent's shuffler
  // (ALREADY_EXISTS counts as accepted: an earlier try got through).
  int sealed_sent = 0;
  int sealed_accepted = 0;
  std::vector<absl::Status> shuffler_rejections;
  absl::Status submit_status;
  absl::Duration poll_after = absl::ZeroDuration();
};

class AgentClient {
 public:
  // InvalidArgument for bad options or a null stub. `gen` only jitters
  // backoff delays; it must outlive the client.
  static absl::StatusOr<std::unique_ptr<AgentClient>> Create(
      const AgentClientOptions& options,
      std::shared_ptr<v1::AgentService::StubInterface> stub,
      absl::BitGenRef gen);
  // As above over a channel (e.g. grpc::CreateChannel(...)).
  static absl::StatusOr<std::unique_ptr<AgentClient>> CreateForChannel(
      const AgentClientOptions& options, std::shared_ptr<grpc::Channel> channel,
      absl::BitGenRef gen);

  // Exchanges an enrollment token for an id and bearer token and starts
  // using them. Every try sends `request_id` (NewEnrollmentRequestId), so
  // retries never enroll a second agent; a caller that may try again after
  // this returns (a crash, a failed run) keeps the id and passes it again.
  absl::StatusOr<AgentCredential> Enroll(absl::string_view enrollment_token,
                                         absl::string_view request_id);
  // As above with an id drawn for this call: its own retries are safe.
  absl::StatusOr<AgentCredential> Enroll(absl::string_view enrollment_token);
  // Uses an earlier enrollment's credential.
  void set_credential(AgentCredential credential) {
    credential_ = std::move(credential);
  }
  const AgentCredential& credential() const { return credential_; }
  // The agent's own shuffler (ldp-agent --shuffler). Without one, GetTasks
  // refuses shuffled studies' tasks, and sealed reports an earlier run left
  // pending stay pending.
  void set_shuffler(std::shared_ptr<v1::ShufflerService::StubInterface> stub) {
    shuffler_ = std::move(stub);
  }

  // Polls the agent's open tasks.
  absl::StatusOr<TaskBatch> GetTasks();
  // The cap the server's ledger states for a study; nullopt if the server
  // has no entry yet.
  absl::StatusOr<std::optional<int64_t>> StudyCap(uint64_t study_id);
  // Uploads `reports` (batched, retried); one final or transient status per
  // report, in order. Errors only if no attempt got an answer.
  absl::StatusOr<std::vector<absl::Status>> Upload(
      absl::Span<const TaskReport> reports);

  // Submits sealed reports to the shuffler (batched, retried); one final
  // or transient status per report, in order. FailedPrecondition without
  // a shuffler; other errors only if no attempt got an answer.
  absl::StatusOr<std::vector<absl::Status>> Submit(
      absl::Span<const SealedReport> reports);

  // One cycle: poll tasks, let `agent` answer each (the agent saves before
  // anything is sent), upload every pending report to the server and
  // submit every pending sealed report to the shuffler, in the same send
  // slot, and record the acks.
  CycleResult RunOnce(Agent& agent);

 private:
  AgentClient(const AgentClientOptions& options,
              std::shared_ptr<v1::AgentService::StubInterface> stub,
              absl::BitGenRef gen)
      : options_(options), stub_(std::move(stub)), gen_(gen) {}

  // Runs `attempt` until it returns a non-transient status or attempts run
  // out, sleeping with backoff in between.
  absl::Status WithRetries(const std::function<absl::Status()>& attempt);
  std::unique_ptr<grpc::ClientContext> NewContext() const;
  // One poll's response bytes (raw over a channel; re-serialized from a
  // stub's message otherwise, so both decode the same way).
  absl::Status FetchTasks(const v1::GetTasksRequest& request,
                          std::string* response);
  absl::Status UploadOnce(const std::vector<v1::UploadReportsRequest>& batches,
                          v1::UploadReportsResponse* response);
  absl::Status SubmitOnce(const std::vector<v1::SubmitRequest>& batches,
                          std::vector<v1::SubmitResponse>* responses);
  void AnswerTasks(Agent& agent, const TaskBatch& batch, CycleResult& result);
  using Verdicts = std::vector<std::pair<uint64_t, absl::Status>>;
  void SendToServer(const std::vector<TaskReport>& reports, CycleResult& result,
                    Verdicts& verdicts);
  void SendToShuffler(const std::vector<SealedReport>& reports,
                      CycleResult& result, Verdicts& verdicts);
  void WaitForSendSlot(absl::Time polled);

  AgentClientOptions options_;
  std::shared_ptr<v1::AgentService::StubInterface> stub_;
  // Over a channel: the task poll goes raw (see task_batch.h). Null for a
  // client made from a stub.
  std::unique_ptr<grpc::GenericStub> raw_;
  absl::BitGenRef gen_;
  AgentCredential credential_;
  std::shared_ptr<v1::ShufflerService::StubInterface> shuffler_;
};

}  // namespace ldp

#endif  // LDP_CLIENT_AGENT_CLIENT_AGENT_CLIENT_H_
