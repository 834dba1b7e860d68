// The AgentService gRPC adapter: authenticates the caller, translates wire
// messages to domain types (proto/convert), calls the Aggregator, and maps
// absl statuses to gRPC statuses. No protocol logic lives here.
#ifndef LDP_SERVER_GRPC_AGENT_SERVICE_H_
#define LDP_SERVER_GRPC_AGENT_SERVICE_H_

#include "proto/ldp/v1/agent_service.grpc.pb.h"
#include "server/aggregator.h"

namespace ldp {

class AgentServiceImpl final : public v1::AgentService::CallbackService {
 public:
  // `aggregator` is not owned and must outlive the service.
  explicit AgentServiceImpl(Aggregator* aggregator) : aggregator_(aggregator) {}

  grpc::ServerUnaryReactor* Enroll(grpc::CallbackServerContext* context,
                                   const v1::EnrollRequest* request,
                                   v1::EnrollResponse* response) override;
  grpc::ServerUnaryReactor* GetTasks(grpc::CallbackServerContext* context,
                                     const v1::GetTasksRequest* request,
                                     v1::GetTasksResponse* response) override;
  grpc::ServerReadReactor<v1::UploadReportsRequest>* UploadReports(
      grpc::CallbackServerContext* context,
      v1::UploadReportsResponse* response) override;
  grpc::ServerUnaryReactor* GetBudget(grpc::CallbackServerContext* context,
                                      const v1::GetBudgetRequest* request,
                                      v1::GetBudgetResponse* response) override;

 private:
  // The authenticated agent, checked against the id the request names.
  absl::StatusOr<uint64_t> Authenticate(grpc::CallbackServerContext* context,
                                        uint64_t claimed_agent_id) const;

  Aggregator* aggregator_;  // not owned
};

}  // namespace ldp

#endif  // LDP_SERVER_GRPC_AGENT_SERVICE_H_
