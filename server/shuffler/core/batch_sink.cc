// Which delivery errors are final; see the header.
#include "server/shuffler/core/batch_sink.h"

namespace ldp {

bool IsPermanentDeliveryError(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kFailedPrecondition:
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kNotFound:
      return true;
    default:
      return false;
  }
}

}  // namespace ldp
