// The real ldp-server as a child process; see the header.
#include "tests/integration/server_process.h"

#include <stdlib.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/strip.h"
#include "absl/time/time.h"
#include "common/base/status_macros.h"
#include "grpcpp/grpcpp.h"
#include "proto/grpc_convert/grpc_status.h"

#ifndef LDP_SERVER_BINARY
#error "LDP_SERVER_BINARY must name the ldp-server executable"
#endif

namespace ldp::testing {

ServerProcess::ServerProcess(std::vector<std::string> extra_flags)
    : extra_flags_(std::move(extra_flags)) {
  char pattern[] = "/tmp/ldp-it-XXXXXX";
  directory_ = mkdtemp(pattern);
}

ServerProcess::~ServerProcess() {
  Kill();
  std::error_code ignored;
  std::filesystem::remove_all(directory_, ignored);
}

absl::Status ServerProcess::Start() {
  const std::string port_file = directory_ + "/port";
  std::filesystem::remove(port_file);
  std::vector<std::string> args = {
      LDP_SERVER_BINARY, "--db=" + directory_ + "/ldp.db",
      // A restart keeps the port, so agents' channels reconnect to it.
      "--port=" + std::to_string(port_), "--port_file=" + port_file,
      // Tests stop servers often; only the drain tests want the 5 s drain
      // (a later --drain_seconds in extra_flags_ wins).
      "--drain_seconds=0"};
  args.insert(args.end(), extra_flags_.begin(), extra_flags_.end());
  RETURN_IF_ERROR(process_.Spawn(std::move(args), directory_ + "/server.log"));
  ASSIGN_OR_RETURN(port_, process_.WaitForPort(port_file));
  return absl::OkStatus();
}

void ServerProcess::Stop() { process_.Stop(); }

void ServerProcess::Kill() { process_.Kill(); }

void ServerProcess::SendSignal(int signal) { process_.Signal(signal); }

absl::StatusOr<int> ServerProcess::WaitForExit(
    std::chrono::milliseconds timeout) {
  if (!process_.HasChild()) {
    return absl::FailedPreconditionError("ldp-server is not running");
  }
  std::optional<int> status = process_.Wait(absl::FromChrono(timeout));
  if (!status.has_value()) {
    return absl::DeadlineExceededError("ldp-server is still running");
  }
  return *status;
}

std::shared_ptr<grpc::Channel> ServerProcess::NewChannel() const {
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel =
      NewChannel(channel_tls_);
  // Readable TLS files are the test's own setup: stop loudly if they are not.
  if (!channel.ok()) {
    std::fprintf(stderr, "ServerProcess: %s\n",
                 channel.status().ToString().c_str());
    std::abort();
  }
  return *channel;
}

absl::StatusOr<std::shared_ptr<grpc::Channel>> ServerProcess::NewChannel(
    const ClientTlsFiles& tls) const {
  absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> credentials =
      ChannelCredentialsFromFiles(tls);
  if (!credentials.ok()) return credentials.status();
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL,
              1);  // a connection per channel
  return grpc::CreateCustomChannel(address(), *credentials, args);
}

std::string ServerProcess::analyst_token() const {
  return std::string(absl::StripAsciiWhitespace(
      ReadFileOrEmpty(directory_ + "/ldp.db.analyst_token")));
}

AgentClientOptions SimulatedAgentOptions(const ServerProcess& server,
                                         int max_attempts) {
  return {.max_attempts = max_attempts,
          .send_window = absl::ZeroDuration(),
          .sleep = [&server](absl::Duration delay) {
            if (server.Alive()) absl::SleepFor(delay);
          }};
}

AnalystClient::AnalystClient(const ServerProcess& server)
    : stub_(v1::AnalystService::NewStub(server.NewChannel())),
      token_(server.analyst_token()) {}

template <typename Request, typename Response, typename Method>
absl::StatusOr<Response> AnalystClient::Call(Method method,
                                             const Request& request) {
  grpc::ClientContext context;
  context.AddMetadata("authorization", "Bearer " + token_);
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::seconds(30));
  Response response;
  const grpc::Status status =
      (stub_.get()->*method)(&context, request, &response);
  if (!status.ok()) return FromGrpcStatus(status);
  return response;
}

absl::StatusOr<v1::Study> AnalystClient::CreateStudy(
    const v1::StudySpec& spec) {
  v1::CreateStudyRequest request;
  *request.mutable_spec() = spec;
  return Call<v1::CreateStudyRequest, v1::Study>(
      &v1::AnalystService::Stub::CreateStudy, request);
}

absl::StatusOr<v1::GetEstimatesResponse> AnalystClient::GetEstimates(
    uint64_t study_id) {
  v1::GetEstimatesRequest request;
  request.set_study_id(study_id);
  return Call<v1::GetEstimatesRequest, v1::GetEstimatesResponse>(
      &v1::AnalystService::Stub::GetEstimates, request);
}

absl::StatusOr<v1::Study> AnalystClient::GetStudy(uint64_t study_id) {
  v1::GetStudyRequest request;
  request.set_study_id(study_id);
  return Call<v1::GetStudyRequest, v1::Study>(
      &v1::AnalystService::Stub::GetStudy, request);
}

absl::StatusOr<v1::GetBudgetResponse> AnalystClient::GetAgentBudget(
    uint64_t agent_id) {
  v1::GetBudgetRequest request;
  request.set_agent_id(agent_id);
  return Call<v1::GetBudgetRequest, v1::GetBudgetResponse>(
      &v1::AnalystService::Stub::GetAgentBudget, request);
}

absl::StatusOr<v1::Round> AnalystClient::StartRound(uint64_t study_id) {
  v1::StartRoundRequest request;
  request.set_study_id(study_id);
  return Call<v1::StartRoundRequest, v1::Round>(
      &v1::AnalystService::Stub::StartRound, request);
}

}  // namespace ldp::testing
