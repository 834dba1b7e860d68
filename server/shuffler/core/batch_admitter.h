// The shuffler's protocol inside the database: admitting authenticated
// submissions (one report per agent and batch key), releasing a batch
// key's reports when they reach its threshold, and settling batch keys at
// their deadline.
//
// Why one transaction per group: the submissions of many concurrent calls
// and the releases they trigger commit together, so one fsync serves them
// all, and a release is never half done (payloads in the outbox while the
// pending rows with their agent ids still exist, or the reverse).
#ifndef LDP_SERVER_SHUFFLER_CORE_BATCH_ADMITTER_H_
#define LDP_SERVER_SHUFFLER_CORE_BATCH_ADMITTER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/random/bit_gen_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "proto/ldp/v1/shuffle_service.pb.h"
#include "proto/ldp/v1/types.pb.h"
#include "server/shuffler/core/batch_key.h"
#include "server/shuffler/core/shuffle_store.h"
#include "server/shuffler/core/shuffler_config.h"
#include "server/shuffler/core/shuffler_stats.h"

namespace ldp::shuffler_internal {

// One authenticated, well-formed submission on its way into the database.
struct Admission {
  BatchKey key;
  uint64_t agent_id = 0;
  const v1::SealedPayload* payload = nullptr;
  std::string digest;
  // Set by AdmitAll: OK (stored, or an identical retry), ALREADY_EXISTS,
  // FAILED_PRECONDITION (the deadline passed meanwhile).
  absl::Status status;
};

// Thread-compatible: the caller holds the store's lock around every call,
// which also serializes the use of `gen`.
class BatchAdmitter {
 public:
  // All pointers must outlive the admitter.
  BatchAdmitter(ShuffleStore* store, const ShufflerConfig* config,
                absl::BitGenRef gen, ShufflerCounters* counters)
      : store_(store), config_(config), gen_(gen), counters_(counters) {}

  // Admits every submission and releases the batch keys that reached their
  // threshold, in one transaction. Returns the number of batches released;
  // on an error nothing is stored and the statuses are meaningless.
  absl::StatusOr<int> AdmitAll(absl::Span<Admission* const> admissions);

  // For each batch key whose deadline has passed: releases its pending
  // reports if they reach the minimum, else deletes them (never
  // released), and forgets the key and its agents. Returns the number of
  // batches released.
  absl::StatusOr<int> SweepDeadlines();

 private:
  // What a transaction changed, applied to the counters once it commits.
  struct Delta {
    uint64_t pending_added = 0;
    uint64_t batches_released = 0;
    uint64_t reports_released = 0;
    uint64_t reports_expired = 0;
    // Logged only once committed: a rolled-back release never happened.
    std::vector<v1::ShuffledBatchHeader> released;
    std::vector<v1::ShuffledBatchHeader> expired;  // num_reports = dropped
  };
  using TouchedKeys = absl::flat_hash_map<std::string, KeyRow>;

  absl::Status AdmitOne(Admission& admission, TouchedKeys& touched,
                        Delta& delta);
  absl::StatusOr<std::optional<KeyRow>> FindKey(const std::string& key);
  absl::StatusOr<KeyRow> KeyRowFor(const BatchKey& key);
  absl::Status SettleAtDeadline(const std::string& key, Delta& delta);
  absl::Status Release(const std::string& key, const KeyRow& row, Delta& delta);
  void Apply(const Delta& delta);
  void ForgetDeletedRows();

  ShuffleStore* const store_;
  const ShufflerConfig* const config_;
  absl::BitGenRef gen_;
  ShufflerCounters* const counters_;
};

}  // namespace ldp::shuffler_internal

#endif  // LDP_SERVER_SHUFFLER_CORE_BATCH_ADMITTER_H_
