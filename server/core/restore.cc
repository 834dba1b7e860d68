// Reloading the store at start; see the header.
#include "server/core/restore.h"

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/tasks/task_id.h"
#include "server/core/store_follower.h"
#include "server/store/storage_codec.h"
#include "server/store/study_codec.h"

namespace ldp {
namespace {

absl::Status Corrupt(const char* what, uint64_t id, const absl::Status& cause) {
  return absl::DataLossError(absl::StrCat(
      "stored ", what, " ", id, " cannot be reloaded: ", cause.message()));
}

}  // namespace

absl::Status Restorer::Load(StoreFollower& follower) {
  RETURN_IF_ERROR(agents_.LoadFromStore());
  ASSIGN_OR_RETURN(const StudyMap studies, LoadStudies());
  RETURN_IF_ERROR(LoadLedgerSummaries(studies));
  for (const auto& [id, study] : studies) studies_.Register(study);
  RETURN_IF_ERROR(LoadReports(follower));
  RETURN_IF_ERROR(LoadShuffledReports());
  FinishInterruptedWork(studies);
  return absl::OkStatus();
}

absl::StatusOr<Restorer::StudyMap> Restorer::LoadStudies() const {
  ASSIGN_OR_RETURN(std::vector<StudyRow> rows, context_.store.LoadStudies());
  StudyMap studies;
  uint64_t max_study = 0;
  for (StudyRow& row : rows) {
    const uint64_t id = row.study_id;
    ASSIGN_OR_RETURN(studies[id], StudyFromRow(std::move(row)));
    max_study = std::max(max_study, id);
  }
  ASSIGN_OR_RETURN(const uint64_t max_round, LoadRounds(studies));
  studies_.ContinueIdsAfter(max_study, max_round);
  return studies;
}

absl::StatusOr<uint64_t> Restorer::LoadRounds(const StudyMap& studies) const {
  ASSIGN_OR_RETURN(std::vector<RoundRow> rows, context_.store.LoadRounds());
  uint64_t max_round = 0;
  for (const RoundRow& row : rows) {
    auto it = studies.find(row.study_id);
    if (it == studies.end()) {
      return Corrupt("round", row.round_id,
                     absl::NotFoundError("its study is missing"));
    }
    StudyRuntime& study = *it->second;
    ASSIGN_OR_RETURN(std::shared_ptr<RoundRuntime> round,
                     RoundFromRow(study, row));
    study.AddRound(std::move(round));
    max_round = std::max(max_round, row.round_id);
  }
  return max_round;
}

absl::Status Restorer::LoadLedgerSummaries(const StudyMap& studies) const {
  ASSIGN_OR_RETURN(std::vector<LedgerSummary> summaries,
                   context_.store.SummarizeLedger());
  for (const LedgerSummary& summary : summaries) {
    auto it = studies.find(summary.study_id);
    if (it != studies.end()) it->second->SetLedgerSummary(summary);
  }
  return absl::OkStatus();
}

absl::Status Restorer::LoadReports(StoreFollower& follower) const {
  // A shared store is read as the first step of following it, so that
  // later polls pick up exactly where this one ended; closed rounds answer
  // from their statistics first, and their reports' payloads are not read.
  if (context_.shared_store()) {
    follower.SettleClosedRounds();
    return follower.ReadAllReports();
  }
  RoundEntry cache;
  return context_.store.ForEachReport(
      [&](const ReportRow& row) -> absl::Status {
        ASSIGN_OR_RETURN(const bool known, CountStoredReport(row, cache));
        if (!known) {
          return Corrupt(
              "report for task", row.task_id,
              absl::NotFoundError("its round or question is missing"));
        }
        return absl::OkStatus();
      });
}

absl::Status Restorer::LoadShuffledReports() const {
  const auto find = [this](uint64_t round_id,
                           uint32_t question) -> absl::StatusOr<RoundEntry> {
    RoundEntry entry = studies_.FindRound(round_id);
    if (entry.round == nullptr ||
        static_cast<int>(question) >= entry.round->num_questions()) {
      return Corrupt("shuffled batch of round", round_id,
                     absl::NotFoundError("its round or question is missing"));
    }
    return entry;
  };
  RETURN_IF_ERROR(context_.store.ForEachShuffledBatch(
      [&](const ShuffledBatchSummary& batch) -> absl::Status {
        ASSIGN_OR_RETURN(const RoundEntry entry,
                         find(batch.round_id, batch.question));
        entry.round->RecordShuffledBatch(static_cast<int>(batch.question),
                                         batch.accepted);
        return absl::OkStatus();
      }));
  return context_.store.ForEachShuffledReport(
      [&](uint64_t round_id, uint32_t question,
          std::string_view bytes) -> absl::Status {
        ASSIGN_OR_RETURN(const RoundEntry entry, find(round_id, question));
        absl::StatusOr<ReportPayload> payload = DecodePayload(bytes);
        if (!payload.ok()) {
          return Corrupt("shuffled report of round", round_id,
                         payload.status());
        }
        absl::Status added = entry.round->AccumulateShuffled(
            static_cast<int>(question), *payload);
        if (!added.ok()) {
          return Corrupt("shuffled report of round", round_id, added);
        }
        entry.study->num_reports.fetch_add(1, std::memory_order_relaxed);
        return absl::OkStatus();
      });
}

void Restorer::FinishInterruptedWork(const StudyMap& studies) const {
  // A crash may have come between the report that reached quorum and the
  // round's close; close it now.
  for (const auto& [id, study] : studies) {
    for (const auto& round : study->Rounds()) {
      rounds_.CheckQuorum({.round = round, .study = study});
    }
  }
  // A crash may have come between a program round's close and the next
  // round: close it again, which asks the program (and stores its answer).
  for (const auto& [id, study] : studies) {
    if (study->program == nullptr) continue;
    const std::shared_ptr<RoundRuntime> unfinished = programs_.Resume(*study);
    if (unfinished != nullptr && unfinished->ClaimClose()) {
      rounds_.QueueClose({.round = unfinished, .study = study},
                         unfinished->state());
    }
  }
}

absl::StatusOr<std::shared_ptr<StudyRuntime>> Restorer::StudyFromRow(
    StudyRow row) const {
  absl::StatusOr<StudySpec> spec = DecodeStudySpec(row.spec);
  if (!spec.ok()) return Corrupt("study", row.study_id, spec.status());
  auto study = std::make_shared<StudyRuntime>();
  study->study_id = row.study_id;
  study->spec = std::make_shared<const StudySpec>(*std::move(spec));
  study->request_id = std::move(row.request_id);
  study->created_at = row.created_at;
  study->state = row.state;
  if (study->spec->mode == StudyMode::kInteractive) {
    absl::Status program = programs_.LoadProgram(*study);
    if (!program.ok()) return Corrupt("study", row.study_id, program);
  }
  return study;
}

absl::StatusOr<std::shared_ptr<RoundRuntime>> Restorer::RoundFromRow(
    const StudyRuntime& study, const RoundRow& row) const {
  absl::StatusOr<PlanDecisions> decisions = DecodePlan(row.plan);
  if (!decisions.ok()) {
    return Corrupt("round", row.round_id, decisions.status());
  }
  std::optional<StudySpec> round_spec;
  const StudySpec* spec = study.spec.get();
  if (decisions->from_program) {
    absl::StatusOr<std::vector<Question>> questions =
        DecodeQuestions(decisions->questions_bytes, study.spec->schema);
    if (!questions.ok()) {
      return Corrupt("round", row.round_id, questions.status());
    }
    round_spec = *study.spec;
    round_spec->questions = *std::move(questions);
    spec = &*round_spec;
  }
  absl::StatusOr<RoundPlan> plan =
      RoundPlan::Restore(*spec, *std::move(decisions));
  if (!plan.ok()) return Corrupt("round", row.round_id, plan.status());
  return std::make_shared<RoundRuntime>(row, study.spec, *std::move(plan));
}

absl::StatusOr<bool> Restorer::CountStoredReport(const ReportRow& row,
                                                 RoundEntry& cache) const {
  const TaskKey key = UnpackTaskId(row.task_id);
  if (cache.round == nullptr || cache.round->round_id() != key.round_id) {
    cache = studies_.FindRound(key.round_id);
  }
  const int q = static_cast<int>(key.question);
  if (cache.round == nullptr || q >= cache.round->num_questions()) return false;
  if (cache.round->HasReport(row.task_id)) return true;
  // Counted by a delta or by the round's statistics; its payload is not
  // read.
  if (row.in_delta || cache.round->answers_from_statistics()) {
    if (cache.round->MarkReported(row.task_id)) {
      cache.study->num_reports.fetch_add(1, std::memory_order_relaxed);
    }
    return true;
  }
  absl::StatusOr<ReportPayload> payload = DecodePayload(row.payload);
  if (!payload.ok()) {
    return Corrupt("report for task", row.task_id, payload.status());
  }
  absl::Status added = cache.round->Accumulate(row.task_id, q, *payload);
  if (added.ok()) {
    cache.study->num_reports.fetch_add(1, std::memory_order_relaxed);
  } else if (!absl::IsAlreadyExists(added)) {
    return Corrupt("report for task", row.task_id, added);
  }
  return true;
}

}  // namespace ldp
