// Shuffle tickets; see the header.
#include "server/grpc/shuffle_tickets.h"

#include <string>

#include "common/base/status_macros.h"
#include "common/tasks/task_id.h"
#include "proto/convert/time_convert.h"
#include "proto/sealing/sealed_report.h"

namespace ldp {

absl::StatusOr<v1::ShuffleParams> ShuffleTicketIssuer::Issue(
    const TaskAssignment& assignment, std::string_view question_digest,
    uint64_t agent_id) const {
  const ShuffleSpec& shuffle = *assignment.study->shuffle;
  const TaskKey key = UnpackTaskId(assignment.task_id);
  v1::ShuffleTicket ticket;
  ticket.set_agent_id(agent_id);
  ticket.set_study_id(assignment.question->study_id);
  ticket.set_round_id(key.round_id);
  ticket.set_shuffled_task_id(ShuffledTaskId(key.round_id, key.question));
  ticket.set_key_id(keys_.current_key_id());
  ticket.set_question_digest(std::string(question_digest));
  ticket.set_min_batch(static_cast<uint64_t>(shuffle.min_batch));
  TimeToProto(assignment.deadline, ticket.mutable_deadline());
  v1::ShuffleParams params;
  params.set_hpke_public_key(std::string(keys_.current_public_key()));
  ASSIGN_OR_RETURN(*params.mutable_ticket(),
                   SignTicket(ticket, keys_.ticket_key()));
  params.set_target_epsilon(shuffle.target_epsilon);
  params.set_delta(shuffle.delta);
  return params;
}

absl::Status AttachShuffle(const ShuffleTicketIssuer* issuer,
                           const TaskAssignment& assignment,
                           std::string_view question_digest, uint64_t agent_id,
                           v1::ShuffleParams& wire) {
  if (issuer == nullptr) {
    return absl::InternalError(
        "a shuffled study's task, but this server has no shuffle keys");
  }
  ASSIGN_OR_RETURN(wire, issuer->Issue(assignment, question_digest, agent_id));
  return absl::OkStatus();
}

}  // namespace ldp
