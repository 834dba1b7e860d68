// Opening shuffled batches; see the header.
#include "server/grpc/shuffled_batch_opener.h"

#include <cstring>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/tasks/task_id.h"
#include "proto/convert/report_convert.h"
#include "proto/sealing/sealed_report.h"
#include "server/grpc/wire_question_cache.h"

namespace ldp {
namespace {

absl::Status CheckHeader(const v1::ShuffledBatchHeader& header) {
  if (header.batch_id().size() != 16) {
    return absl::InvalidArgumentError(absl::StrCat(
        "batch_id must have 16 bytes, got ", header.batch_id().size()));
  }
  const TaskKey key = UnpackTaskId(header.shuffled_task_id());
  if (key.agent_id != 0 || key.round_id != header.round_id()) {
    return absl::InvalidArgumentError(
        absl::StrCat("shuffled_task_id ", header.shuffled_task_id(),
                     " is not a shuffled task of round ", header.round_id()));
  }
  return absl::OkStatus();
}

// SHA-256 of the question as every agent was sent it.
std::string ServerDigest(const TaskAssignment& assignment) {
  v1::Task wire;
  WireQuestionToProto(assignment, &wire);
  return QuestionDigest(wire);
}

void OpenOne(const HpkeKeyPair& key, const v1::ShuffledBatchHeader& header,
             const v1::SealedPayload& payload, ShuffledBatch& batch) {
  absl::StatusOr<v1::Report> report = OpenReport(key, header, payload);
  absl::StatusOr<TaskReport> parsed =
      report.ok() ? ReportFromProto(*report)
                  : absl::StatusOr<TaskReport>(report.status());
  if (parsed.ok()) {
    batch.reports.push_back(*std::move(parsed));
    return;
  }
  ++(report.ok() ? batch.invalid : batch.not_opened);
  if (batch.first_error.empty()) {
    batch.first_error = std::string(parsed.status().message());
  }
}

}  // namespace

absl::StatusOr<ShuffledBatch> OpenShuffledBatch(
    const Aggregator& aggregator, const ShuffleKeyring& keys,
    const v1::ShuffledBatchHeader& header,
    const std::vector<v1::SealedPayload>& payloads) {
  RETURN_IF_ERROR(CheckHeader(header));
  const uint32_t question = UnpackTaskId(header.shuffled_task_id()).question;
  ASSIGN_OR_RETURN(const TaskAssignment assignment,
                   aggregator.ShuffledQuestion(header.study_id(),
                                               header.round_id(), question));
  const HpkeKeyPair* key = keys.Find(header.key_id());
  if (key == nullptr) {
    return absl::FailedPreconditionError(
        "the batch is sealed to a key this server does not keep (rotated "
        "out, or never its own)");
  }
  if (ServerDigest(assignment) != header.question_digest()) {
    return absl::FailedPreconditionError(
        "the batch's question digest is not this server's question: its "
        "agents were sent another question");
  }
  ShuffledBatch batch{.study_id = header.study_id(),
                      .round_id = header.round_id(),
                      .question = question};
  std::memcpy(batch.batch_id.data(), header.batch_id().data(), 16);
  batch.reports.reserve(payloads.size());
  for (const v1::SealedPayload& payload : payloads) {
    OpenOne(*key, header, payload, batch);
  }
  return batch;
}

}  // namespace ldp
