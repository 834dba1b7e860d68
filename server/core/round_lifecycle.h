// How rounds end: at quorum, at their deadline, or on the analyst's
// StartRound, each made durable by one job on the writer thread, which
// also stores an interactive study's next round or closes the study.
//
// Why a class of its own: ingestion (quorum), the analyst calls (deadline,
// AdvanceStudy), restart and the store follower all close rounds, and a
// round must be closed once, its program asked once, and its next round
// registered only after it is stored. The claims on RoundRuntime and this
// one job keep those rules in one place.
#ifndef LDP_SERVER_CORE_ROUND_LIFECYCLE_H_
#define LDP_SERVER_CORE_ROUND_LIFECYCLE_H_

#include "absl/functional/any_invocable.h"
#include "absl/status/status.h"
#include "server/core/aggregator_context.h"
#include "server/core/program_driver.h"
#include "server/core/study_registry.h"

namespace ldp {

class CloseRoundJob;

// Thread-safe.
class RoundLifecycle {
 public:
  // Everything passed outlives this. `read_others` brings in what other
  // servers on a shared store wrote (StoreFollower::Follow); the close job
  // calls it on the writer thread before a program plans, so the program
  // sees every server's reports of the round.
  RoundLifecycle(const AggregatorContext& context, StudyRegistry& studies,
                 ProgramDriver& programs,
                 absl::AnyInvocable<absl::Status()> read_others)
      : context_(context),
        studies_(studies),
        programs_(programs),
        read_others_(std::move(read_others)) {}
  RoundLifecycle(const RoundLifecycle&) = delete;
  RoundLifecycle& operator=(const RoundLifecycle&) = delete;

  // Queues the durable close of a round whose close the caller claimed
  // (RoundRuntime::ClaimClose), in `state` unless its state is set already
  // (quorum sets it first, to refuse reports at once).
  void QueueClose(const RoundEntry& entry, RoundState state);
  // After stored reports: closes the round if every question has quorum.
  void CheckQuorum(const RoundEntry& entry);
  // Closes (durably) every open round whose deadline has passed on the
  // injected clock; returns once the closes are committed.
  void CloseExpiredRounds();
  // Waits until every job submitted before it has finished.
  void Barrier();

 private:
  friend class CloseRoundJob;

  const AggregatorContext& context_;
  StudyRegistry& studies_;
  ProgramDriver& programs_;
  absl::AnyInvocable<absl::Status()> read_others_;
};

}  // namespace ldp

#endif  // LDP_SERVER_CORE_ROUND_LIFECYCLE_H_
