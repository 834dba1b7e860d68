// Several servers on one shared store (PostgreSQL): how each one learns
// what the others wrote.
//
// The database is the only source of truth for what counts: it refuses a
// second report for a task, a charge past the cap and a report into a round
// that is closed there (see PostgresStore). A server's memory is a cache
// that follows it: studies and rounds are re-read whole (they are few),
// reports are read incrementally from a cursor that cannot skip a commit
// (Store::PollReports), and RoundRuntime::Accumulate counts each task once
// whichever path offers it first: this server's own commit or the poll.
#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "server/aggregator_impl.h"
#include "server/task_id.h"

namespace ldp {

void Aggregator::Impl::StartFollowing() {
  if (!store_->shared()) return;
  follower_ = std::thread([this] {
    absl::MutexLock lock(&follower_mutex_);
    while (!follower_mutex_.AwaitWithTimeout(
        absl::Condition(&stop_following_), options_.follow_interval)) {
      follower_mutex_.Unlock();
      absl::Status status = Follow(false);
      if (!status.ok()) {
        Log(LogLevel::kWarning, "follow_failed",
            {{"error", std::string(status.message())}});
      }
      follower_mutex_.Lock();
    }
  });
}

absl::Status Aggregator::Impl::Follow(bool with_ledger) {
  if (!store_->shared()) return absl::OkStatus();
  absl::MutexLock lock(&follow_mutex_);
  RETURN_IF_ERROR(FollowStudiesAndRounds());
  RETURN_IF_ERROR(FollowReports());
  if (with_ledger) {
    ASSIGN_OR_RETURN(std::vector<LedgerSummary> summaries,
                     store_->SummarizeLedger());
    for (const LedgerSummary& summary : summaries) {
      std::shared_ptr<StudyRuntime> study = studies_.FindStudy(summary.study_id);
      if (study == nullptr) continue;
      study->num_agents = summary.num_agents;
      study->max_spent_nanos = summary.max_spent_nanos;
    }
  }
  return absl::OkStatus();
}

absl::Status Aggregator::Impl::CatchUp(bool with_ledger) {
  absl::Status status = Follow(with_ledger);
  if (status.ok()) return status;
  return absl::UnavailableError(absl::StrCat(
      "cannot read what other servers stored (", status.message(),
      "); retry"));
}

absl::Status Aggregator::Impl::FollowStudiesAndRounds() {
  ASSIGN_OR_RETURN(std::vector<StudyRow> study_rows, store_->LoadStudies());
  // Studies new here are registered with their rounds, after those rounds
  // are read, so no request sees a study without its first round.
  absl::flat_hash_map<uint64_t, std::shared_ptr<StudyRuntime>> fresh;
  for (StudyRow& row : study_rows) {
    std::shared_ptr<StudyRuntime> known = studies_.FindStudy(row.study_id);
    if (known != nullptr) {
      if (row.state == StudyState::kClosed) known->state = StudyState::kClosed;
      continue;
    }
    const uint64_t id = row.study_id;
    ASSIGN_OR_RETURN(fresh[id], StudyFromRow(std::move(row)));
  }
  ASSIGN_OR_RETURN(std::vector<RoundRow> round_rows, store_->LoadRounds());
  std::vector<RoundEntry> touched;
  for (const RoundRow& row : round_rows) {
    RoundEntry entry = studies_.FindRound(row.round_id);
    if (entry.round != nullptr) {
      // Closed by another server: stop accepting, and leave the close (and
      // an interactive study's next round) to it.
      if (row.state != RoundState::kOpen &&
          entry.round->state() == RoundState::kOpen) {
        entry.round->ClaimClose();
        entry.round->ClaimAdvance();
        entry.round->set_state(row.state);
      }
      continue;
    }
    std::shared_ptr<StudyRuntime> study;
    if (auto it = fresh.find(row.study_id); it != fresh.end()) {
      study = it->second;
    } else {
      study = studies_.FindStudy(row.study_id);
    }
    if (study == nullptr) {
      return absl::DataLossError(absl::StrCat(
          "stored round ", row.round_id, " names study ", row.study_id,
          " that is not stored"));
    }
    ASSIGN_OR_RETURN(std::shared_ptr<RoundRuntime> round,
                     RoundFromRow(*study, row));
    if (fresh.contains(row.study_id)) {
      study->AddRound(std::move(round));
    } else {
      studies_.RegisterRound(study, std::move(round));
      touched.push_back(studies_.FindRound(row.round_id));
    }
  }
  for (auto& [id, study] : fresh) {
    studies_.Register(study);
    if (study->program != nullptr) programs_.RecomputeResult(*study);
  }
  // A round another server opened for an interactive study here: what the
  // program reported with it is recomputed from the closed rounds.
  for (const RoundEntry& entry : touched) {
    if (entry.study->program != nullptr) {
      programs_.RecomputeResult(*entry.study);
    }
  }
  return absl::OkStatus();
}

absl::Status Aggregator::Impl::FollowReports() {
  // Reports whose round this server has not read yet (it was stored after
  // the rounds were read): kept, rounds read again, then counted.
  std::vector<ReportRow> early;
  std::vector<RoundEntry> touched;
  RoundEntry cache;
  RETURN_IF_ERROR(store_->PollReports(
      &report_cursor_, [&](const ReportRow& row) -> absl::Status {
        const RoundRuntime* before = cache.round.get();
        ASSIGN_OR_RETURN(const bool known, CountStoredReport(row, cache));
        if (!known) {
          early.push_back(row);
        } else if (cache.round.get() != before) {
          touched.push_back(cache);
        }
        return absl::OkStatus();
      }));
  if (!early.empty()) {
    RETURN_IF_ERROR(FollowStudiesAndRounds());
    for (const ReportRow& row : early) {
      ASSIGN_OR_RETURN(const bool known, CountStoredReport(row, cache));
      if (!known) {
        return absl::DataLossError(
            absl::StrCat("stored report for task ", row.task_id,
                         " names a round or question that is not stored"));
      }
      touched.push_back(cache);
    }
  }
  for (const RoundEntry& entry : touched) lifecycle_.CheckQuorum(entry);
  return absl::OkStatus();
}

}  // namespace ldp
