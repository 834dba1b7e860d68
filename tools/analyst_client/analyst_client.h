// The analyst's gRPC adapter: the one place the tools (ldp, ldp-loadtest)
// call ldp.v1.AnalystService.
//
// It holds the channel, attaches the analyst's bearer token and a deadline
// to every call, and turns the gRPC status into an absl::Status through
// proto/grpc_convert/grpc_status.h, so callers see one error type and never
// build a ClientContext. The tools print the generated messages as they
// are, so the responses stay protos: this adapter adds no domain mapping.
//
// Thread-safe: the stub and the options are read-only after Connect.
#ifndef LDP_TOOLS_ANALYST_CLIENT_ANALYST_CLIENT_H_
#define LDP_TOOLS_ANALYST_CLIENT_ANALYST_CLIENT_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "grpcpp/channel.h"
#include "grpcpp/security/credentials.h"
#include "proto/ldp/v1/analyst_service.grpc.pb.h"

namespace ldp {

struct AnalystClientOptions {
  // host:port of one ldp-server.
  std::string server{};
  // The analyst token (ldp-server writes it to <db>.analyst_token); sent as
  // "authorization: Bearer <token>" on every call.
  std::string bearer_token{};
  // From ChannelCredentialsFromFiles (client/agent_client/agent_client.h);
  // plaintext credentials when null.
  std::shared_ptr<grpc::ChannelCredentials> credentials{};
  // Deadline of each call.
  absl::Duration timeout = absl::Seconds(30);
  // Deadline of CreateStudy, which plans the study: optimizing a workload
  // strategy the first time can take minutes.
  absl::Duration create_study_timeout = absl::Seconds(30);
  // Largest response accepted, in bytes; 0 = gRPC's default (4 MB).
  // Workload estimates can be far larger (all ranges at N = 1024 are
  // 524,800 answers, about 17 MB).
  int max_receive_message_bytes = 0;
};

class AnalystClient {
 public:
  // Opens a channel to options.server. The channel connects lazily, so an
  // unreachable server shows as UNAVAILABLE on the first call.
  static std::unique_ptr<AnalystClient> Connect(AnalystClientOptions options);
  // Over an existing channel (tests, in-process servers).
  AnalystClient(std::shared_ptr<grpc::Channel> channel,
                AnalystClientOptions options);

  const std::string& server() const { return options_.server; }
  // The token every call carries (`ldp page` checks browsers against it).
  const std::string& bearer_token() const { return options_.bearer_token; }

  absl::StatusOr<v1::Study> CreateStudy(
      const v1::CreateStudyRequest& request) const;
  absl::StatusOr<v1::Study> GetStudy(const v1::GetStudyRequest& request) const;
  absl::StatusOr<v1::ListStudiesResponse> ListStudies(
      const v1::ListStudiesRequest& request) const;
  absl::StatusOr<v1::Round> StartRound(
      const v1::StartRoundRequest& request) const;
  absl::StatusOr<v1::Round> GetRound(const v1::GetRoundRequest& request) const;
  absl::StatusOr<v1::GetEstimatesResponse> GetEstimates(
      const v1::GetEstimatesRequest& request) const;
  absl::StatusOr<v1::GetBudgetResponse> GetAgentBudget(
      const v1::GetBudgetRequest& request) const;

 private:
  // One unary call through `method` with the token and a deadline of
  // `timeout` from now.
  template <typename Request, typename Response, typename Method>
  absl::StatusOr<Response> Call(Method method, const Request& request,
                                absl::Duration timeout) const;

  std::unique_ptr<v1::AnalystService::Stub> stub_;
  AnalystClientOptions options_;
};

}  // namespace ldp

#endif  // LDP_TOOLS_ANALYST_CLIENT_ANALYST_CLIENT_H_
