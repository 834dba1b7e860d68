// WireQuestionCache; see the header.
#include "server/grpc/wire_question_cache.h"

#include "proto/convert/task_convert.h"
#include "proto/convert/time_convert.h"
#include "proto/sealing/sealed_report.h"

namespace ldp {

void WireQuestionToProto(const TaskAssignment& assignment, v1::Task* wire) {
  TaskToProto(*assignment.question, assignment.study->schema, wire);
  // Every assignment of a question shares its round, hence its deadline.
  if (assignment.deadline != absl::InfiniteFuture()) {
    TimeToProto(assignment.deadline, wire->mutable_deadline());
  }
}

const WireQuestionCache::Entry& WireQuestionCache::Find(
    const TaskAssignment& assignment) {
  auto it = entries_.find(assignment.question.get());
  if (it != entries_.end()) return it->second;
  if (entries_.size() >= kMaxEntries) entries_.clear();
  auto wire = std::make_shared<v1::Task>();
  WireQuestionToProto(assignment, wire.get());
  std::string digest = QuestionDigest(*wire);
  return entries_
      .emplace(assignment.question.get(),
               Entry{assignment.question, std::move(wire), std::move(digest)})
      .first->second;
}

std::shared_ptr<const v1::Task> WireQuestionCache::Get(
    const TaskAssignment& assignment) {
  absl::MutexLock lock(&mu_);
  return Find(assignment).wire;
}

std::string WireQuestionCache::Digest(const TaskAssignment& assignment) {
  absl::MutexLock lock(&mu_);
  return Find(assignment).digest;
}

}  // namespace ldp
