// ShuffledIngestService (shuffle_service.proto): trusted shufflers deliver
// batches of sealed, anonymous reports here.
//
// Why trust is by certificate name: a shuffler is another operator's
// service, not an agent. The server's TLS set-up already makes every
// client certificate chain to its client CA; this service then admits
// only the common names it was configured with, so an agent (or anyone
// else the CA signed) cannot pose as a shuffler and release a batch of
// its own making.
#ifndef LDP_SERVER_GRPC_SHUFFLED_INGEST_SERVICE_H_
#define LDP_SERVER_GRPC_SHUFFLED_INGEST_SERVICE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "proto/ldp/v1/shuffle_service.grpc.pb.h"
#include "server/core/aggregator.h"
#include "server/keys/shuffle_keyring.h"

namespace ldp {

struct ShuffledIngestOptions {
  // Certificate common names of the shufflers allowed to deliver.
  std::vector<std::string> trusted_shufflers{};
  // Most payloads one batch may hold (the server holds a batch in memory
  // while it opens it).
  uint64_t max_batch_reports = 10'000'000;
};

class ShuffledIngestServiceImpl final
    : public v1::ShuffledIngestService::CallbackService {
 public:
  // `aggregator` and `keys` outlive the service.
  ShuffledIngestServiceImpl(Aggregator* aggregator, const ShuffleKeyring* keys,
                            ShuffledIngestOptions options)
      : aggregator_(aggregator), keys_(keys), options_(std::move(options)) {}

  grpc::ServerReadReactor<v1::DeliverBatchRequest>* DeliverBatch(
      grpc::CallbackServerContext* context,
      v1::DeliverBatchResponse* response) override;

 private:
  Aggregator* aggregator_;
  const ShuffleKeyring* keys_;
  const ShuffledIngestOptions options_;
};

}  // namespace ldp

#endif  // LDP_SERVER_GRPC_SHUFFLED_INGEST_SERVICE_H_
