// Enrollment, agent ids and agent authentication; see the header.
#include "server/core/agent_registry.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "server/core/credential.h"
#include "server/core/task_id.h"

namespace ldp {
namespace {

// The refusal of an enrollment past its token's quota, whoever counted.
absl::Status QuotaUsedUp(int64_t max_agents, int64_t enrolled, int64_t asked) {
  return absl::ResourceExhaustedError(absl::StrCat(
      "this enrollment token admits ", max_agents, " agents and has ",
      std::max<int64_t>(max_agents - enrolled, 0), " left, fewer than the ",
      asked, " asked for; ask the operator for a new token"));
}

}  // namespace

std::string EnrollmentBatchKey(std::string_view token) {
  const CredentialHash hash = Sha256(token);
  return std::string(hash.begin(), hash.end());
}

// Stores one or more agents in one transaction: a relay's EnrollBatch is
// one job, so a thousand enrollments cost one commit, not a thousand.
class EnrollJob final : public CommitJob {
 public:
  // `rows` (non-empty) share one enrollment batch; tokens[i] is rows[i]'s.
  // max_agents: the batch's quota (0 = none), for a store that counts it.
  EnrollJob(
      AgentRegistry* registry, std::vector<AgentRow> rows,
      std::vector<std::string> tokens, int64_t max_agents,
      absl::AnyInvocable<void(absl::StatusOr<std::vector<Enrollment>>) &&> done)
      : registry_(registry),
        rows_(std::move(rows)),
        tokens_(std::move(tokens)),
        max_agents_(max_agents),
        done_(std::move(done)) {}

  int64_t NumWrites() const override {
    return static_cast<int64_t>(rows_.size());
  }

  // A run again (CommitJob::Apply) overwrites the decision.
  absl::Status Apply(StoreTransaction& transaction) override {
    if (max_agents_ == 0) return transaction.InsertAgents(rows_);
    ASSIGN_OR_RETURN(decision_,
                     transaction.InsertAgentsWithinQuota(rows_, max_agents_));
    return absl::OkStatus();
  }

  // Never submitted (backpressure): answer `status` instead.
  void Refuse(absl::Status status) {
    registry_->ReleaseEnrollment(batch(), NumWrites());
    context().stats.RecordEnrollment(false, NumWrites());
    std::move(done_)(std::move(status));
  }

  void Finish(const absl::Status& commit_status) override {
    if (commit_status.ok() && !decision_.admitted) return RefuseOverQuota();
    context().stats.RecordEnrollment(commit_status.ok(), NumWrites());
    if (!commit_status.ok()) {
      context().Log(LogLevel::kWarning, "store_commit_failed",
                    {{"job", "enroll"},
                     {"agents", absl::StrCat(rows_.size())},
                     {"error", std::string(commit_status.message())}});
      registry_->ReleaseEnrollment(batch(), NumWrites());
      std::move(done_)(absl::UnavailableError(absl::StrCat(
          "enrollment was not stored (", commit_status.message(), "); retry")));
      return;
    }
    if (decision_.enrolled_before >= 0) {
      registry_->NoteStoredEnrollments(batch(),
                                       decision_.enrolled_before + NumWrites());
    }
    std::vector<Enrollment> enrollments;
    enrollments.reserve(rows_.size());
    for (size_t i = 0; i < rows_.size(); ++i) {
      registry_->directory_.Add(rows_[i].agent_id, rows_[i].credential_hash);
      enrollments.push_back({.agent_id = rows_[i].agent_id,
                             .bearer_token = std::move(tokens_[i])});
    }
    std::move(done_)(std::move(enrollments));
  }

 private:
  const AggregatorContext& context() const { return registry_->context_; }
  const std::string& batch() const { return rows_.front().enrollment_batch; }

  // The store counted every server's agents of the batch and found no
  // room: nothing was stored. This server learns the count, so that its
  // own pre-check refuses the next such call without asking the database.
  void RefuseOverQuota() {
    context().Log(LogLevel::kInfo, "enrollment_refused",
                  {{"reason", "quota_used_up"},
                   {"quota", absl::StrCat(max_agents_)},
                   {"counted_by", "database"}});
    registry_->ReleaseEnrollment(batch(), NumWrites());
    registry_->NoteStoredEnrollments(batch(), decision_.enrolled_before);
    context().stats.RecordEnrollment(false, NumWrites());
    std::move(done_)(
        QuotaUsedUp(max_agents_, decision_.enrolled_before, NumWrites()));
  }

