// The AnalystService gRPC adapter: checks the analyst credential, turns
// wire study specs into the StudySpec the Aggregator takes, and renders
// studies, rounds and estimates back to wire messages.
#ifndef LDP_SERVER_GRPC_ANALYST_SERVICE_H_
#define LDP_SERVER_GRPC_ANALYST_SERVICE_H_

#include "proto/ldp/v1/analyst_service.grpc.pb.h"
#include "server/core/aggregator.h"

namespace ldp {

// CreateStudy is a raw method: it parses the request itself, so that a spec
// nesting deeper than protobuf reads gets INVALID_ARGUMENT naming the limit
// instead of gRPC's bare deserialization failure.
class AnalystServiceImpl final
    : public v1::AnalystService::WithRawCallbackMethod_CreateStudy<
          v1::AnalystService::CallbackService> {
 public:
  // `aggregator` is not owned and must outlive the service.
  explicit AnalystServiceImpl(Aggregator* aggregator)
      : aggregator_(aggregator) {}

  grpc::ServerUnaryReactor* CreateStudy(grpc::CallbackServerContext* context,
                                        const grpc::ByteBuffer* request,
                                        grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* GetStudy(grpc::CallbackServerContext* context,
                                     const v1::GetStudyRequest* request,
                                     v1::Study* response) override;
  grpc::ServerUnaryReactor* ListStudies(
      grpc::CallbackServerContext* context,
      const v1::ListStudiesRequest* request,
      v1::ListStudiesResponse* response) override;
  grpc::ServerUnaryReactor* StartRound(grpc::CallbackServerContext* context,
                                       const v1::StartRoundRequest* request,
                                       v1::Round* response) override;
  grpc::ServerUnaryReactor* GetRound(grpc::CallbackServerContext* context,
                                     const v1::GetRoundRequest* request,
                                     v1::Round* response) override;
  grpc::ServerUnaryReactor* GetEstimates(
      grpc::CallbackServerContext* context,
      const v1::GetEstimatesRequest* request,
      v1::GetEstimatesResponse* response) override;
  grpc::ServerUnaryReactor* GetAgentBudget(
      grpc::CallbackServerContext* context, const v1::GetBudgetRequest* request,
      v1::GetBudgetResponse* response) override;

 private:
  absl::Status Authenticate(grpc::CallbackServerContext* context) const;

  Aggregator* aggregator_;  // not owned
};

}  // namespace ldp

#endif  // LDP_SERVER_GRPC_ANALYST_SERVICE_H_
