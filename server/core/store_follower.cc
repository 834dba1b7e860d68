// Following a shared store; see the header.
#include "server/core/store_follower.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/tasks/task_id.h"
#include "server/rounds/round_states.h"

namespace ldp {

StoreFollower::~StoreFollower() { Stop(); }

void StoreFollower::Start() {
  if (!context_.shared_store()) return;
  thread_ = std::thread([this] {
    absl::MutexLock lock(&thread_mutex_);
    while (!thread_mutex_.AwaitWithTimeout(absl::Condition(&stop_),
                                           context_.options.follow_interval)) {
      thread_mutex_.Unlock();
      absl::Status status = Follow(false);
      if (!status.ok()) {
        context_.Log(LogLevel::kWarning, "follow_failed",
                     {{"error", std::string(status.message())}});
      }
      SettleClosedRounds();
      thread_mutex_.Lock();
    }
  });
}

void StoreFollower::Stop() {
  {
    absl::MutexLock lock(&thread_mutex_);
    stop_ = true;
  }
  if (thread_.joinable()) thread_.join();
}

absl::Status StoreFollower::Follow(bool with_ledger) {
  if (!context_.shared_store()) return absl::OkStatus();
  absl::MutexLock lock(&follow_mutex_);
  RETURN_IF_ERROR(FollowStudiesAndRounds());
  RETURN_IF_ERROR(FollowReports());
  RETURN_IF_ERROR(FollowDeltas());
  if (with_ledger) RETURN_IF_ERROR(FollowLedger());
  return absl::OkStatus();
}

absl::Status StoreFollower::ReadAllReports() {
  absl::MutexLock lock(&follow_mutex_);
  RETURN_IF_ERROR(FollowReports());
  return FollowDeltas();
}

absl::Status StoreFollower::FollowLedger() {
  ASSIGN_OR_RETURN(std::vector<LedgerSummary> summaries,
                   context_.store.SummarizeLedger());
  for (const LedgerSummary& summary : summaries) {
    std::shared_ptr<StudyRuntime> study = studies_.FindStudy(summary.study_id);
    if (study != nullptr) study->SetLedgerSummary(summary);
  }
  return absl::OkStatus();
}

absl::Status StoreFollower::CatchUp(bool with_ledger) {
  absl::Status status = Follow(with_ledger);
  if (status.ok()) {
    SettleClosedRounds();
    return status;
  }
  return absl::UnavailableError(absl::StrCat(
      "cannot read what other servers stored (", status.message(), "); retry"));
}

void StoreFollower::SettleClosedRounds() {
  if (!context_.shared_store()) return;
  // One pass at a time: two would fold the same round twice.
  absl::MutexLock lock(&follow_mutex_);
  const absl::Time now = context_.clock().Now();
  for (const auto& study : studies_.AllStudies()) {
    for (const auto& round : study->Rounds()) {
      if (round->state() == RoundState::kOpen ||
          round->answers_from_statistics()) {
        continue;
      }
      const auto after = settle_after_.find(round->round_id());
      if (after != settle_after_.end() && now < after->second) continue;
      absl::StatusOr<bool> settled = folder_.Settle(*round);
      if (settled.ok()) {
        settle_after_.erase(round->round_id());
        continue;
      }
      settle_after_[round->round_id()] = now + kSettleBackoff;
      context_.Log(LogLevel::kWarning, "round_settle_failed",
                   {{"round", absl::StrCat(round->round_id())},
                    {"error", std::string(settled.status().message())}});
    }
  }
}

absl::Status StoreFollower::FollowStudiesAndRounds() {
  // Studies new here are registered with their rounds, after those rounds
  // are read, so no request sees a study without its first round.
  ASSIGN_OR_RETURN(const StudyMap fresh, FollowStudies());
  ASSIGN_OR_RETURN(const std::vector<RoundEntry> touched, FollowRounds(fresh));
  for (const auto& [id, study] : fresh) {
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

absl::StatusOr<StoreFollower::StudyMap> StoreFollower::FollowStudies() {
  ASSIGN_OR_RETURN(std::vector<StudyRow> rows, context_.store.LoadStudies());
  StudyMap fresh;
  for (StudyRow& row : rows) {
    std::shared_ptr<StudyRuntime> known = studies_.FindStudy(row.study_id);
    if (known != nullptr) {
      if (row.state == StudyState::kClosed) known->state = StudyState::kClosed;
      continue;
    }
    const uint64_t id = row.study_id;
    ASSIGN_OR_RETURN(fresh[id], restorer_.StudyFromRow(std::move(row)));
  }
  return fresh;
}

absl::StatusOr<std::vector<RoundEntry>> StoreFollower::FollowRounds(
    const StudyMap& fresh) {
  ASSIGN_OR_RETURN(std::vector<RoundRow> rows, context_.store.LoadRounds());
  std::vector<RoundEntry> touched;
  for (const RoundRow& row : rows) {
    RoundEntry entry = studies_.FindRound(row.round_id);
    if (entry.round != nullptr) {
      FollowClose(*entry.round, row.state);
      continue;
    }
    auto it = fresh.find(row.study_id);
    const bool is_fresh = it != fresh.end();
    std::shared_ptr<StudyRuntime> study =
        is_fresh ? it->second : studies_.FindStudy(row.study_id);
    if (study == nullptr) {
      return absl::DataLossError(absl::StrCat("stored round ", row.round_id,
                                              " names study ", row.study_id,
                                              " that is not stored"));
    }
    ASSIGN_OR_RETURN(std::shared_ptr<RoundRuntime> round,
                     restorer_.RoundFromRow(*study, row));
    if (is_fresh) {
      study->AddRound(std::move(round));
    } else {
      studies_.RegisterRound(study, std::move(round));
      touched.push_back(studies_.FindRound(row.round_id));
    }
  }
  return touched;
}

// Closed by another server: stop accepting, and leave the close (and an
// interactive study's next round) to it.
void StoreFollower::FollowClose(RoundRuntime& round, RoundState stored) {
  if (stored == RoundState::kOpen || round.state() != RoundState::kOpen) return;
  round.ClaimClose();
  round.ClaimAdvance();
  round.set_state(stored);
}

absl::Status StoreFollower::FollowReports() {
  // Reports whose round this server has not read yet (it was stored after
  // the rounds were read): kept, rounds read again, then counted.
  std::vector<ReportRow> early;
  std::vector<RoundEntry> touched;
  RoundEntry cache;
  // Closed rounds that answer from their statistics need no payloads.
  std::vector<uint64_t> settled;
  for (const auto& study : studies_.AllStudies()) {
    for (const auto& round : study->Rounds()) {
      if (round->answers_from_statistics())
        settled.push_back(round->round_id());
    }
  }
  RETURN_IF_ERROR(context_.store.PollReports(
      &report_cursor_, settled, [&](const ReportRow& row) -> absl::Status {
        const RoundRuntime* before = cache.round.get();
        ASSIGN_OR_RETURN(const bool known,
                         restorer_.CountStoredReport(row, cache));
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
      ASSIGN_OR_RETURN(const bool known,
                       restorer_.CountStoredReport(row, cache));
      if (!known) {
        return absl::DataLossError(
            absl::StrCat("stored report for task ", row.task_id,
                         " names a round or question that is not stored"));
      }
      touched.push_back(cache);
    }
  }
  for (const RoundEntry& entry : touched) rounds_.CheckQuorum(entry);
  return absl::OkStatus();
}

absl::Status StoreFollower::FollowDeltas() {
  // As FollowReports: a delta of a round not read yet waits for the rounds
  // to be read again.
  std::vector<DeltaRow> early;
  std::vector<RoundEntry> touched;
  RETURN_IF_ERROR(context_.store.PollDeltas(
      &delta_cursor_, [&](const DeltaRow& row) -> absl::Status {
        RoundEntry entry;
        ASSIGN_OR_RETURN(const bool known, CountDelta(row, entry));
        if (!known) {
          early.push_back(row);
        } else if (entry.round != nullptr) {
          touched.push_back(std::move(entry));
        }
        return absl::OkStatus();
      }));
  if (!early.empty()) RETURN_IF_ERROR(FollowStudiesAndRounds());
  for (const DeltaRow& row : early) {
    RoundEntry entry;
    ASSIGN_OR_RETURN(const bool known, CountDelta(row, entry));
    if (!known) {
      return absl::DataLossError(absl::StrCat("stored delta ", row.delta_id,
                                              " names round ", row.round_id,
                                              " that is not stored"));
    }
    touched.push_back(std::move(entry));
  }
  for (const RoundEntry& entry : touched) rounds_.CheckQuorum(entry);
  return absl::OkStatus();
}

absl::StatusOr<bool> StoreFollower::CountDelta(const DeltaRow& row,
                                               RoundEntry& entry) {
  entry = studies_.FindRound(row.round_id);
  if (entry.round == nullptr) return false;
  RoundRuntime& round = *entry.round;
  std::vector<TaskAccumulator> batch = EmptyAccumulators(round);
  absl::StatusOr<std::vector<uint64_t>> task_ids =
      MergeEncoded(row.statistics, batch);
  if (!task_ids.ok()) {
    return absl::DataLossError(
        absl::StrCat("stored delta ", row.delta_id, " does not fit round ",
                     row.round_id, ": ", task_ids.status().message()));
  }
  RETURN_IF_ERROR(MarkDeltaTasks(row, entry, batch, *task_ids));
  // Its round's stored statistics count it already.
  if (round.answers_from_statistics()) return true;
  RETURN_IF_ERROR(round.MergeDelta(row.delta_id, batch).status());
  return true;
}

// The delta's tasks have a report (the charge rule and the task poll ask),
// whether or not the round still counts the delta itself. Marking is
// idempotent, so a delta read again, or this server's own, counts nothing
// twice. A delta written before schema 9 names none: its rows are polled.
absl::Status StoreFollower::MarkDeltaTasks(
    const DeltaRow& row, const RoundEntry& entry,
    const std::vector<TaskAccumulator>& batch,
    const std::vector<uint64_t>& task_ids) {
  if (task_ids.empty()) return absl::OkStatus();
  const auto unfit = [&](absl::string_view why) {
    return absl::DataLossError(absl::StrCat(
        "stored delta ", row.delta_id, " of round ", row.round_id, " ", why));
  };
  std::vector<int64_t> named(batch.size(), 0);
  for (const uint64_t task_id : task_ids) {
    const TaskKey key = UnpackTaskId(task_id);
    if (key.round_id != row.round_id || key.question >= named.size()) {
      return unfit(absl::StrCat("names task ", task_id, " of another"));
    }
    ++named[key.question];
  }
  for (size_t q = 0; q < batch.size(); ++q) {
    if (named[q] != batch[q].num_reports()) {
      return unfit(absl::StrCat("names ", named[q], " tasks of question ", q,
                                " but counts ", batch[q].num_reports()));
    }
  }
  for (const uint64_t task_id : task_ids) {
    if (entry.round->MarkReported(task_id)) {
      entry.study->num_reports.fetch_add(1, std::memory_order_relaxed);
    }
  }
  return absl::OkStatus();
}

}  // namespace ldp
