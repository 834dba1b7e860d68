// The PostgreSQL writer's transaction; see the header.
#include "server/store/postgres/postgres_transaction.h"

#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "server/store/postgres/postgres_append.h"
#include "server/store/postgres/postgres_statements.h"

namespace ldp::postgres_internal {
namespace {

// What InsertAgentsWithinQuota needs of its caller.
absl::Status CheckQuotaCall(absl::Span<const AgentRow> rows,
                            int64_t max_agents) {
  if (rows.empty() || rows.front().enrollment_batch.empty() || max_agents < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "InsertAgentsWithinQuota needs agents of a non-empty enrollment "
        "batch and max_agents >= 1 (got ",
        rows.size(), " agents, max_agents ", max_agents, ")"));
  }
  for (const AgentRow& row : rows) {
    if (row.enrollment_batch != rows.front().enrollment_batch) {
      return absl::InvalidArgumentError(
          "InsertAgentsWithinQuota: every agent of one call must be of one "
          "enrollment batch");
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<AgentRow> AgentFromRow(const Result& r, int row) {
  AgentRow agent{.agent_id = static_cast<uint64_t>(r.Int(row, 0)),
                 .enrolled_at = FromNanos(r.Int(row, 2))};
  const std::string_view hash = r.Bytes(row, 1);
  if (hash.size() != agent.credential_hash.size()) {
    return absl::DataLossError(absl::StrCat(
        "agent ", agent.agent_id, " has a malformed credential hash"));
  }
  std::memcpy(agent.credential_hash.data(), hash.data(), hash.size());
  agent.enrollment_batch = std::string(r.Bytes(row, 3));
  return agent;
}

absl::StatusOr<Result> Transaction::Run(const Statement& s, Params& p) {
  if (!failure_.ok()) return failure_;
  absl::StatusOr<Result> result = c_.Run(s, p);
  if (!result.ok()) failure_ = result.status();
  return result;
}

absl::Status Transaction::InsertAgent(const AgentRow& row) {
  Params p;
  p.Int(Signed(row.agent_id))
      .Bytes(AsBytes(row.credential_hash))
      .Int(Nanos(row.enrolled_at))
      .Bytes(row.enrollment_batch)
      .Bytes(row.enrollment_request);
  return Run(kInsertAgent, p).status();
}

absl::Status Transaction::InsertAgents(absl::Span<const AgentRow> rows) {
  std::vector<int64_t> ids, times;
  std::vector<std::string_view> hashes, batches, requests;
  ids.reserve(rows.size());
  times.reserve(rows.size());
  hashes.reserve(rows.size());
  batches.reserve(rows.size());
  requests.reserve(rows.size());
  for (const AgentRow& row : rows) {
    ids.push_back(Signed(row.agent_id));
    hashes.push_back(AsBytes(row.credential_hash));
    times.push_back(Nanos(row.enrolled_at));
    batches.push_back(row.enrollment_batch);
    requests.push_back(row.enrollment_request);
  }
  Params p;
  p.IntArray(ids).BytesArray(hashes).IntArray(times).BytesArray(batches);
  p.BytesArray(requests);
  return Run(kInsertAgents, p).status();
}

absl::StatusOr<QuotaDecision> Transaction::InsertAgentsWithinQuota(
    absl::Span<const AgentRow> rows, int64_t max_agents) {
  RETURN_IF_ERROR(CheckQuotaCall(rows, max_agents));
  const std::string& batch = rows.front().enrollment_batch;
  Params seed;
  seed.Bytes(batch);
  RETURN_IF_ERROR(Run(kSeedEnrollmentCount, seed).status());
  Params lock;
  lock.Bytes(batch).Int(Signed(rows.front().agent_id));
  ASSIGN_OR_RETURN(Result counted, Run(kLockEnrollmentCount, lock));
  if (counted.rows() != 1) {
    return absl::InternalError(
        "PostgreSQL enrollment quota: the batch's count row is missing "
        "right after it was created");
  }
  const int64_t enrolled = counted.Int(0, 0);
  const int64_t asked = static_cast<int64_t>(rows.size());
  if (counted.Bool(0, 1)) {
    return QuotaDecision{.enrolled_before = enrolled - asked};
  }
  if (asked > max_agents - enrolled) {
    return QuotaDecision{.admitted = false, .enrolled_before = enrolled};
  }
  RETURN_IF_ERROR(InsertAgents(rows));
  return QuotaDecision{.enrolled_before = enrolled};
}

absl::StatusOr<std::vector<AgentRow>> Transaction::FindEnrolledAgents(
    absl::Span<const std::string> requests) {
  if (requests.empty() || requests.front().size() < sizeof(uint64_t)) {
    return absl::InvalidArgumentError(
        "FindEnrolledAgents needs at least one enrollment request digest");
  }
  // The lock's key: the digest's first eight bytes, as a placement reads
  // them.
  const uint64_t key = PlacementOfDigest(requests.front());
  Params lock;
  lock.Int(static_cast<int64_t>(key));
  RETURN_IF_ERROR(Run(kLockEnrollmentRequest, lock).status());
  const std::vector<std::string_view> views(requests.begin(), requests.end());
  Params find;
  find.BytesArray(views);
  ASSIGN_OR_RETURN(const Result found, Run(kFindEnrolledAgents, find));
  std::vector<AgentRow> agents;
  agents.reserve(found.rows());
  for (int i = 0; i < found.rows(); ++i) {
    ASSIGN_OR_RETURN(AgentRow agent, AgentFromRow(found, i));
    agent.enrollment_request = std::string(found.Bytes(i, 4));
    agents.push_back(std::move(agent));
  }
  return agents;
}

absl::StatusOr<uint64_t> Transaction::InsertStudy(const StudyRow& row) {
  Params p;
  p.Int(Signed(row.study_id))
      .Bytes(row.spec)
      .TextOrNull(row.request_id)
      .Int(static_cast<int64_t>(row.state))
      .Int(Nanos(row.created_at));
  ASSIGN_OR_RETURN(Result inserted, Run(kInsertStudy, p));
  if (inserted.rows() == 1 || row.request_id.empty()) return row.study_id;
  Params find;
  find.TextOrNull(row.request_id);
  ASSIGN_OR_RETURN(Result found, Run(kFindStudy, find));
  // Not found: the conflict was on study_id, i.e. this very insert ran
  // before (a re-run after a lost commit).
  if (found.rows() == 0) return row.study_id;
  return static_cast<uint64_t>(found.Int(0, 0));
}

absl::Status Transaction::SetStudyState(uint64_t study_id, StudyState state) {
  Params p;
  p.Int(static_cast<int64_t>(state)).Int(Signed(study_id));
  return Run(kSetStudyState, p).status();
}

absl::Status Transaction::InsertRound(const RoundRow& row) {
  Params p;
  p.Int(Signed(row.round_id))
      .Int(Signed(row.study_id))
      .Int(static_cast<int64_t>(row.state))
      .Int(Nanos(row.start_time))
      .Int(Nanos(row.deadline))
      .Bytes(row.plan);
  return Run(kInsertRound, p).status();
}

absl::Status Transaction::SetRoundState(uint64_t round_id, RoundState state) {
  Params p;
  p.Int(static_cast<int64_t>(state)).Int(Signed(round_id));
  return Run(kSetRoundState, p).status();
}

absl::StatusOr<bool> Transaction::CloseRound(uint64_t round_id,
                                             RoundState state) {
  Params p;
  p.Int(static_cast<int64_t>(state)).Int(Signed(round_id));
  ASSIGN_OR_RETURN(const Result closed, Run(kCloseRound, p));
  return closed.rows() == 1;
}

absl::StatusOr<AppendResult> Transaction::AppendReport(const ReportRow& row) {
  const ReportRow* rows[] = {&row};
  AppendResult result;
  RETURN_IF_ERROR(AppendReports(rows, absl::MakeSpan(&result, 1)));
  return result;
}

absl::Status Transaction::AppendReports(absl::Span<const ReportRow* const> rows,
                                        absl::Span<AppendResult> results) {
  return AppendBatch(*this, rows, results);
}

absl::Status Transaction::AppendDelta(const DeltaRow& row) {
  Params p;
  p.Int(Signed(row.delta_id))
      .Int(Signed(row.round_id))
      .Bytes(row.statistics)
      .Int(writer_);
  return Run(kInsertDelta, p).status();
}

}  // namespace ldp::postgres_internal
