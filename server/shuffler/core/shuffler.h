// The shuffler (DESIGN invariant 9, shuffle_service.proto): takes sealed
// reports from agents, each admitted by a server-signed ticket it checks
// offline; holds one report per agent and batch key until the batch
// reaches its randomized threshold; then drops who sent what and when,
// permutes the batch and hands it to the server through a BatchSink.
//
// Why a core without gRPC: the protocol (who is admitted, when a batch
// leaves, what survives a crash) is tested here with a fake clock, a
// seeded generator and a fake sink; the gRPC folder only translates.
//
// Durability: an OK from Submit means the report is committed (WAL,
// synchronous=FULL). A release is one transaction: the batch enters the
// outbox and its pending rows, the only ones naming agents beside
// payloads, are deleted. Delivery retries a batch with the same batch_id
// until the server answers it.
#ifndef LDP_SERVER_SHUFFLER_CORE_SHUFFLER_H_
#define LDP_SERVER_SHUFFLER_CORE_SHUFFLER_H_

#include <memory>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/random/bit_gen_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/types/span.h"
#include "proto/ldp/v1/shuffle_service.pb.h"
#include "server/shuffler/core/batch_sink.h"
#include "server/shuffler/core/shuffler_config.h"
#include "server/shuffler/core/shuffler_stats.h"

namespace ldp {

namespace shuffler_internal {
class BatchAdmitter;
class OutboxSender;
class ShuffleStore;
struct Admission;
}  // namespace shuffler_internal

// Thread-safe.
class Shuffler {
 public:
  // Opens (or creates) config.db_path and resumes what it holds: pending
  // reports keep waiting, outbox batches are delivered. `sink` and `gen`
  // must outlive the Shuffler; `gen` (SecureRandom in production) draws
  // thresholds and permutations. With config.run_sender, a thread sweeps
  // deadlines and delivers until destruction.
  static absl::StatusOr<std::unique_ptr<Shuffler>> Create(
      const ShufflerConfig& config, BatchSink* sink, absl::BitGenRef gen);
  ~Shuffler();
  Shuffler(const Shuffler&) = delete;
  Shuffler& operator=(const Shuffler&) = delete;

  // One status per submission, in order (the codes of SubmitAck): OK once
  // the report is durable, or for an identical retry while it is held;
  // UNAUTHENTICATED (signature), INVALID_ARGUMENT (ticket or payload
  // malformed: enc must be 32 bytes, ciphertext at least 16),
  // FAILED_PRECONDITION (deadline passed), ALREADY_EXISTS (another report
  // of this agent for this batch key, or any report once its batch left).
  // Concurrent calls commit together (group commit); a database failure
  // answers every submission of the group with its error.
  std::vector<absl::Status> Submit(
      absl::Span<const v1::ShuffleSubmission* const> submissions);
  // The same over values (tests, and callers holding a vector).
  std::vector<absl::Status> Submit(
      absl::Span<const v1::ShuffleSubmission> submissions);

  // Settles the batch keys whose deadline passed (config.clock): releases
  // a batch of at least the minimum, deletes a smaller one unreleased.
  // Returns the number of batches released. The sender thread calls it
  // every sweep_interval; tests call it after moving their clock.
  absl::StatusOr<int> SweepDeadlines();

  // One delivery attempt of the oldest outbox batch (the sender thread's
  // step, for tests that run without it). An error: it failed and stays.
  absl::StatusOr<DeliveryOutcome> DeliverOldest();

  ShufflerStats Stats() const { return counters_.Snapshot(); }

 private:
  struct CommitJob;
  Shuffler(const ShufflerConfig& config, BatchSink* sink, absl::BitGenRef gen);
  absl::Status Open();
  absl::StatusOr<shuffler_internal::Admission> Check(
      const v1::ShuffleSubmission& submission) const;
  void CommitInGroup(CommitJob& job);
  void CommitGroup(const std::vector<CommitJob*>& group);
  void SenderLoop();
  // Sleeps up to `wait`; a release cuts it short unless `backing_off`.
  // false once the Shuffler is being destroyed.
  bool Wait(absl::Duration wait, bool backing_off);
  void WakeSender();

  const ShufflerConfig config_;
  BatchSink* const sink_;
  absl::BitGenRef gen_;  // used by admitter_ only, under store_mutex_
  ShufflerCounters counters_;

  // The database and `gen`, one user at a time.
  mutable absl::Mutex store_mutex_;
  std::unique_ptr<shuffler_internal::ShuffleStore> store_;
  std::unique_ptr<shuffler_internal::BatchAdmitter> admitter_
      ABSL_GUARDED_BY(store_mutex_);
  std::unique_ptr<shuffler_internal::OutboxSender> sender_;

  // Group commit: calls queue here; one of them commits for all.
  absl::Mutex queue_mutex_;
  std::vector<CommitJob*> queue_ ABSL_GUARDED_BY(queue_mutex_);
  bool committing_ ABSL_GUARDED_BY(queue_mutex_) = false;

  // The sender thread's wake-ups and stop.
  absl::Mutex wake_mutex_;
  bool work_ ABSL_GUARDED_BY(wake_mutex_) = false;
  bool stopping_ ABSL_GUARDED_BY(wake_mutex_) = false;
  std::thread thread_;
};

}  // namespace ldp

#endif  // LDP_SERVER_SHUFFLER_CORE_SHUFFLER_H_
