// The commit job of an enrollment; see the header.
#include "server/core/enroll_job.h"

#include <algorithm>
#include <string_view>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "common/base/status_macros.h"
#include "server/core/agent_registry.h"

namespace ldp {

absl::Status QuotaUsedUp(int64_t max_agents, int64_t enrolled, int64_t asked) {
  return absl::ResourceExhaustedError(absl::StrCat(
      "this enrollment token admits ", max_agents, " agents and has ",
      std::max<int64_t>(max_agents - enrolled, 0), " left, fewer than the ",
      asked, " asked for; ask the operator for a new token"));
}

EnrollJob::EnrollJob(AgentRegistry* registry, std::string batch, int count,
                     std::vector<AgentRow> rows,
                     std::vector<std::string> tokens, int64_t max_agents,
                     std::optional<Retry> retry, Done done)
    : registry_(registry),
      batch_(std::move(batch)),
      count_(count),
      rows_(std::move(rows)),
      tokens_(std::move(tokens)),
      max_agents_(max_agents),
      retry_(std::move(retry)),
      done_(std::move(done)) {}

const AggregatorContext& EnrollJob::context() const {
  return registry_->context_;
}

// A request's agents are stored all at once, from index 0 on: if its first
// digest is not stored, none is, and a new enrollment costs one probe.
absl::Status EnrollJob::Apply(StoreTransaction& transaction) {
  decision_ = {};
  stored_.clear();
  if (retry_.has_value()) {
    const absl::Span<const std::string> digests = retry_->derived.digests;
    ASSIGN_OR_RETURN(stored_, transaction.FindEnrolledAgents(digests.first(1)));
    if (!stored_.empty() && digests.size() > 1) {
      ASSIGN_OR_RETURN(stored_, transaction.FindEnrolledAgents(digests));
    }
    if (!stored_.empty() || rows_.empty()) return absl::OkStatus();
  }
  if (max_agents_ == 0) return transaction.InsertAgents(rows_);
  ASSIGN_OR_RETURN(decision_,
                   transaction.InsertAgentsWithinQuota(rows_, max_agents_));
  return absl::OkStatus();
}

void EnrollJob::Refuse(absl::Status status) {
  registry_->ReleaseEnrollment(batch_, static_cast<int64_t>(rows_.size()));
  context().stats.RecordEnrollment(false, count_);
  std::move(done_)(std::move(status));
}

void EnrollJob::Finish(const absl::Status& commit_status) {
  if (!commit_status.ok()) return FailCommit(commit_status);
  if (!stored_.empty()) return AnswerStored();
  if (rows_.empty()) {  // looked for a first attempt, found none
    context().Log(LogLevel::kInfo, "enrollment_refused",
                  {{"reason", "quota_used_up"}});
    return Refuse(retry_->refusal);
  }
  if (!decision_.admitted) return RefuseOverQuota();
  context().stats.RecordEnrollment(true, count_);
  if (decision_.enrolled_before >= 0) {
    registry_->NoteStoredEnrollments(batch_,
                                     decision_.enrolled_before + count_);
  }
  std::vector<Enrollment> enrollments;
  enrollments.reserve(rows_.size());
  for (size_t i = 0; i < rows_.size(); ++i) {
    registry_->directory_.Add(rows_[i].agent_id, rows_[i].credential_hash);
    enrollments.push_back(
        {.agent_id = rows_[i].agent_id, .bearer_token = std::move(tokens_[i])});
  }
  std::move(done_)(std::move(enrollments));
}

void EnrollJob::FailCommit(const absl::Status& commit_status) {
  context().Log(LogLevel::kWarning, "store_commit_failed",
                {{"job", "enroll"},
                 {"agents", absl::StrCat(count_)},
                 {"error", std::string(commit_status.message())}});
  Refuse(absl::UnavailableError(absl::StrCat(
      "enrollment was not stored (", commit_status.message(), "); retry")));
}

// The store counted every server's agents of the batch and found no room:
// nothing was stored. This server learns the count, so that its own
// pre-check refuses the next such call without asking the database.
void EnrollJob::RefuseOverQuota() {
  context().Log(LogLevel::kInfo, "enrollment_refused",
                {{"reason", "quota_used_up"},
                 {"quota", absl::StrCat(max_agents_)},
                 {"counted_by", "database"}});
  registry_->ReleaseEnrollment(batch_, static_cast<int64_t>(rows_.size()));
  registry_->NoteStoredEnrollments(batch_, decision_.enrolled_before);
  context().stats.RecordEnrollment(false, count_);
  std::move(done_)(QuotaUsedUp(max_agents_, decision_.enrolled_before, count_));
}

// Nothing new was stored, so the slots this call reserved go back: a
// retry is counted once, by its first attempt.
void EnrollJob::AnswerStored() {
  registry_->ReleaseEnrollment(batch_, static_cast<int64_t>(rows_.size()));
  absl::StatusOr<std::vector<Enrollment>> answer = MatchStored();
  if (!answer.ok()) {
    context().Log(LogLevel::kInfo, "enrollment_refused",
                  {{"reason", "request_id_reused"}});
  }
  context().stats.RecordEnrollment(answer.ok(), count_);
  std::move(done_)(std::move(answer));
}

// Each stored agent i must carry digest i and the hash of secret i, which
// binds the count and the CSR: a stored set of another size, or another
// CSR's, was another request under the same id.
absl::StatusOr<std::vector<Enrollment>> EnrollJob::MatchStored() {
  const DerivedEnrollment& derived = retry_->derived;
  if (stored_.size() != derived.digests.size()) {
    return EnrollmentRequestReused();
  }
  absl::flat_hash_map<std::string_view, const AgentRow*> by_digest;
  for (const AgentRow& row : stored_) {
    by_digest.emplace(row.enrollment_request, &row);
  }
  std::vector<Enrollment> enrollments;
  enrollments.reserve(stored_.size());
  for (size_t i = 0; i < derived.digests.size(); ++i) {
    const auto it = by_digest.find(derived.digests[i]);
    if (it == by_digest.end()) return EnrollmentRequestReused();
    const AgentRow& row = *it->second;
    IssuedCredential credential =
        CredentialFromSecret(row.agent_id, derived.secrets[i]);
    if (!SameCredentialHash(credential.hash, row.credential_hash)) {
      return EnrollmentRequestReused();
    }
    enrollments.push_back({.agent_id = row.agent_id,
                           .bearer_token = std::move(credential.bearer_token)});
  }
  // Another server's agents (a shared store) are known here from now on.
  for (const AgentRow& row : stored_) {
    registry_->directory_.Add(row.agent_id, row.credential_hash);
  }
  return enrollments;
}

}  // namespace ldp
