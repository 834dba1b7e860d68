// What the agent works out from a task's question and the study's schema
// alone, before it reads the record or its state: the randomizer, the
// checks that refuse the question whoever is asked, and the question's
// fingerprint (the memo's key). None of it depends on the task's ids, the
// record or the agent's state, so a relay that hands one question to many
// agents prepares it once and gives each agent the same result
// (AgentTask::prepared) instead of each agent repeating the work.
#ifndef LDP_CLIENT_CORE_PREPARED_QUESTION_H_
#define LDP_CLIENT_CORE_PREPARED_QUESTION_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "common/queries/record_schema.h"
#include "common/tasks/task.h"
#include "common/tasks/task_mechanism.h"

namespace ldp {

class PreparedQuestion {
 public:
  // Never null. A question every agent must refuse is prepared too: its
  // status says why (see status()).
  static std::shared_ptr<const PreparedQuestion> Prepare(
      const Task& task, const RecordSchema& schema);

  // OK, or why the question is refused: InvalidArgument if its randomizer
  // cannot be built or implements more than the εₜ it charges
  // (TaskMechanism::Create), if the randomizer is specified at another ε
  // than εₜ, or if the question was not built for `schema`.
  const absl::Status& status() const { return status_; }
  // Only when status() is OK.
  const TaskMechanism& mechanism() const { return *mechanism_; }
  // The canonical fingerprint; empty if it could not be computed.
  const std::string& fingerprint() const { return fingerprint_; }

  // Whether this was prepared from a task of `task`'s study, round, charge
  // and kind of question: catches a relay handing an agent another task's
  // preparation. It is a guard against that mistake, not a proof that the
  // two questions are equal.
  bool PreparedFor(const Task& task) const;

 private:
  PreparedQuestion() = default;

  uint64_t study_id_ = 0;
  uint64_t round_id_ = 0;
  int64_t epsilon_nanos_ = 0;
  size_t question_kind_ = 0;
  absl::Status status_;
  std::shared_ptr<const TaskMechanism> mechanism_;
  std::string fingerprint_;
};

}  // namespace ldp

#endif  // LDP_CLIENT_CORE_PREPARED_QUESTION_H_
