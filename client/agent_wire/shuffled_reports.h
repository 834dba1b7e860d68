// The agent's side of a shuffled study in bytes, without a transport: the
// checks a task's shuffle ticket must pass before the agent answers it, the
// sealing of its report (proto/sealing, types.proto "The shuffle model"),
// and the SubmitRequest batches for the agent's own shuffler with their acks
// read back. ldp_agent_client sends them over gRPC; an app with its own
// network stack (ldp_agent.h) carries them itself.
//
// Why the agent checks a ticket it cannot verify: a hostile server that
// gave agents different keys or questions could tell their reports apart.
// The shuffler would hold such reports in batches of one, never released,
// but refusing them here costs the agent nothing, and its budget is not
// charged for a report that would never count.
#ifndef LDP_CLIENT_AGENT_WIRE_SHUFFLED_REPORTS_H_
#define LDP_CLIENT_AGENT_WIRE_SHUFFLED_REPORTS_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "client/agent_wire/upload_batches.h"
#include "client/core/agent.h"
#include "proto/ldp/v1/shuffle_service.pb.h"
#include "proto/ldp/v1/types.pb.h"

namespace ldp {

// What decides whether an agent may answer shuffled tasks.
struct ShuffledTaskOptions {
  // The agent's own id: a ticket must name it.
  uint64_t agent_id = 0;
  // Whether the agent has a shuffler of its own (ldp-agent --shuffler, or
  // an app that calls ldp_agent_use_shuffler). The server never says where
  // the shuffler is: a hostile one would name itself.
  bool has_shuffler = false;
};

// The sealer for a shuffled task (AgentTask::seal), or why the agent
// refuses it: FailedPrecondition without a shuffler; InvalidArgument unless
// the ticket parses and names this agent, the task's study and round, a
// nonzero shuffled task id, QuestionDigest(task), the key id of the
// 32-byte hpke_public_key, the task's deadline and a min_batch of at least
// 1. `task` is the Task as received (its own task_id and shuffle, if any,
// do not enter the digest). The sealer builds the plaintext Report (the
// shuffled task id, agent_id 0, the report's own id and payload), seals it
// with SealReport and returns the deterministic bytes of the
// ShuffleSubmission {ticket, sealed}.
absl::StatusOr<ReportSealer> ShuffledTaskSealer(
    const v1::Task& task, const v1::ShuffleParams& params,
    const ShuffledTaskOptions& options);

// The pending sealed reports as SubmitRequests (up to 1000 submissions and
// about limits.max_batch_bytes each, in order). InvalidArgument, naming the
// task, if saved bytes are not a ShuffleSubmission (then nothing is sent).
absl::StatusOr<std::vector<v1::SubmitRequest>> MakeSubmitBatches(
    absl::Span<const SealedReport> reports, const UploadBatchLimits& limits);

// The shuffler's verdict on each of `count` submissions, in order. OK for
// ALREADY_EXISTS too: the shuffler already holds this agent's report for
// the task, so the first try got through. Internal if the response does
// not hold exactly `count` acks (nothing is settled then).
absl::StatusOr<std::vector<absl::Status>> SubmitAcksToStatuses(
    const v1::SubmitResponse& response, size_t count);

}  // namespace ldp

#endif  // LDP_CLIENT_AGENT_WIRE_SHUFFLED_REPORTS_H_
