// Where released batches go: the server's ShuffledIngestService. The core
// defines the interface so that it never sees gRPC; the grpc folder
// implements it over a channel and tests with a fake.
#ifndef LDP_SERVER_SHUFFLER_CORE_BATCH_SINK_H_
#define LDP_SERVER_SHUFFLER_CORE_BATCH_SINK_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "proto/ldp/v1/shuffle_service.pb.h"
#include "proto/ldp/v1/types.pb.h"

namespace ldp {

// The server's answer to a delivered batch (DeliverBatchResponse).
struct DeliveryReceipt {
  uint64_t accepted = 0;
  uint64_t not_opened = 0;
  uint64_t invalid = 0;
  uint64_t duplicates = 0;
  std::string first_error;
};

class BatchSink {
 public:
  virtual ~BatchSink() = default;
  // Delivers one whole batch, payloads in the shuffler's permuted order;
  // header.num_reports == payloads.size(). A retry carries the same
  // header.batch_id, so the server stores a batch at most once. Errors are
  // the server's status codes (shuffle_service.proto, DeliverBatch), or
  // UNAVAILABLE / DEADLINE_EXCEEDED when it could not be reached. Called
  // from one thread at a time.
  virtual absl::StatusOr<DeliveryReceipt> Deliver(
      const v1::ShuffledBatchHeader& header,
      absl::Span<const v1::SealedPayload> payloads) = 0;
};

// What one delivery attempt of the oldest outbox batch came to (an error
// instead: it failed and the batch stays for a retry, same batch_id).
enum class DeliveryOutcome {
  kIdle,       // the outbox is empty
  kDelivered,  // the server took it; it left the outbox
  kDropped,    // the server refused it for good; logged, counted, left
};

// Whether a delivery error is final: the server looked at the batch and
// refused it (FAILED_PRECONDITION, INVALID_ARGUMENT, NOT_FOUND), so a
// retry can only be refused again. Everything else, PERMISSION_DENIED
// included (a certificate or trust list the operator can still fix), is
// retried.
bool IsPermanentDeliveryError(const absl::Status& status);

}  // namespace ldp

#endif  // LDP_SERVER_SHUFFLER_CORE_BATCH_SINK_H_
