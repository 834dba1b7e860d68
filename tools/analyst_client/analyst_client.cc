#include "tools/analyst_client/analyst_client.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "grpcpp/client_context.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/support/channel_arguments.h"
#include "proto/grpc_convert/grpc_status.h"

namespace ldp {

std::unique_ptr<AnalystClient> AnalystClient::Connect(
    AnalystClientOptions options) {
  grpc::ChannelArguments arguments;
  if (options.max_receive_message_bytes > 0) {
    arguments.SetMaxReceiveMessageSize(options.max_receive_message_bytes);
  }
  std::shared_ptr<grpc::ChannelCredentials> credentials =
      options.credentials != nullptr ? options.credentials
                                     : grpc::InsecureChannelCredentials();
  auto channel =
      grpc::CreateCustomChannel(options.server, credentials, arguments);
  return std::make_unique<AnalystClient>(std::move(channel),
                                         std::move(options));
}

AnalystClient::AnalystClient(std::shared_ptr<grpc::Channel> channel,
                             AnalystClientOptions options)
    : stub_(v1::AnalystService::NewStub(std::move(channel))),
      options_(std::move(options)) {}

template <typename Request, typename Response, typename Method>
absl::StatusOr<Response> AnalystClient::Call(Method method,
                                             const Request& request,
                                             absl::Duration timeout) const {
  grpc::ClientContext context;
  context.AddMetadata("authorization",
                      absl::StrCat("Bearer ", options_.bearer_token));
  context.set_deadline(absl::ToChronoTime(absl::Now() + timeout));
  Response response;
  const grpc::Status status =
      (stub_.get()->*method)(&context, request, &response);
  if (!status.ok()) return FromGrpcStatus(status);
  return response;
}

absl::StatusOr<v1::Study> AnalystClient::CreateStudy(
    const v1::CreateStudyRequest& request) const {
  return Call<v1::CreateStudyRequest, v1::Study>(
      &v1::AnalystService::Stub::CreateStudy, request,
      options_.create_study_timeout);
}

absl::StatusOr<v1::Study> AnalystClient::GetStudy(
    const v1::GetStudyRequest& request) const {
  return Call<v1::GetStudyRequest, v1::Study>(
      &v1::AnalystService::Stub::GetStudy, request, options_.timeout);
}

absl::StatusOr<v1::ListStudiesResponse> AnalystClient::ListStudies(
    const v1::ListStudiesRequest& request) const {
  return Call<v1::ListStudiesRequest, v1::ListStudiesResponse>(
      &v1::AnalystService::Stub::ListStudies, request, options_.timeout);
}

absl::StatusOr<v1::Round> AnalystClient::StartRound(
    const v1::StartRoundRequest& request) const {
  return Call<v1::StartRoundRequest, v1::Round>(
      &v1::AnalystService::Stub::StartRound, request, options_.timeout);
}

absl::StatusOr<v1::Round> AnalystClient::GetRound(
    const v1::GetRoundRequest& request) const {
  return Call<v1::GetRoundRequest, v1::Round>(
      &v1::AnalystService::Stub::GetRound, request, options_.timeout);
}

absl::StatusOr<v1::GetEstimatesResponse> AnalystClient::GetEstimates(
    const v1::GetEstimatesRequest& request) const {
  return Call<v1::GetEstimatesRequest, v1::GetEstimatesResponse>(
      &v1::AnalystService::Stub::GetEstimates, request, options_.timeout);
}

absl::StatusOr<v1::GetBudgetResponse> AnalystClient::GetAgentBudget(
    const v1::GetBudgetRequest& request) const {
  return Call<v1::GetBudgetRequest, v1::GetBudgetResponse>(
      &v1::AnalystService::Stub::GetAgentBudget, request, options_.timeout);
}

}  // namespace ldp
