// ldp.v1.ShufflerService over the shuffler core: a thin adapter, request
// in, one ack per submission out. Everything it decides besides the call's
// shape (1 to 1000 submissions) is the core's.
//
// Why no credential metadata and no peer logging: the signed ticket in each
// submission is the credential, and what the shuffler must not keep is
// who sent what when; the adapter has nothing to add to either.
#ifndef LDP_SERVER_SHUFFLER_GRPC_SHUFFLER_SERVICE_H_
#define LDP_SERVER_SHUFFLER_GRPC_SHUFFLER_SERVICE_H_

#include "grpcpp/grpcpp.h"
#include "proto/ldp/v1/shuffle_service.grpc.pb.h"
#include "server/shuffler/core/shuffler.h"

namespace ldp {

inline constexpr int kMaxSubmissionsPerCall = 1000;

class ShufflerServiceImpl final : public v1::ShufflerService::Service {
 public:
  // `shuffler` must outlive the service.
  explicit ShufflerServiceImpl(Shuffler* shuffler) : shuffler_(shuffler) {}

  grpc::Status Submit(grpc::ServerContext* context,
                      const v1::SubmitRequest* request,
                      v1::SubmitResponse* response) override;

 private:
  Shuffler* const shuffler_;
};

}  // namespace ldp

#endif  // LDP_SERVER_SHUFFLER_GRPC_SHUFFLER_SERVICE_H_
