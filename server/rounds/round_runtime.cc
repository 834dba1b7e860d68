// One round's in-memory state; see the header.
#include "server/rounds/round_runtime.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "Eigen/Core"
#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/tasks/task_fingerprint.h"
#include "common/workload/strategies/workload_estimator.h"

namespace ldp {

RoundRuntime::RoundRuntime(const RoundRow& row,
                           std::shared_ptr<const StudySpec> study,
                           RoundPlan plan)
    : round_id_(row.round_id),
      study_id_(row.study_id),
      study_(std::move(study)),
      plan_(std::move(plan)),
      start_time_(row.start_time),
      deadline_(row.deadline),
      state_(row.state),
      reported_(row.round_id, static_cast<int>(plan_.questions().size())) {
  for (const PlannedQuestion& planned : plan_.questions()) {
    auto task = std::make_shared<Task>(*planned.task);
    task->study_id = study_id_;
    task->round_id = round_id_;
    questions_.push_back(std::make_unique<Question>(
        std::move(task), planned.mechanism, planned.workload));
    questions_.back()->fingerprint =
        TaskFingerprint(planned.mechanism->canonical_task(), study_->schema);
  }
  if (row.state != RoundState::kOpen) close_claimed_ = true;
}

void RoundRuntime::LinkEarlierAskings(
    const std::vector<std::shared_ptr<RoundRuntime>>& earlier) {
  for (int q = 0; q < num_questions(); ++q) {
    Question& question = *questions_[q];
    for (const auto& round : earlier) {
      for (int e = 0; e < round->num_questions(); ++e) {
        if (round->fingerprint(e) == question.fingerprint) {
          question.earlier.push_back({round, e});
        }
      }
    }
  }
  // Earlier questions of this same round: never a cycle, since the round
  // holds itself only through `questions_`, which it owns.
  for (int q = 0; q < num_questions(); ++q) {
    for (int e = 0; e < q; ++e) {
      if (fingerprint(e) == fingerprint(q))
        questions_[q]->earlier.push_back({nullptr, e});
    }
  }
}

absl::Status RoundRuntime::Accumulate(uint64_t task_id, int q,
                                      const ReportPayload& payload) {
  // The task is claimed first: with a shared store, the writer (a report
  // this server stored) and the follower (the same report read back from
  // the database) may both offer it, and exactly one must count it.
  if (!reported_.Insert(task_id)) {
    return absl::AlreadyExistsError("the task's report is already counted");
  }
  Question& question = *questions_[q];
  absl::MutexLock lock(&question.mutex);
  // The stored statistics count it already.
  if (question.from_statistics) return absl::OkStatus();
  absl::Status status = question.accumulator.Add(payload);
  if (!status.ok()) {
    reported_.Erase(task_id);
    return status;
  }
  // Under the lock, so that AdoptStatistics's count is never added to.
  question.num_reports.fetch_add(1, std::memory_order_relaxed);
  return absl::OkStatus();
}

absl::Status RoundRuntime::CheckBatch(
    const std::vector<TaskAccumulator>& batch) const {
  if (batch.size() == questions_.size()) return absl::OkStatus();
  return absl::InternalError(absl::StrCat("a batch of ", batch.size(),
                                          " questions for round ", round_id_,
                                          " of ", questions_.size()));
}

absl::StatusOr<bool> RoundRuntime::MergeDelta(
    uint64_t delta_id, const std::vector<TaskAccumulator>& batch) {
  RETURN_IF_ERROR(CheckBatch(batch));
  {
    absl::MutexLock lock(&deltas_mutex_);
    if (!merged_deltas_.insert(delta_id).second) return false;
  }
  RETURN_IF_ERROR(MergeBatch(batch));
  return true;
}

absl::Status RoundRuntime::MergeBatch(
    const std::vector<TaskAccumulator>& batch) {
  RETURN_IF_ERROR(CheckBatch(batch));
  for (size_t q = 0; q < questions_.size(); ++q) {
    Question& question = *questions_[q];
    absl::MutexLock lock(&question.mutex);
    // The stored statistics count it already.
    if (question.from_statistics) continue;
    RETURN_IF_ERROR(question.accumulator.MergeState(batch[q].State()));
    question.num_reports.fetch_add(batch[q].num_reports(),
                                   std::memory_order_relaxed);
  }
  return absl::OkStatus();
}

TaskAccumulator RoundRuntime::NewAccumulator(int q) const {
  const PlannedQuestion& planned = plan_.questions()[q];
  return TaskAccumulator(planned.mechanism, planned.workload);
}

void RoundRuntime::AdoptStatistics(std::vector<TaskAccumulator> merged) {
  for (int q = 0; q < num_questions(); ++q) {
    Question& question = *questions_[q];
    absl::MutexLock lock(&question.mutex);
    question.accumulator = std::move(merged[q]);
    question.from_statistics = true;
    question.num_reports.store(question.accumulator.num_reports(),
                               std::memory_order_relaxed);
  }
  from_statistics_.store(true, std::memory_order_release);
}

absl::Status RoundRuntime::AccumulateShuffled(int q,
                                              const ReportPayload& payload) {
  Question& question = *questions_[q];
  {
    absl::MutexLock lock(&question.mutex);
    RETURN_IF_ERROR(question.accumulator.Add(payload));
  }
  question.num_reports.fetch_add(1, std::memory_order_relaxed);
  return absl::OkStatus();
}

void RoundRuntime::RecordShuffledBatch(int q, int64_t accepted) {
  Question& question = *questions_[q];
  absl::MutexLock lock(&question.mutex);
  ShuffledBatches& batches = question.shuffled;
  batches.smallest =
      batches.count == 0 ? accepted : std::min(batches.smallest, accepted);
  ++batches.count;
}

RoundRuntime::ShuffledBatches RoundRuntime::shuffled_batches(int q) const {
  const Question& question = *questions_[q];
  absl::MutexLock lock(&question.mutex);
  return question.shuffled;
}

bool RoundRuntime::QuorumReached(int64_t quorum) const {
  for (const auto& question : questions_) {
    if (question->num_reports.load(std::memory_order_relaxed) < quorum) {
      return false;
    }
  }
  return true;
}

TaskEstimate RoundRuntime::Estimate(int q, double confidence) const {
  const Question& question = *questions_[q];
  const WorkloadEstimation& workload = plan_.questions()[q].workload;
  if (workload.estimator == nullptr) {
    absl::MutexLock lock(&question.mutex);
    return question.accumulator.Estimate(confidence);
  }
  // A workload's reconstruction can take a while (m answers and their
  // variances): copy the sufficient statistics, then let ingestion go on.
  std::vector<double> y_hat;
  int64_t n = 0;
  {
    absl::MutexLock lock(&question.mutex);
    y_hat = question.accumulator.StrategyEstimate();
    n = question.accumulator.num_reports();
  }
  return workload.estimator->Estimate(
      Eigen::Map<const Eigen::VectorXd>(
          y_hat.data(), static_cast<Eigen::Index>(y_hat.size())),
      n, confidence, workload.consistency);
}

}  // namespace ldp
