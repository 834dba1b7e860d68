// The studies and rounds this server knows, by id, and the ids new ones get.
//
// Why a registry of its own: every path of the aggregator looks studies and
// rounds up (agents' task polls and uploads, analysts' reads, the round
// closer, restart and following a shared store), and each must see a study
// together with its rounds or not at all. One class owns the maps and their
// mutex, so that rule lives in one place.
#ifndef LDP_SERVER_CORE_STUDY_REGISTRY_H_
#define LDP_SERVER_CORE_STUDY_REGISTRY_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/tasks/study_spec.h"
#include "planning/programs/analyst_program.h"
#include "server/rounds/round_runtime.h"
#include "server/store/store.h"

namespace ldp {

// A study as it runs: its spec, its rounds and what operators and analysts
// read about it.
struct StudyRuntime {
  uint64_t study_id = 0;
  std::shared_ptr<const StudySpec> spec{};
  std::string request_id{};
  absl::Time created_at;
  std::atomic<StudyState> state{StudyState::kActive};
  // Interactive studies: the analyst program that plans each next round.
  std::shared_ptr<const AnalystProgram> program{};
  std::vector<ScheduledRound> schedule{};

  // A snapshot of the rounds, oldest first.
  std::vector<std::shared_ptr<RoundRuntime>> Rounds() const {
    absl::MutexLock lock(&mutex);
    return rounds;
  }
  std::shared_ptr<RoundRuntime> LatestRound() const {
    absl::MutexLock lock(&mutex);
    return rounds.empty() ? nullptr : rounds.back();
  }
  void AddRound(std::shared_ptr<RoundRuntime> round) {
    absl::MutexLock lock(&mutex);
    round->LinkEarlierAskings(rounds);
    rounds.push_back(std::move(round));
  }
  std::optional<ProgramResult> Result(bool* done) const {
    absl::MutexLock lock(&mutex);
    *done = program_done;
    return program_result;
  }
  void SetResult(ProgramResult result, bool done) {
    absl::MutexLock lock(&mutex);
    program_result = std::move(result);
    program_done = done;
  }
  // The ledger's view of the study (every server's charges).
  void SetLedgerSummary(const LedgerSummary& summary) {
    num_agents = summary.num_agents;
    max_spent_nanos = summary.max_spent_nanos;
  }

  mutable absl::Mutex mutex;
  // Appended by the writer thread (or at load) only.
  std::vector<std::shared_ptr<RoundRuntime>> rounds ABSL_GUARDED_BY(mutex){};
  std::optional<ProgramResult> program_result ABSL_GUARDED_BY(mutex){};
  bool program_done ABSL_GUARDED_BY(mutex) = false;
  // Written by the writer thread only.
  std::atomic<int64_t> num_agents{0};
  std::atomic<int64_t> num_reports{0};
  std::atomic<int64_t> max_spent_nanos{0};
};

// A round with its study, as ingestion needs both.
struct RoundEntry {
  std::shared_ptr<RoundRuntime> round{};
  std::shared_ptr<StudyRuntime> study{};
};

// The row the store keeps for `round` (its plan encoded).
RoundRow RoundRowOf(const RoundRuntime& round);

// Thread-safe.
class StudyRegistry {
 public:
  // `store` (not owned, outlives this) hands out ids when it is shared.
  explicit StudyRegistry(Store& store) : store_(store) {}
  StudyRegistry(const StudyRegistry&) = delete;
  StudyRegistry& operator=(const StudyRegistry&) = delete;

  // Fresh ids: from memory, or from a shared store (so servers on one
  // database never collide). NextRoundId is RESOURCE_EXHAUSTED past
  // kMaxRoundId (task ids have room for no more).
  absl::StatusOr<uint64_t> NextStudyId();
  absl::StatusOr<uint64_t> NextRoundId();
  // At load: ids continue after the largest stored ones.
  void ContinueIdsAfter(uint64_t max_study_id, uint64_t max_round_id);

  // Makes `study` and its rounds visible. With a shared store the follower
  // may register a study (or round) from the database just before the job
  // that wrote it does: the first copy stays, so reports are never counted
  // into a copy that is then dropped.
  void Register(std::shared_ptr<StudyRuntime> study);
  // Makes a round of a registered study visible (after it is stored).
  void RegisterRound(const std::shared_ptr<StudyRuntime>& study,
                     std::shared_ptr<RoundRuntime> round);

  // Empty / null / 0 when unknown.
  RoundEntry FindRound(uint64_t round_id) const;
  std::shared_ptr<StudyRuntime> FindStudy(uint64_t study_id) const;
  // The study a CreateStudy with this non-empty request id made.
  uint64_t StudyForRequest(const std::string& request_id) const;
  // Oldest first.
  std::vector<std::shared_ptr<StudyRuntime>> AllStudies() const;
  // Up to `limit` studies with id ≤ page_start (0 = from the newest),
  // newest first; `next_page_start` is the next page's, or 0 for none.
  std::vector<std::shared_ptr<StudyRuntime>> Page(
      size_t limit, uint64_t page_start, uint64_t& next_page_start) const;

 private:
  Store& store_;
  std::atomic<uint64_t> next_study_id_{1};
  std::atomic<uint64_t> next_round_id_{1};

  mutable absl::Mutex mutex_;
  std::map<uint64_t, std::shared_ptr<StudyRuntime>> studies_
      ABSL_GUARDED_BY(mutex_);
  absl::flat_hash_map<uint64_t, RoundEntry> rounds_ ABSL_GUARDED_BY(mutex_);
  absl::flat_hash_map<std::string, uint64_t> request_ids_
      ABSL_GUARDED_BY(mutex_);
};

}  // namespace ldp

#endif  // LDP_SERVER_CORE_STUDY_REGISTRY_H_
