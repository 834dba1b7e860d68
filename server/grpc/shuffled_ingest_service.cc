// ShuffledIngestService; see the header.
#include "server/grpc/shuffled_ingest_service.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "grpcpp/security/auth_context.h"
#include "proto/grpc_convert/grpc_status.h"
#include "server/grpc/shuffled_batch_opener.h"

namespace ldp {
namespace {

absl::Status CheckShuffler(const grpc::CallbackServerContext& context,
                           const std::vector<std::string>& trusted) {
  const std::shared_ptr<const grpc::AuthContext> auth = context.auth_context();
  if (auth != nullptr) {
    for (const grpc::string_ref& name :
         auth->FindPropertyValues("x509_common_name")) {
      const std::string cn(name.data(), name.size());
      if (std::find(trusted.begin(), trusted.end(), cn) != trusted.end()) {
        return absl::OkStatus();
      }
    }
  }
  return absl::PermissionDeniedError(
      "only a trusted shuffler may deliver batches: present a client "
      "certificate whose common name is in the server's "
      "--trusted_shufflers");
}

// Reads the whole stream (header first, payloads up to its count), then
// opens the batch and hands it to the aggregator; the answer comes once
// the batch is durable. Opening runs on the gRPC thread that read the last
// message: a batch is one call per shuffler and round question.
class DeliverReactor final
    : public grpc::ServerReadReactor<v1::DeliverBatchRequest> {
 public:
  DeliverReactor(Aggregator* aggregator, const ShuffleKeyring* keys,
                 uint64_t max_reports, v1::DeliverBatchResponse* response)
      : aggregator_(aggregator),
        keys_(keys),
        max_reports_(max_reports),
        response_(response) {
    StartRead(&request_);
  }

  void OnReadDone(bool ok) override {
    if (!ok) return Deliver();
    if (absl::Status taken = Take(); !taken.ok()) {
      return Finish(ToGrpcStatus(taken));
    }
    request_.Clear();
    StartRead(&request_);
  }

  void OnDone() override { delete this; }

 private:
  absl::Status Take() {
    if (request_.has_header()) {
      if (has_header_) {
        return absl::InvalidArgumentError("a second header in one batch");
      }
      header_ = request_.header();
      has_header_ = true;
      if (header_.num_reports() > max_reports_) {
        return absl::InvalidArgumentError(
            absl::StrCat("a batch holds at most ", max_reports_,
                         " payloads, the header says ", header_.num_reports()));
      }
    }
    if (!has_header_) {
      return absl::InvalidArgumentError(
          "the first message of a batch must carry its header");
    }
    if (request_.payloads_size() > 1000 ||
        payloads_.size() + request_.payloads_size() > header_.num_reports()) {
      return absl::InvalidArgumentError(
          "more payloads than the header's num_reports, or over 1000 in "
          "one message");
    }
    for (v1::SealedPayload& payload : *request_.mutable_payloads()) {
      payloads_.push_back(std::move(payload));
    }
    return absl::OkStatus();
  }

  void Deliver() {
    if (!has_header_ || payloads_.size() != header_.num_reports()) {
      return Finish(ToGrpcStatus(absl::InvalidArgumentError(absl::StrCat(
          "the stream ended with ", payloads_.size(),
          " payloads; its header promised ", header_.num_reports()))));
    }
    absl::StatusOr<ShuffledBatch> batch =
        OpenShuffledBatch(*aggregator_, *keys_, header_, payloads_);
    payloads_.clear();
    if (!batch.ok()) return Finish(ToGrpcStatus(batch.status()));
    aggregator_->DeliverShuffledBatchAsync(
        *std::move(batch),
        [this](absl::StatusOr<ShuffledBatchOutcome> outcome) {
          if (!outcome.ok()) return Finish(ToGrpcStatus(outcome.status()));
          response_->set_accepted(outcome->accepted);
          response_->set_not_opened(outcome->not_opened);
          response_->set_invalid(outcome->invalid);
          response_->set_duplicates(outcome->duplicates);
          response_->set_first_error(outcome->first_error);
          Finish(grpc::Status::OK);
        });
  }

  Aggregator* aggregator_;
  const ShuffleKeyring* keys_;
  const uint64_t max_reports_;
  v1::DeliverBatchResponse* response_;
  v1::DeliverBatchRequest request_;
  bool has_header_ = false;
  v1::ShuffledBatchHeader header_;
  std::vector<v1::SealedPayload> payloads_;
};

class RefusingReactor final
    : public grpc::ServerReadReactor<v1::DeliverBatchRequest> {
 public:
  explicit RefusingReactor(const absl::Status& status) {
    Finish(ToGrpcStatus(status));
  }
  void OnDone() override { delete this; }
};

}  // namespace

grpc::ServerReadReactor<v1::DeliverBatchRequest>*
ShuffledIngestServiceImpl::DeliverBatch(grpc::CallbackServerContext* context,
                                        v1::DeliverBatchResponse* response) {
  if (absl::Status trusted =
          CheckShuffler(*context, options_.trusted_shufflers);
      !trusted.ok()) {
    return new RefusingReactor(trusted);
  }
  return new DeliverReactor(aggregator_, keys_, options_.max_batch_reports,
                            response);
}

}  // namespace ldp
