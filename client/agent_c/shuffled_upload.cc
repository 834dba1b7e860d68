// Shuffled uploads for the C library; see the header.
#include "client/agent_c/shuffled_upload.h"

#include <map>
#include <set>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "client/agent_c/quiet_parse.h"
#include "client/agent_c/upload_acks.h"
#include "client/agent_wire/shuffled_reports.h"
#include "common/base/status_macros.h"
#include "proto/convert/deterministic_bytes.h"
#include "proto/ldp/v1/shuffle_service.pb.h"

namespace ldp {
namespace {

absl::Status NotProducedSubmission(int index, absl::string_view why) {
  return absl::NotFoundError(absl::StrCat(
      "submission ", index, " ", why,
      "; nothing was settled: hand ldp_agent_record_shuffled_upload only the "
      "bytes ldp_agent_next_shuffled_upload gave, unchanged, and ask it for "
      "the next request"));
}

// The tasks of `sent`'s submissions, in order, if each is one of the
// agent's pending sealed reports byte for byte (a SubmitRequest does not
// name the task: the saved bytes do), each once, and the request holds
// nothing else.
absl::StatusOr<std::vector<uint64_t>> ProducedSubmissions(
    const Agent& agent, const v1::SubmitRequest& sent, std::string_view bytes) {
  std::map<std::string, uint64_t> pending;
  for (const SealedReport& report : agent.PendingSealed()) {
    pending.emplace(report.sealed, report.task_id);
  }
  std::vector<uint64_t> tasks;
  std::set<uint64_t> seen;
  v1::SubmitRequest expected;
  for (int i = 0; i < sent.submissions_size(); ++i) {
    const auto it = pending.find(DeterministicBytes(sent.submissions(i)));
    if (it == pending.end()) {
      return NotProducedSubmission(
          i,
          "is none of this agent's pending sealed reports "
          "(settled already, or not made by this agent)");
    }
    if (!seen.insert(it->second).second) {
      return NotProducedSubmission(i, "appears twice in the request");
    }
    *expected.add_submissions() = sent.submissions(i);
    tasks.push_back(it->second);
  }
  if (DeterministicBytes(expected) != bytes) {
    return absl::NotFoundError(
        "the request holds bytes ldp_agent_next_shuffled_upload did not "
        "write; nothing was settled");
  }
  return tasks;
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
  CountSettled({}, accepted, rejected);  // 0 unless it all succeeds
  ASSIGN_OR_RETURN(const v1::SubmitRequest sent,
                   ParseAppBytes<v1::SubmitRequest>(request, request_size,
                                                    "ldp.v1.SubmitRequest"));
  ASSIGN_OR_RETURN(const v1::SubmitResponse acks,
                   ParseAppBytes<v1::SubmitResponse>(response, response_size,
                                                     "ldp.v1.SubmitResponse"));
  ASSIGN_OR_RETURN(const std::vector<uint64_t> tasks,
                   ProducedSubmissions(
                       agent, sent,
                       std::string_view(reinterpret_cast<const char*>(request),
                                        request_size)));
  ASSIGN_OR_RETURN(const std::vector<absl::Status> verdicts,
                   SubmitAcksToStatuses(acks, tasks.size()));
  std::vector<std::pair<uint64_t, absl::Status>> settled;
  for (size_t i = 0; i < tasks.size(); ++i) {
    settled.emplace_back(tasks[i], verdicts[i]);
  }
  RETURN_IF_ERROR(agent.RecordAcks(settled));
  CountSettled(settled, accepted, rejected);
  return absl::OkStatus();
}

}  // namespace ldp
