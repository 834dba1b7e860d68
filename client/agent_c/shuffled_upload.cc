// Shuffled uploads for the C library; see the header.
#include "client/agent_c/shuffled_upload.h"

#include <map>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "client/agent_c/upload_acks.h"
#include "client/agent_wire/shuffled_reports.h"
#include "common/base/status_macros.h"
#include "proto/convert/deterministic_bytes.h"
#include "proto/ldp/v1/shuffle_service.pb.h"

namespace ldp {
namespace {

// The pending sealed reports' tasks by their bytes: how a submission is
// known, since a SubmitRequest does not name the agent's task.
std::map<std::string, uint64_t> PendingByBytes(const Agent& agent) {
  std::map<std::string, uint64_t> pending;
  for (const SealedReport& report : agent.PendingSealed()) {
    pending.emplace(report.sealed, report.task_id);
  }
  return pending;
}

}  // namespace

absl::StatusOr<std::string> NextShuffledUpload(const Agent& agent) {
  const std::vector<SealedReport> pending = agent.PendingSealed();
  if (pending.empty()) return std::string();
  ASSIGN_OR_RETURN(const std::vector<v1::SubmitRequest> batches,
                   MakeSubmitBatches(pending, {}));
  return DeterministicBytes(batches.front());
}

absl::Status RecordShuffledUpload(Agent& agent, const uint8_t* request,
                                  size_t request_size, const uint8_t* response,
                                  size_t response_size, int* accepted,
                                  int* rejected) {
  ASSIGN_OR_RETURN(const v1::SubmitRequest sent,
                   ParseAppBytes<v1::SubmitRequest>(request, request_size,
                                                    "ldp.v1.SubmitRequest"));
  ASSIGN_OR_RETURN(const v1::SubmitResponse acks,
                   ParseAppBytes<v1::SubmitResponse>(response, response_size,
                                                     "ldp.v1.SubmitResponse"));
  ASSIGN_OR_RETURN(const std::vector<absl::Status> verdicts,
                   SubmitAcksToStatuses(acks, sent.submissions_size()));
  const std::map<std::string, uint64_t> pending = PendingByBytes(agent);
  std::vector<std::pair<uint64_t, absl::Status>> settled;
  absl::Status unknown;
  for (int i = 0; i < sent.submissions_size(); ++i) {
    const auto it = pending.find(DeterministicBytes(sent.submissions(i)));
    if (it == pending.end()) {
      unknown.Update(absl::NotFoundError(absl::StrCat(
          "submission ", i,
          " is none of this agent's pending sealed reports "
          "(settled already, or not from ldp_agent_next_shuffled_upload)")));
      continue;
    }
    settled.emplace_back(it->second, verdicts[i]);
  }
  CountSettled(settled, accepted, rejected);
  absl::Status result = agent.RecordAcks(settled);
  result.Update(unknown);
  return result;
}

}  // namespace ldp
