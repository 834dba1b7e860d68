// What the shuffler batches by: every ShuffleTicket field except agent_id.
//
// Why the whole rest of the ticket, min_batch and deadline included: agents
// whose tickets differ in anything the server chose (another key, another
// question, another minimum) must not share a batch, or a server that
// singles out one agent would learn which payload is its. Such an agent
// only ever makes a batch of one, which is never released.
#ifndef LDP_SERVER_SHUFFLER_CORE_BATCH_KEY_H_
#define LDP_SERVER_SHUFFLER_CORE_BATCH_KEY_H_

#include <cstdint>
#include <string>

#include "absl/random/bit_gen_ref.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "proto/ldp/v1/shuffle_service.pb.h"
#include "proto/ldp/v1/types.pb.h"

namespace ldp {

// Larger minimums are refused: no batch could reach them, and the release
// threshold's arithmetic stays exact far below 2^53.
inline constexpr uint64_t kMaxTicketMinBatch = uint64_t{1} << 40;

struct BatchKey {
  // A canonical encoding of the fields (not protobuf's serialization, which
  // does not promise to be stable): the batch's identity in the database.
  std::string bytes;
  // What the server is told about the batch: the ticket's study, round,
  // task, key id and question digest (no batch_id or count yet).
  v1::ShuffledBatchHeader header;
  absl::Time deadline;
  uint64_t ticket_min_batch = 0;
};

// INVALID_ARGUMENT if the ticket has no valid deadline or an impossible
// min_batch.
absl::StatusOr<BatchKey> BatchKeyOf(const v1::ShuffleTicket& ticket);

// The smallest batch ever released: max(ticket's min_batch, floor).
uint64_t ReleaseMinimum(uint64_t ticket_min_batch, uint64_t floor);

// min + U{0..ceil(min * extra_max_fraction)}, drawn once per batch key so
// that the server cannot tell from a batch's size how many agents it
// needed: Prochlo's randomized threshold.
uint64_t DrawThreshold(uint64_t min, double extra_max_fraction,
                       absl::BitGenRef gen);

// SHA-256 of the payload (enc's length, enc, ciphertext): tells an
// identical retry from a second report while the report is pending.
absl::StatusOr<std::string> PayloadDigest(const v1::SealedPayload& payload);

}  // namespace ldp

#endif  // LDP_SERVER_SHUFFLER_CORE_BATCH_KEY_H_
