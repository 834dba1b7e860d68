// Delivery over gRPC; see the header.
#include "server/shuffler/grpc/grpc_batch_sink.h"

#include <algorithm>
#include <chrono>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/base/file_text.h"
#include "common/base/status_macros.h"
#include "proto/grpc_convert/grpc_status.h"

namespace ldp {

absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>>
ServerChannelCredentials(const ServerChannelOptions& options) {
  const bool any_file = !options.ca_file.empty() ||
                        !options.client_cert_file.empty() ||
                        !options.client_key_file.empty();
  if (options.insecure) {
    if (any_file) {
      return absl::InvalidArgumentError(
          "--insecure_server_channel_for_testing cannot be combined with "
          "--server_ca, --client_cert or --client_key");
    }
    return grpc::InsecureChannelCredentials();
  }
  if (options.ca_file.empty() || options.client_cert_file.empty() ||
      options.client_key_file.empty()) {
    return absl::InvalidArgumentError(
        "the server channel needs --server_ca, --client_cert and "
        "--client_key (mutual TLS: the server trusts shufflers by their "
        "certificate)");
  }
  grpc::SslCredentialsOptions ssl;
  ASSIGN_OR_RETURN(ssl.pem_root_certs,
                   ReadPemFile(options.ca_file, "--server_ca"));
  ASSIGN_OR_RETURN(ssl.pem_cert_chain,
                   ReadPemFile(options.client_cert_file, "--client_cert"));
  ASSIGN_OR_RETURN(ssl.pem_private_key,
                   ReadPemFile(options.client_key_file, "--client_key"));
  return grpc::SslCredentials(ssl);
}

GrpcBatchSink::GrpcBatchSink(std::shared_ptr<grpc::Channel> channel,
                             const GrpcBatchSinkOptions& options)
    : stub_(v1::ShuffledIngestService::NewStub(std::move(channel))),
      options_(options) {}

absl::StatusOr<std::unique_ptr<GrpcBatchSink>> GrpcBatchSink::Connect(
    const ServerChannelOptions& channel, const GrpcBatchSinkOptions& options) {
  if (channel.target.empty()) {
    return absl::InvalidArgumentError("--server (host:port) is required");
  }
  ASSIGN_OR_RETURN(std::shared_ptr<grpc::ChannelCredentials> credentials,
                   ServerChannelCredentials(channel));
  // Batches of 1000 payloads of a few KiB exceed gRPC's 4 MiB default.
  grpc::ChannelArguments arguments;
  arguments.SetMaxSendMessageSize(-1);
  return std::make_unique<GrpcBatchSink>(
      grpc::CreateCustomChannel(channel.target, credentials, arguments),
      options);
}

absl::StatusOr<DeliveryReceipt> GrpcBatchSink::Deliver(
    const v1::ShuffledBatchHeader& header,
    absl::Span<const v1::SealedPayload> payloads) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() +
                       absl::ToChronoSeconds(options_.call_timeout));
  v1::DeliverBatchResponse response;
  std::unique_ptr<grpc::ClientWriter<v1::DeliverBatchRequest>> writer =
      stub_->DeliverBatch(&context, &response);
  const size_t per_message =
      static_cast<size_t>(std::max(1, options_.max_payloads_per_message));
  size_t next = 0;
  do {
    v1::DeliverBatchRequest request;
    if (next == 0) *request.mutable_header() = header;
    const size_t end = std::min(payloads.size(), next + per_message);
    for (; next < end; ++next) *request.add_payloads() = payloads[next];
    // A refused write means the call ended; Finish says why.
    if (!writer->Write(request)) break;
  } while (next < payloads.size());
  writer->WritesDone();
  const grpc::Status status = writer->Finish();
  if (!status.ok()) return FromGrpcStatus(status);
  return DeliveryReceipt{.accepted = response.accepted(),
                         .not_opened = response.not_opened(),
                         .invalid = response.invalid(),
                         .duplicates = response.duplicates(),
                         .first_error = response.first_error()};
}

}  // namespace ldp
