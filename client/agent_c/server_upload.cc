// The server's acks for the C library; see the header.
#include "client/agent_c/server_upload.h"

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "client/agent_c/quiet_parse.h"
#include "client/agent_c/upload_acks.h"
#include "client/agent_wire/upload_batches.h"
#include "common/base/status_macros.h"
#include "proto/convert/deterministic_bytes.h"
#include "proto/convert/report_convert.h"
#include "proto/ldp/v1/agent_service.pb.h"

namespace ldp {
namespace {

absl::Status NotProducedReport(int index, uint64_t task_id,
                               absl::string_view why) {
  return absl::NotFoundError(absl::StrCat(
      "report ", index, " (task ", task_id, ") ", why,
      "; nothing was settled: hand ldp_agent_record_upload only the bytes "
      "ldp_agent_next_upload gave, unchanged, and ask it for the next "
      "request"));
}

// The agent's pending reports for `sent`'s reports, in order, if the
// request is exactly what ldp_agent_next_upload writes for them (each
// report built from the pending one, under the request's one agent id).
absl::StatusOr<std::vector<TaskReport>> ProducedReports(
    const Agent& agent, const v1::UploadReportsRequest& sent,
    std::string_view bytes) {
  std::map<uint64_t, TaskReport> pending;
  for (TaskReport& report : agent.PendingReports()) {
    const uint64_t task_id = report.task_id;
    pending.emplace(task_id, std::move(report));
  }
  const uint64_t agent_id =
      sent.reports_size() > 0 ? sent.reports(0).agent_id() : 0;
  std::vector<TaskReport> reports;
  std::set<uint64_t> seen;
  v1::UploadReportsRequest expected;
  for (int i = 0; i < sent.reports_size(); ++i) {
    const uint64_t task_id = sent.reports(i).task_id();
    const auto it = pending.find(task_id);
    if (it == pending.end()) {
      return NotProducedReport(
          i, task_id,
          "is none of this agent's pending reports (settled "
          "already, or never answered by it)");
    }
    if (!seen.insert(task_id).second) {
      return NotProducedReport(i, task_id, "appears twice in the request");
    }
    ReportToProto(it->second, agent_id, expected.add_reports());
    if (DeterministicBytes(expected.reports(i)) !=
        DeterministicBytes(sent.reports(i))) {
      return NotProducedReport(
          i, task_id, "differs from the report this agent holds for it");
    }
    reports.push_back(it->second);
  }
  if (DeterministicBytes(expected) != bytes) {
    return absl::NotFoundError(
        "the request holds bytes ldp_agent_next_upload did not write; "
        "nothing was settled");
  }
  return reports;
}

}  // namespace

absl::Status RecordUpload(Agent& agent, const uint8_t* request,
                          size_t request_size, const uint8_t* response,
                          size_t response_size, int* accepted, int* rejected) {
  CountSettled({}, accepted, rejected);  // 0 unless it all succeeds
  ASSIGN_OR_RETURN(const v1::UploadReportsRequest sent,
                   ParseAppBytes<v1::UploadReportsRequest>(
                       request, request_size, "UploadReportsRequest"));
  ASSIGN_OR_RETURN(const v1::UploadReportsResponse acks,
                   ParseAppBytes<v1::UploadReportsResponse>(
                       response, response_size, "UploadReportsResponse"));
  ASSIGN_OR_RETURN(
      const std::vector<TaskReport> reports,
      ProducedReports(agent, sent,
                      std::string_view(reinterpret_cast<const char*>(request),
                                       request_size)));
  ASSIGN_OR_RETURN(const std::vector<absl::Status> verdicts,
                   AcksToStatuses(acks, reports));
  std::vector<std::pair<uint64_t, absl::Status>> settled;
  for (size_t i = 0; i < reports.size(); ++i) {
    settled.emplace_back(reports[i].task_id, verdicts[i]);
  }
  RETURN_IF_ERROR(agent.RecordAcks(settled));
  CountSettled(settled, accepted, rejected);
  return absl::OkStatus();
}

}  // namespace ldp
