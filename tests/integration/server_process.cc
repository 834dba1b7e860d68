// The real ldp-server as a child process; see the header.
#include "tests/integration/server_process.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "grpcpp/grpcpp.h"
#include "proto/grpc_convert/grpc_status.h"

#ifndef LDP_SERVER_BINARY
#error "LDP_SERVER_BINARY must name the ldp-server executable"
#endif

namespace ldp::testing {
namespace {

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

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
  const std::string db = "--db=" + directory_ + "/ldp.db";
  const std::string port_arg = "--port_file=" + port_file;
  // A restart keeps the port, so agents' channels reconnect to it.
  const std::string port_flag = "--port=" + std::to_string(port_);
  const std::string log = directory_ + "/server.log";
  std::vector<std::string> args = {LDP_SERVER_BINARY, db, port_flag, port_arg};
  // Tests stop servers often; only the drain tests want the 5 s drain (a
  // later --drain_seconds in extra_flags_ wins).
  args.push_back("--drain_seconds=0");
  args.insert(args.end(), extra_flags_.begin(), extra_flags_.end());
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  pid_ = fork();
  if (pid_ < 0) return absl::InternalError("fork failed");
  if (pid_ == 0) {
    if (FILE* out = freopen(log.c_str(), "a", stdout)) (void)out;
    if (FILE* err = freopen(log.c_str(), "a", stderr)) (void)err;
    execv(LDP_SERVER_BINARY, argv.data());
    _exit(127);
  }
  for (int i = 0; i < 400; ++i) {
    const std::string text(absl::StripAsciiWhitespace(ReadAll(port_file)));
    if (!text.empty() && text.back() != '\0' && std::stoi(text) > 0) {
      port_ = std::stoi(text);
      return absl::OkStatus();
    }
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return absl::InternalError(
          absl::StrCat("ldp-server exited: ", ReadAll(log)));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return absl::DeadlineExceededError("ldp-server did not start listening");
}

void ServerProcess::Stop() {
  if (pid_ <= 0) return;
  kill(pid_, SIGTERM);
  int status = 0;
  waitpid(pid_, &status, 0);
  pid_ = -1;
}

void ServerProcess::Kill() {
  if (pid_ <= 0) return;
  kill(pid_, SIGKILL);
  int status = 0;
  waitpid(pid_, &status, 0);
  pid_ = -1;
}

void ServerProcess::SendSignal(int signal) {
  if (pid_ > 0) kill(pid_, signal);
}

absl::StatusOr<int> ServerProcess::WaitForExit(
    std::chrono::milliseconds timeout) {
  if (pid_ <= 0)
    return absl::FailedPreconditionError("ldp-server is not running");
  const auto end = std::chrono::steady_clock::now() + timeout;
  do {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return status;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  } while (std::chrono::steady_clock::now() < end);
  return absl::DeadlineExceededError("ldp-server is still running");
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
      ReadAll(directory_ + "/ldp.db.analyst_token")));
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
