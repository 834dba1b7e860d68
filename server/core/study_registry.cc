// The registry of studies and rounds; see the header.
#include "server/core/study_registry.h"

#include <utility>

#include "common/base/status_macros.h"
#include "common/tasks/task_id.h"
#include "server/store/storage_codec.h"

namespace ldp {

RoundRow RoundRowOf(const RoundRuntime& round) {
  return RoundRow{.round_id = round.round_id(),
                  .study_id = round.study_id(),
                  .state = round.state(),
                  .start_time = round.start_time(),
                  .deadline = round.deadline(),
                  .plan = EncodePlan(round.plan().decisions())};
}

absl::StatusOr<uint64_t> StudyRegistry::NextStudyId() {
  if (!store_.shared()) return next_study_id_.fetch_add(1);
  return store_.ReserveIds(IdKind::kStudy, 1);
}

absl::StatusOr<uint64_t> StudyRegistry::NextRoundId() {
  uint64_t id = 0;
  if (!store_.shared()) {
    id = next_round_id_.fetch_add(1);
  } else {
    ASSIGN_OR_RETURN(id, store_.ReserveIds(IdKind::kRound, 1));
  }
  if (id > kMaxRoundId) {
    return absl::ResourceExhaustedError(
        "the server has started the largest number of rounds it supports");
  }
  return id;
}

void StudyRegistry::ContinueIdsAfter(uint64_t max_study_id,
                                     uint64_t max_round_id) {
  next_study_id_ = max_study_id + 1;
  next_round_id_ = max_round_id + 1;
}

void StudyRegistry::Register(std::shared_ptr<StudyRuntime> study) {
  absl::MutexLock lock(&mutex_);
  if (studies_.contains(study->study_id)) return;
  for (const auto& round : study->Rounds()) {
    rounds_[round->round_id()] = {.round = round, .study = study};
  }
  if (!study->request_id.empty()) {
    request_ids_[study->request_id] = study->study_id;
  }
  studies_[study->study_id] = std::move(study);
}

void StudyRegistry::RegisterRound(const std::shared_ptr<StudyRuntime>& study,
                                  std::shared_ptr<RoundRuntime> round) {
  absl::MutexLock lock(&mutex_);
  if (rounds_.contains(round->round_id())) return;
  rounds_[round->round_id()] = {.round = round, .study = study};
  study->AddRound(std::move(round));
}

RoundEntry StudyRegistry::FindRound(uint64_t round_id) const {
  absl::ReaderMutexLock lock(&mutex_);
  auto it = rounds_.find(round_id);
  return it == rounds_.end() ? RoundEntry{} : it->second;
}

std::shared_ptr<StudyRuntime> StudyRegistry::FindStudy(
    uint64_t study_id) const {
  absl::ReaderMutexLock lock(&mutex_);
  auto it = studies_.find(study_id);
  return it == studies_.end() ? nullptr : it->second;
}

uint64_t StudyRegistry::StudyForRequest(const std::string& request_id) const {
  absl::ReaderMutexLock lock(&mutex_);
  auto it = request_ids_.find(request_id);
  return it == request_ids_.end() ? 0 : it->second;
}

std::vector<std::shared_ptr<StudyRuntime>> StudyRegistry::AllStudies() const {
  absl::ReaderMutexLock lock(&mutex_);
  std::vector<std::shared_ptr<StudyRuntime>> studies;
  studies.reserve(studies_.size());
  for (const auto& [id, study] : studies_) studies.push_back(study);
  return studies;
}

std::vector<std::shared_ptr<StudyRuntime>> StudyRegistry::Page(
    size_t limit, uint64_t page_start, uint64_t& next_page_start) const {
  std::vector<std::shared_ptr<StudyRuntime>> page;
  next_page_start = 0;
  absl::ReaderMutexLock lock(&mutex_);
  auto it = page_start == 0 ? studies_.end() : studies_.upper_bound(page_start);
  while (it != studies_.begin()) {
    --it;
    if (page.size() == limit) {
      next_page_start = it->first;
      break;
    }
    page.push_back(it->second);
  }
  return page;
}

}  // namespace ldp
