// WireQuestionCache; see the header.
#include "server/grpc/wire_question_cache.h"

#include "proto/convert/task_convert.h"
#include "proto/convert/time_convert.h"

namespace ldp {

void WireQuestionToProto(const TaskAssignment& assignment, v1::Task* wire) {
  TaskToProto(*assignment.question, assignment.study->schema, wire);
  // Every assignment of a question shares its round, hence its deadline.
  if (assignment.deadline != absl::InfiniteFuture()) {
    TimeToProto(assignment.deadline, wire->mutable_deadline());
  }
}

std::shared_ptr<const v1::Task> WireQuestionCache::Get(
    const TaskAssignment& assignment) {
  absl::MutexLock lock(&mu_);
  auto it = entries_.find(assignment.question.get());
  if (it != entries_.end()) return it->second.second;
  if (entries_.size() >= kMaxEntries) entries_.clear();
  auto wire = std::make_shared<v1::Task>();
  WireQuestionToProto(assignment, wire.get());
  entries_.emplace(assignment.question.get(),
                   std::make_pair(assignment.question, wire));
  return wire;
}

}  // namespace ldp
