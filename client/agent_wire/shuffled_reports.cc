// Shuffle ticket checks, sealing and shuffler batches; see the header.
#include "client/agent_wire/shuffled_reports.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "client/agent_wire/wire_batching.h"
#include "proto/convert/deterministic_bytes.h"
#include "proto/convert/report_convert.h"
#include "proto/sealing/sealed_report.h"

namespace ldp {
namespace {

absl::Status TicketMismatch(const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat(
      "its shuffle ticket ", what,
      "; a server that tells agents apart this way would single out their "
      "reports at the shuffler"));
}

bool SameTime(const google::protobuf::Timestamp& a,
              const google::protobuf::Timestamp& b) {
  return a.seconds() == b.seconds() && a.nanos() == b.nanos();
}

// The first way `ticket` does not fit the task and the agent, or OK.
absl::Status CheckTicket(const v1::ShuffleTicket& ticket, const v1::Task& task,
                         const v1::ShuffleParams& params, uint64_t agent_id) {
  if (ticket.agent_id() != agent_id) {
    return TicketMismatch(absl::StrCat("names agent ", ticket.agent_id(),
                                       ", not this agent (", agent_id, ")"));
  }
  if (ticket.study_id() != task.study_id() ||
      ticket.round_id() != task.round_id()) {
    return TicketMismatch(
        absl::StrCat("names study ", ticket.study_id(), " round ",
                     ticket.round_id(), ", not the task's study ",
                     task.study_id(), " round ", task.round_id()));
  }
  if (ticket.shuffled_task_id() == 0) {
    return TicketMismatch("has no shuffled task id");
  }
  if (ticket.question_digest() != QuestionDigest(task)) {
    return TicketMismatch("names another question than the task's");
  }
  if (params.hpke_public_key().size() != kHpkeKeyBytes ||
      ticket.key_id() != HpkeKeyId(params.hpke_public_key())) {
    return TicketMismatch(
        "names another key than the task's 32-byte hpke_public_key");
  }
  if (!ticket.has_deadline() || !task.has_deadline() ||
      !SameTime(ticket.deadline(), task.deadline())) {
    return TicketMismatch("names another deadline than the task's");
  }
  if (ticket.min_batch() < 1) {
    return TicketMismatch("has a min_batch below 1");
  }
  return absl::OkStatus();
}

absl::Status SubmitAckToStatus(const v1::SubmitAck& ack) {
  if (ack.code() == static_cast<int>(absl::StatusCode::kAlreadyExists)) {
    return absl::OkStatus();  // an earlier try got through
  }
  return AckCodeToStatus(ack.code(), ack.message());
}

}  // namespace

absl::StatusOr<ReportSealer> ShuffledTaskSealer(
    const v1::Task& task, const v1::ShuffleParams& params,
    const ShuffledTaskOptions& options) {
  if (!options.has_shuffler) {
    return absl::FailedPreconditionError(
        "it belongs to a shuffled study and this agent has no shuffler of "
        "its own (ldp-agent --shuffler); its report must never go to the "
        "server");
  }
  v1::ShuffleTicket ticket;
  if (!ticket.ParseFromString(params.ticket().ticket())) {
    return absl::InvalidArgumentError(
        "its shuffle ticket does not parse as an ldp.v1.ShuffleTicket");
  }
  if (absl::Status s = CheckTicket(ticket, task, params, options.agent_id);
      !s.ok()) {
    return s;
  }
  const uint64_t shuffled_task_id = ticket.shuffled_task_id();
  return ReportSealer([params, shuffled_task_id](const TaskReport& report)
                          -> absl::StatusOr<std::string> {
    v1::Report plain;
    ReportToProto(report, /*agent_id=*/0, &plain);
    plain.set_task_id(shuffled_task_id);
    absl::StatusOr<v1::SealedPayload> sealed = SealReport(plain, params);
    if (!sealed.ok()) {
      return absl::Status(
          sealed.status().code(),
          absl::StrCat("cannot seal its report: ", sealed.status().message()));
    }
    v1::ShuffleSubmission submission;
    *submission.mutable_ticket() = params.ticket();
    *submission.mutable_sealed() = *std::move(sealed);
    return DeterministicBytes(submission);
  });
}

absl::StatusOr<std::vector<v1::SubmitRequest>> MakeSubmitBatches(
    absl::Span<const SealedReport> reports, const UploadBatchLimits& limits) {
  std::vector<v1::SubmitRequest> batches;
  BatchCutter cutter(limits);
  for (const SealedReport& report : reports) {
    v1::ShuffleSubmission submission;
    if (!submission.ParseFromString(report.sealed)) {
      return absl::InvalidArgumentError(
          absl::StrCat("the saved sealed report of task ", report.task_id,
                       " is not an ldp.v1.ShuffleSubmission"));
    }
    if (cutter.Add(static_cast<int64_t>(report.sealed.size()) +
                   kWireItemFramingBytes)) {
      batches.emplace_back();
    }
    *batches.back().add_submissions() = std::move(submission);
  }
  return batches;
}

absl::StatusOr<std::vector<absl::Status>> SubmitAcksToStatuses(
    const v1::SubmitResponse& response, size_t count) {
  if (response.acks_size() != static_cast<int>(count)) {
    return absl::InternalError(
        absl::StrCat("the shuffler acknowledged ", response.acks_size(),
                     " submissions of ", count, " sent"));
  }
  std::vector<absl::Status> statuses;
  statuses.reserve(count);
  for (const v1::SubmitAck& ack : response.acks()) {
    statuses.push_back(SubmitAckToStatus(ack));
  }
  return statuses;
}

}  // namespace ldp
