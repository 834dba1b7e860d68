// The wire form of a round's questions, converted once per question rather
// than once per agent: a workload task can carry a 2 MiB strategy matrix,
// and every agent of a round is sent the same question. Shared by the agent
// and relay adapters.
#ifndef LDP_SERVER_GRPC_WIRE_QUESTION_CACHE_H_
#define LDP_SERVER_GRPC_WIRE_QUESTION_CACHE_H_

#include <memory>
#include <string>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "proto/ldp/v1/types.pb.h"
#include "server/core/aggregator_types.h"

namespace ldp {

// The assignment's question as a v1::Task with task_id unset and the
// round's deadline set (if any): what every agent asked it is sent.
void WireQuestionToProto(const TaskAssignment& assignment, v1::Task* wire);

class WireQuestionCache {
 public:
  // The assignment's question as a v1::Task with task_id unset and the
  // round's deadline set (if any). Holds the question alive while cached;
  // cleared when it outgrows kMaxEntries (old rounds' questions).
  std::shared_ptr<const v1::Task> Get(const TaskAssignment& assignment);
  // QuestionDigest of Get's task (proto/sealing): what a shuffled task's
  // ticket names, computed once per question rather than once per agent.
  std::string Digest(const TaskAssignment& assignment);

 private:
  struct Entry {
    std::shared_ptr<const Task> question;
    std::shared_ptr<const v1::Task> wire;
    std::string digest;
  };
  const Entry& Find(const TaskAssignment& assignment)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  static constexpr size_t kMaxEntries = 4096;
  absl::Mutex mu_;
  absl::flat_hash_map<const Task*, Entry> entries_ ABSL_GUARDED_BY(mu_);
};

}  // namespace ldp

#endif  // LDP_SERVER_GRPC_WIRE_QUESTION_CACHE_H_
