// The ShufflerService adapter; see the header.
#include "server/shuffler/grpc/shuffler_service.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"

namespace ldp {

grpc::Status ShufflerServiceImpl::Submit(grpc::ServerContext* /*context*/,
                                         const v1::SubmitRequest* request,
                                         v1::SubmitResponse* response) {
  const int n = request->submissions_size();
  if (n == 0 || n > kMaxSubmissionsPerCall) {
    return grpc::Status(
        grpc::StatusCode::INVALID_ARGUMENT,
        absl::StrCat("a Submit call carries 1 to ", kMaxSubmissionsPerCall,
                     " submissions, not ", n));
  }
  const std::vector<absl::Status> statuses =
      shuffler_->Submit(absl::MakeConstSpan(request->submissions().data(), n));
  for (const absl::Status& status : statuses) {
    v1::SubmitAck* ack = response->add_acks();
    ack->set_code(static_cast<int>(status.code()));
    if (!status.ok()) ack->set_message(std::string(status.message()));
  }
  return grpc::Status::OK;
}

}  // namespace ldp
