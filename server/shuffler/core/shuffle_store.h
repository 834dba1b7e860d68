// The shuffler's durable state in one SQLite file: batch keys with their
// drawn thresholds, pending reports, the agents whose report already left,
// and the outbox of released, permuted batches.
//
// Why the tables are shaped as they are: a pending report is the only row
// that holds an agent id beside a payload, and it is deleted (zeroed, with
// secure_delete) in the transaction that copies the payload to the outbox.
// `seen` keeps agent ids alone, in no order tied to the batch, to refuse a
// second report; outbox rows carry no agent id and no arrival time, only
// the permuted position. Nothing here stores when a report arrived.
#ifndef LDP_SERVER_SHUFFLER_CORE_SHUFFLE_STORE_H_
#define LDP_SERVER_SHUFFLER_CORE_SHUFFLE_STORE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "proto/ldp/v1/shuffle_service.pb.h"
#include "proto/ldp/v1/types.pb.h"
#include "server/shuffler/core/batch_key.h"
#include "server/shuffler/core/sqlite_db.h"

namespace ldp::shuffler_internal {

// A batch key's row: what was fixed when it was first seen.
struct KeyRow {
  std::string header;  // serialized ShuffledBatchHeader template
  absl::Time deadline;
  uint64_t min_release = 0;
  uint64_t threshold = 0;
};

// A released batch waiting in the outbox, payloads in permuted order.
struct OutboxBatch {
  int64_t ordinal = 0;  // release order: oldest first
  v1::ShuffledBatchHeader header;
  std::vector<v1::SealedPayload> payloads;
};

// Thread-compatible: the Shuffler serializes every call. Writes happen
// between Begin() and the Transaction's Commit().
class ShuffleStore {
 public:
  // Opens or creates the file and its schema. FAILED_PRECONDITION for a
  // file that is not a shuffler database or is from a newer version.
  static absl::StatusOr<std::unique_ptr<ShuffleStore>> Open(
      const std::string& path);
  ~ShuffleStore();

  absl::StatusOr<std::unique_ptr<sqlite::Transaction>> Begin();

  absl::StatusOr<std::optional<KeyRow>> FindKey(const std::string& key);
  absl::Status InsertKey(const std::string& key, const KeyRow& row);
  // Batch keys whose deadline is at or before `now`.
  absl::StatusOr<std::vector<std::string>> KeysDueBy(absl::Time now);
  // Deletes the key's row, its pending reports and its seen agents.
  absl::Status DeleteKey(const std::string& key);

  absl::StatusOr<bool> Seen(const std::string& key, uint64_t agent_id);
  absl::StatusOr<std::optional<std::string>> PendingDigest(
      const std::string& key, uint64_t agent_id);
  absl::Status InsertPending(const std::string& key, uint64_t agent_id,
                             const v1::SealedPayload& payload,
                             const std::string& digest);
  absl::StatusOr<uint64_t> PendingCount(const std::string& key);
  // The key's pending payloads (in agent-id order, not arrival order),
  // deleted from `pending`, their agents recorded in `seen`.
  absl::StatusOr<std::vector<v1::SealedPayload>> TakePending(
      const std::string& key);

  absl::Status AppendOutbox(const v1::ShuffledBatchHeader& header,
                            const std::vector<v1::SealedPayload>& payloads);
  absl::StatusOr<std::optional<OutboxBatch>> OldestOutbox();
  absl::Status DeleteOutbox(int64_t ordinal);

  // Copies the write-ahead log into the file and empties it: its frames
  // still hold the pending rows (agent id beside payload) that a release
  // deleted, and secure_delete zeroes only the database's own pages.
  absl::Status TruncateWal();

  // Totals, read at start-up for the gauges.
  absl::StatusOr<uint64_t> CountPending();
  absl::StatusOr<uint64_t> CountOutbox();

  // The prepared statements, defined in the .cc.
  struct Statements;

 private:
  ShuffleStore() = default;
  absl::Status ReadPayloads(int64_t ordinal, OutboxBatch& batch);

  std::unique_ptr<SqliteDb> db_;
  std::unique_ptr<Statements> s_;
};

}  // namespace ldp::shuffler_internal

#endif  // LDP_SERVER_SHUFFLER_CORE_SHUFFLE_STORE_H_
