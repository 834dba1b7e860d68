// Enrollment, agent ids and agent authentication; see the header.
#include "server/core/agent_registry.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/tasks/task_id.h"
#include "server/core/credential.h"

namespace ldp {

std::string EnrollmentBatchKey(std::string_view token) {
  const CredentialHash hash = Sha256(token);
  return std::string(hash.begin(), hash.end());
}

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
    std::string_view enrollment_token, int count, std::string& batch,
    bool quiet_over_quota) {
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
    if (!quiet_over_quota) {
      context_.Log(LogLevel::kInfo, "enrollment_refused",
                   {{"reason", "quota_used_up"},
                    {"quota", absl::StrCat(quota.max_agents)}});
    }
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

std::optional<uint64_t> AgentRegistry::Placement(
    const std::string& batch, int64_t max_agents,
    const std::optional<EnrollJob::Retry>& retry) {
  if (max_agents > 0) return PlacementOfDigest(batch);
  if (retry.has_value() && !retry->derived.digests.empty()) {
    return PlacementOfDigest(retry->derived.digests.front());
  }
  return std::nullopt;
}

absl::StatusOr<uint64_t> AgentRegistry::NextAgentIds(
    int64_t count, std::optional<uint64_t> placement) {
  if (!context_.store.shared()) return next_agent_id_.fetch_add(count);
  if (context_.store.shard_map() != nullptr) {
    return context_.store.ReserveAgentIds(placement, count);
  }
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
    const DerivedEnrollment* derived, std::vector<std::string>& tokens) {
  std::vector<AgentRow> rows;
  rows.reserve(count);
  tokens.reserve(count);
  const absl::Time now = context_.clock().Now();
  absl::MutexLock lock(&random_mutex_);
  for (int i = 0; i < count; ++i) {
    IssuedCredential credential =
        derived == nullptr
            ? IssueCredential(first_id + i, *random_)
            : CredentialFromSecret(first_id + i, derived->secrets[i]);
    rows.push_back(
        {.agent_id = first_id + i,
         .credential_hash = credential.hash,
         .enrolled_at = now,
         .enrollment_batch = batch,
         .enrollment_request = derived == nullptr ? "" : derived->digests[i]});
    tokens.push_back(std::move(credential.bearer_token));
  }
  return rows;
}

void AgentRegistry::Submit(std::unique_ptr<EnrollJob> job, int shard) {
  std::unique_ptr<CommitJob> pending = std::move(job);
  if (absl::Status taken = context_.lanes.ForShard(shard).TrySubmit(pending);
      !taken.ok()) {
    // Overloaded: refuse now (the ids are simply never used).
    static_cast<EnrollJob&>(*pending).Refuse(std::move(taken));
  }
}

void AgentRegistry::SubmitNew(int count, std::string batch, int64_t max_agents,
                              std::optional<EnrollJob::Retry> retry,
                              EnrollJob::Done done) {
  absl::StatusOr<uint64_t> first =
      NextAgentIds(count, Placement(batch, max_agents, retry));
  if (!first.ok() || *first + count - 1 > kMaxAgentId) {
    ReleaseEnrollment(batch, count);
    context_.stats.RecordEnrollment(false, count);
    std::move(done)(
        first.ok() ? absl::ResourceExhaustedError("the server has enrolled the "
                                                  "largest number of agents it "
                                                  "supports")
                   : absl::UnavailableError(
                         absl::StrCat("cannot reserve agent ids (",
                                      first.status().message(), "); retry")));
    return;
  }
  std::vector<std::string> tokens;
  std::vector<AgentRow> rows =
      IssueCredentials(*first, count, batch,
                       retry.has_value() ? &retry->derived : nullptr, tokens);
  Submit(std::make_unique<EnrollJob>(
             this, std::move(batch), count, std::move(rows), std::move(tokens),
             max_agents, std::move(retry), std::move(done)),
         context_.lanes.ShardOfAgent(*first));
}

// With a request id, the store is asked before anything is refused for
// the quota: a first attempt whose reply was lost holds its slots, and its
// retry must get its agents, not RESOURCE_EXHAUSTED.
void AgentRegistry::EnrollManyAsync(std::string_view enrollment_token,
                                    int count, const EnrollRetry& retry,
                                    EnrollJob::Done done) {
  const int max_count = context_.options.max_reports_per_call;
  if (count < 1 || count > max_count) {
    std::move(done)(absl::InvalidArgumentError(absl::StrCat(
        "enroll 1 to ", max_count, " agents per call, not ", count)));
    return;
  }
  if (absl::Status id = CheckEnrollmentRequestId(retry.request_id); !id.ok()) {
    std::move(done)(std::move(id));
    return;
  }
  const auto refuse = [&](absl::Status status) {
    context_.stats.RecordEnrollment(false, count);
    std::move(done)(std::move(status));
  };
  // The token first: a wrong one costs no derivation.
  const bool named = !retry.request_id.empty();
  std::string batch;
  const absl::StatusOr<int64_t> max_agents =
      ReserveEnrollment(enrollment_token, count, batch, named);
  if (!max_agents.ok() &&
      (!named || !absl::IsResourceExhausted(max_agents.status()))) {
    return refuse(max_agents.status());
  }
  std::optional<EnrollJob::Retry> derived;
  if (named) {
    absl::StatusOr<DerivedEnrollment> made =
        DeriveEnrollment(EnrollmentBatchKey(enrollment_token), retry.request_id,
                         count, retry.csr_pem);
    if (!made.ok()) {
      if (max_agents.ok()) ReleaseEnrollment(batch, count);
      return refuse(made.status());
    }
    derived = EnrollJob::Retry{.derived = *std::move(made)};
  }
  if (max_agents.ok()) {
    return SubmitNew(count, std::move(batch), *max_agents, std::move(derived),
                     std::move(done));
  }
  // No room here: only the first attempt's agents can be answered.
  derived->refusal = max_agents.status();
  // Refused for its quota, so the first attempt was placed by its token.
  const ShardMap* map = context_.store.shard_map();
  const int shard =
      map == nullptr ? 0 : map->ShardOfPlacement(PlacementOfDigest(batch));
  Submit(std::make_unique<EnrollJob>(this, std::move(batch), count,
                                     std::vector<AgentRow>(),
                                     std::vector<std::string>(), 0,
                                     std::move(derived), std::move(done)),
         shard);
}

void AgentRegistry::EnrollAsync(
    std::string_view enrollment_token, const EnrollRetry& retry,
    absl::AnyInvocable<void(absl::StatusOr<Enrollment>) &&> done) {
  EnrollManyAsync(
      enrollment_token, 1, retry,
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