  AgentRegistry* registry_;
  std::vector<AgentRow> rows_;
  std::vector<std::string> tokens_;
  const int64_t max_agents_;
  QuotaDecision decision_;
  absl::AnyInvocable<void(absl::StatusOr<std::vector<Enrollment>>) &&> done_;
};

AgentRegistry::AgentRegistry(const AggregatorContext& context,
                             std::unique_ptr<SecureRandom> random)
    : context_(context),
      open_enrollment_(context.options.enrollment_token.empty() &&
                       context.options.enrollment_quotas.empty()),
      random_(std::move(random)) {
  const AggregatorOptions& options = context.options;
  absl::MutexLock lock(&enrollment_mutex_);
  if (!options.enrollment_token.empty()) {
    enrollment_batches_[EnrollmentBatchKey(options.enrollment_token)] = {};
  }
  for (const EnrollmentQuota& quota : options.enrollment_quotas) {
    enrollment_batches_[EnrollmentBatchKey(quota.token)] = {
        .max_agents = quota.max_agents};
  }
}

absl::Status AgentRegistry::LoadFromStore() {
  uint64_t max_agent = 0;
  RETURN_IF_ERROR(context_.store.ForEachAgent([&](const AgentRow& agent) {
    directory_.Add(agent.agent_id, agent.credential_hash);
    max_agent = std::max(max_agent, agent.agent_id);
    if (!agent.enrollment_batch.empty()) {
      absl::MutexLock lock(&enrollment_mutex_);
      // Tokens no longer configured admit nobody, so their agents need no
      // count.
      auto it = enrollment_batches_.find(agent.enrollment_batch);
      if (it != enrollment_batches_.end()) ++it->second.enrolled;
    }
    return absl::OkStatus();
  }));
  next_agent_id_ = max_agent + 1;
  return absl::OkStatus();
}

// Reserves the slots in the token's quota before anything is written, so
// concurrent enrollments here cannot overshoot it; given back on failure.
//
// With a shared store this is only a pre-check: other servers enroll with
// the same token, so the database counts and decides, in the transaction
// that inserts the agents (EnrollJob). The pre-check never refuses what
// the database would admit, because `enrolled` never exceeds the agents
// stored plus this server's own in flight: it starts from the stored count
// at load and grows only by this server's reservations (given back if not
// stored) and by counts the database answered. So it refuses only when
// this server's own enrollments in flight, once committed, leave no room
// (as with one server), and spares the database calls that must fail.
absl::StatusOr<int64_t> AgentRegistry::ReserveEnrollment(
    std::string_view enrollment_token, int count, std::string& batch) {
  if (open_enrollment_) return 0;
  batch = EnrollmentBatchKey(enrollment_token);
  absl::MutexLock lock(&enrollment_mutex_);
  auto it = enrollment_batches_.find(batch);
  if (it == enrollment_batches_.end()) {
    context_.Log(LogLevel::kInfo, "enrollment_refused",
                 {{"reason", "wrong_token"}});
    return absl::UnauthenticatedError("wrong enrollment token");
  }
  EnrollmentBatch& quota = it->second;
  if (quota.max_agents > 0 && quota.enrolled + count > quota.max_agents) {
    context_.Log(LogLevel::kInfo, "enrollment_refused",
                 {{"reason", "quota_used_up"},
                  {"quota", absl::StrCat(quota.max_agents)}});
    return QuotaUsedUp(quota.max_agents, quota.enrolled, count);
  }
  quota.enrolled += count;
  return quota.max_agents;
}

void AgentRegistry::ReleaseEnrollment(const std::string& batch, int64_t count) {
  if (batch.empty()) return;
  absl::MutexLock lock(&enrollment_mutex_);
  auto it = enrollment_batches_.find(batch);
  if (it != enrollment_batches_.end()) it->second.enrolled -= count;
}

void AgentRegistry::NoteStoredEnrollments(const std::string& batch,
                                          int64_t stored) {
  absl::MutexLock lock(&enrollment_mutex_);
  auto it = enrollment_batches_.find(batch);
  if (it != enrollment_batches_.end()) {
    it->second.enrolled = std::max(it->second.enrolled, stored);
  }
}

absl::StatusOr<uint64_t> AgentRegistry::NextAgentIds(int64_t count) {
  if (!context_.store.shared()) return next_agent_id_.fetch_add(count);
  // Agents come in bursts: reserve blocks, one database round trip per
  // thousand enrollments. A restart forfeits the rest of a block; 2^32
  // agent ids leave room for that.
  constexpr int64_t kAgentBlock = 1024;
  absl::MutexLock lock(&id_block_mutex_);
  if (agent_block_end_ - agent_block_next_ < static_cast<uint64_t>(count)) {
    const int64_t size = std::max(count, kAgentBlock);
    ASSIGN_OR_RETURN(agent_block_next_,
                     context_.store.ReserveIds(IdKind::kAgent, size));
    agent_block_end_ = agent_block_next_ + size;
  }
  const uint64_t first = agent_block_next_;
  agent_block_next_ += count;
  return first;
}

std::vector<AgentRow> AgentRegistry::IssueCredentials(
    uint64_t first_id, int count, const std::string& batch,
    std::vector<std::string>& tokens) {
  std::vector<AgentRow> rows;
  rows.reserve(count);
  tokens.reserve(count);
  const absl::Time now = context_.clock().Now();
  absl::MutexLock lock(&random_mutex_);
  for (int i = 0; i < count; ++i) {
    IssuedCredential credential = IssueCredential(first_id + i, *random_);
    rows.push_back({.agent_id = first_id + i,
                    .credential_hash = credential.hash,
                    .enrolled_at = now,
                    .enrollment_batch = batch});
    tokens.push_back(std::move(credential.bearer_token));
  }
  return rows;
}

void AgentRegistry::EnrollManyAsync(
    std::string_view enrollment_token, int count,
    absl::AnyInvocable<void(absl::StatusOr<std::vector<Enrollment>>) &&> done) {
  const int max_count = context_.options.max_reports_per_call;
  if (count < 1 || count > max_count) {
    std::move(done)(absl::InvalidArgumentError(absl::StrCat(
        "enroll 1 to ", max_count, " agents per call, not ", count)));
    return;
  }
  const auto refuse = [&](absl::Status status) {
    context_.stats.RecordEnrollment(false, count);
    std::move(done)(std::move(status));
  };
  std::string batch;
  const absl::StatusOr<int64_t> max_agents =
      ReserveEnrollment(enrollment_token, count, batch);
  if (!max_agents.ok()) return refuse(max_agents.status());
  absl::StatusOr<uint64_t> first = NextAgentIds(count);
  if (!first.ok() || *first + count - 1 > kMaxAgentId) {
    ReleaseEnrollment(batch, count);
    return refuse(
        first.ok() ? absl::ResourceExhaustedError("the server has enrolled the "
                                                  "largest number of agents it "
                                                  "supports")
                   : absl::UnavailableError(
                         absl::StrCat("cannot reserve agent ids (",
                                      first.status().message(), "); retry")));
  }
  std::vector<std::string> tokens;
  std::vector<AgentRow> rows = IssueCredentials(*first, count, batch, tokens);
  std::unique_ptr<CommitJob> job = std::make_unique<EnrollJob>(
      this, std::move(rows), std::move(tokens), *max_agents, std::move(done));
  if (!context_.queue.TrySubmit(job)) {
    // Overloaded: refuse now (the ids are simply never used).
    static_cast<EnrollJob&>(*job).Refuse(CommitQueueFull());
  }
}

void AgentRegistry::EnrollAsync(
    std::string_view enrollment_token,
    absl::AnyInvocable<void(absl::StatusOr<Enrollment>) &&> done) {
  EnrollManyAsync(
      enrollment_token, 1,
      [done = std::move(done)](
          absl::StatusOr<std::vector<Enrollment>> enrolled) mutable {
        if (!enrolled.ok()) return std::move(done)(enrolled.status());
        std::move(done)(std::move(enrolled->front()));
      });
}

// Why an agent credential cannot be forged: the bearer secret is 32 bytes
// (256 bits) from SecureRandom, so guessing one succeeds with probability
// 2^-256 per try; the server stores only SHA-256 of it, so even a copy of
// the database yields no usable credential; and the comparison runs in
// constant time, so timing reveals nothing about how close a guess was.
//
// With a shared store, an agent another server enrolled is looked up in the
// database the first time it shows up here (say after failing over).
absl::StatusOr<uint64_t> AgentRegistry::Authenticate(
    std::string_view bearer_token) {
  ASSIGN_OR_RETURN(const ParsedToken parsed, ParseBearerToken(bearer_token));
  if (directory_.Verify(parsed.agent_id, parsed.hash)) return parsed.agent_id;
  // Known here already: the credential was simply wrong.
  if (!directory_.Contains(parsed.agent_id)) {
    ASSIGN_OR_RETURN(const bool known, Knows(parsed.agent_id));
    if (known && directory_.Verify(parsed.agent_id, parsed.hash)) {
      return parsed.agent_id;
    }
  }
  return absl::UnauthenticatedError("unknown agent or wrong credential");
}

absl::StatusOr<bool> AgentRegistry::Knows(uint64_t agent_id) {
  if (directory_.Contains(agent_id)) return true;
  if (!context_.store.shared()) return false;
  absl::StatusOr<std::optional<AgentRow>> row =
      context_.store.FindAgent(agent_id);
  if (!row.ok()) {
    return absl::UnavailableError(
        absl::StrCat("cannot look the agent up in the database (",
                     row.status().message(), "); retry"));
  }
  if (!row->has_value()) return false;
  directory_.Add((*row)->agent_id, (*row)->credential_hash);
  return true;
}

absl::StatusOr<std::vector<LedgerEntry>> AgentRegistry::GetBudget(
    uint64_t agent_id, uint64_t study_id) {
  ASSIGN_OR_RETURN(const bool known, Knows(agent_id));
  if (!known) return absl::NotFoundError(absl::StrCat("no agent ", agent_id));
  return context_.store.GetLedger(agent_id, study_id);
}

}  // namespace ldp
