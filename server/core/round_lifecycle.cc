// Closing rounds, durably; see the header.
#include "server/core/round_lifecycle.h"

#include <memory>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"

namespace ldp {
namespace {

// For the round_closed event.
std::string_view CloseReason(RoundState state) {
  switch (state) {
    case RoundState::kOpen:
      return "open";
    case RoundState::kClosedQuorum:
      return "quorum";
    case RoundState::kClosedDeadline:
      return "deadline";
    case RoundState::kClosedEarly:
      return "early";
  }
  return "unknown";
}

int64_t TotalReports(const RoundRuntime& round) {
  int64_t total = 0;
  for (int q = 0; q < round.num_questions(); ++q) total += round.num_reports(q);
  return total;
}

}  // namespace

// Persists a round's closing (and a noninteractive study's, with its only
// round). The in-memory state flips here, on the writer thread, so every
// later job in the same group already sees the round closed. For an
// interactive study the same transaction stores the program's next round,
// or closes the study when the program is done.
class CloseRoundJob final : public CommitJob {
 public:
  CloseRoundJob(RoundLifecycle* lifecycle, RoundEntry entry, RoundState state)
      : lifecycle_(lifecycle), entry_(std::move(entry)), state_(state) {}

  absl::Status Apply(StoreTransaction& transaction) override {
    RoundRuntime& round = *entry_.round;
    if (round.state() == RoundState::kOpen) round.set_state(state_);
    ASSIGN_OR_RETURN(const bool closed_here,
                     transaction.CloseRound(round.round_id(), round.state()));
    // Another server on the shared store closed it first; it plans what
    // comes next, and Follow brings that here.
    if (!closed_here) return absl::OkStatus();
    StudyRuntime& study = *entry_.study;
    bool close_study = study.spec->mode == StudyMode::kNoninteractive;
    if (study.program != nullptr && study.state.load() == StudyState::kActive &&
        study.LatestRound() == entry_.round && round.ClaimAdvance()) {
      ASSIGN_OR_RETURN(close_study, PlanNext(study, transaction));
    }
    if (close_study) {
      study.state.store(StudyState::kClosed);
      RETURN_IF_ERROR(
          transaction.SetStudyState(study.study_id, StudyState::kClosed));
    }
    return absl::OkStatus();
  }

  // A failed close stays closed in memory; after a restart the deadline or
  // quorum closes the round again, and the program is asked again.
  void Finish(const absl::Status& status) override {
    const RoundRuntime& round = *entry_.round;
    const std::string study_id = absl::StrCat(entry_.study->study_id);
    if (!status.ok()) {
      context().Log(LogLevel::kWarning, "round_close_failed",
                    {{"study", study_id},
                     {"round", absl::StrCat(round.round_id())},
                     {"error", std::string(status.message())}});
      return;
    }
    context().Log(LogLevel::kInfo, "round_closed",
                  {{"study", study_id},
                   {"round", absl::StrCat(round.round_id())},
                   {"state", std::string(CloseReason(round.state()))},
                   {"reports", absl::StrCat(TotalReports(round))}});
    if (entry_.study->state.load() == StudyState::kClosed) {
      context().Log(LogLevel::kInfo, "study_closed", {{"study", study_id}});
    }
    if (next_ != nullptr) {
      context().Log(LogLevel::kInfo, "round_opened",
                    {{"study", study_id},
                     {"round", absl::StrCat(next_->round_id())},
                     {"name", next_->plan().decisions().round_name}});
      lifecycle_->studies_.RegisterRound(entry_.study, std::move(next_));
    }
  }

 private:
  const AggregatorContext& context() const { return lifecycle_->context_; }

  // Asks the program what follows the round and stores it in the same
  // transaction; true when the study is done instead.
  absl::StatusOr<bool> PlanNext(StudyRuntime& study,
                                StoreTransaction& transaction) {
    // The program must see every report of the round, also those other
    // servers stored: the close above waited for their transactions.
    // On a sharded store this server's own reports commit in the shards'
    // lanes: the round is closed on every shard now, so what each lane has
    // in flight is all it will store, and waiting for it counts it here.
    context().lanes.WaitForShards();
    if (context().shared_store()) RETURN_IF_ERROR(lifecycle_->read_others_());
    absl::StatusOr<std::shared_ptr<RoundRuntime>> next =
        lifecycle_->programs_.PlanNextRound(study, context().clock().Now());
    if (!next.ok()) {
      study.SetResult(FailedProgramResult(next.status()), true);
      return true;
    }
    if (*next == nullptr) return true;
    next_ = *std::move(next);
    RETURN_IF_ERROR(transaction.InsertRound(RoundRowOf(*next_)));
    return false;
  }

  RoundLifecycle* lifecycle_;
  RoundEntry entry_;
  RoundState state_;
  std::shared_ptr<RoundRuntime> next_;
};

void RoundLifecycle::QueueClose(const RoundEntry& entry, RoundState state) {
  context_.lanes.catalog().Submit(
      std::make_unique<CloseRoundJob>(this, entry, state));
}

void RoundLifecycle::CheckQuorum(const RoundEntry& entry) {
  const int64_t quorum = entry.study->spec->quorum;
  RoundRuntime& round = *entry.round;
  if (quorum <= 0 || round.state() != RoundState::kOpen ||
      !round.QuorumReached(quorum)) {
    return;
  }
  // Refuse further reports from now on; the job makes it durable.
  round.set_state(RoundState::kClosedQuorum);
  if (round.ClaimClose()) QueueClose(entry, RoundState::kClosedQuorum);
}

void RoundLifecycle::CloseExpiredRounds() {
  const absl::Time now = context_.clock().Now();
  for (const auto& study : studies_.AllStudies()) {
    for (const auto& round : study->Rounds()) {
      if (round->state() == RoundState::kOpen && now >= round->deadline() &&
          round->ClaimClose()) {
        QueueClose({.round = round, .study = study},
                   RoundState::kClosedDeadline);
      }
    }
  }
  Barrier();
}

void RoundLifecycle::Barrier() { context_.lanes.catalog().WaitForSubmitted(); }

}  // namespace ldp
