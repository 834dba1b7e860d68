// Opening a delivered shuffled batch: the header checked against the
// server's own question and keys, each payload opened, unpadded and
// parsed into a plain report (types.proto, "The shuffle model").
//
// Why a unit of its own: this is where a hostile shuffler's or agent's
// bytes meet the server's keys, so it is tested on its own, without a
// network; the service around it only streams.
#ifndef LDP_SERVER_GRPC_SHUFFLED_BATCH_OPENER_H_
#define LDP_SERVER_GRPC_SHUFFLED_BATCH_OPENER_H_

#include <vector>

#include "absl/status/statusor.h"
#include "proto/ldp/v1/shuffle_service.pb.h"
#include "server/core/aggregator.h"
#include "server/keys/shuffle_keyring.h"

namespace ldp {

// INVALID_ARGUMENT for a malformed header; the aggregator's errors for an
// unknown or closed question (ShuffledQuestion); FAILED_PRECONDITION when
// the key is not one the server keeps or the question digest is not the
// server's for that question (the agents were told another question).
// Payloads that do not open or parse are counted in the batch, not errors.
absl::StatusOr<ShuffledBatch> OpenShuffledBatch(
    const Aggregator& aggregator, const ShuffleKeyring& keys,
    const v1::ShuffledBatchHeader& header,
    const std::vector<v1::SealedPayload>& payloads);

}  // namespace ldp

#endif  // LDP_SERVER_GRPC_SHUFFLED_BATCH_OPENER_H_
