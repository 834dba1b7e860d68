// The BatchSink that delivers to the aggregator's ShuffledIngestService
// over gRPC: one client-streaming DeliverBatch call per attempt, the header
// in the first message, at most max_payloads_per_message payloads in each.
//
// Why mutual TLS by default: the server accepts batches only from the
// shuffler identities it trusts (their client certificates), and the
// payloads, though sealed, should not cross a network in the clear.
#ifndef LDP_SERVER_SHUFFLER_GRPC_GRPC_BATCH_SINK_H_
#define LDP_SERVER_SHUFFLER_GRPC_GRPC_BATCH_SINK_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "grpcpp/grpcpp.h"
#include "proto/ldp/v1/shuffle_service.grpc.pb.h"
#include "server/shuffler/core/batch_sink.h"

namespace ldp {

// How to reach the server. Files are PEM.
struct ServerChannelOptions {
  std::string target{};            // host:port
  std::string ca_file{};           // CA the server's certificate chains to
  std::string client_cert_file{};  // this shuffler's certificate chain
  std::string client_key_file{};
  // Plaintext, for tests and a loopback server only; the files must then
  // be empty.
  bool insecure = false;
};

// The channel credentials the options call for: INVALID_ARGUMENT for an
// incomplete or contradictory set (naming the flags), the file's own error
// for one that cannot be read.
absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>>
ServerChannelCredentials(const ServerChannelOptions& options);

struct GrpcBatchSinkOptions {
  int max_payloads_per_message = 1000;
  // Per DeliverBatch call; a batch that takes longer fails and is retried.
  absl::Duration call_timeout = absl::Minutes(2);
};

class GrpcBatchSink final : public BatchSink {
 public:
  // Over an existing channel (tests pass an in-process one).
  GrpcBatchSink(std::shared_ptr<grpc::Channel> channel,
                const GrpcBatchSinkOptions& options);
  // Over a new channel to options.target.
  static absl::StatusOr<std::unique_ptr<GrpcBatchSink>> Connect(
      const ServerChannelOptions& channel, const GrpcBatchSinkOptions& options);

  absl::StatusOr<DeliveryReceipt> Deliver(
      const v1::ShuffledBatchHeader& header,
      absl::Span<const v1::SealedPayload> payloads) override;

 private:
  std::unique_ptr<v1::ShuffledIngestService::Stub> stub_;
  const GrpcBatchSinkOptions options_;
};

}  // namespace ldp

#endif  // LDP_SERVER_SHUFFLER_GRPC_GRPC_BATCH_SINK_H_
