// One transaction of the PostgreSQL store's writer: the StoreTransaction
// that PostgresStore::Transact hands its body.
//
// Why its own unit: every write here must be idempotent (Transact runs a
// body again after a lost COMMIT) and must hold across replicas, which is
// what each method's statement (postgres_statements.h) is for; the store
// around it only begins, commits and retries. The report path is in
// postgres_append.h.
#ifndef LDP_SERVER_STORE_POSTGRES_POSTGRES_TRANSACTION_H_
#define LDP_SERVER_STORE_POSTGRES_POSTGRES_TRANSACTION_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "server/store/postgres/postgres_connection.h"
#include "server/store/store.h"

namespace ldp::postgres_internal {

// Row `row` of a result whose columns start agent_id, credential_hash,
// enrolled_at, enrollment_batch; DataLoss for a malformed hash.
absl::StatusOr<AgentRow> AgentFromRow(const Result& r, int row);

class Transaction final : public StoreTransaction {
 public:
  // `writer`: the store's id, stamped on every report and delta row it
  // writes.
  Transaction(Connection& c, int64_t writer) : c_(c), writer_(writer) {}

  // The first storage error of this transaction. PostgreSQL refuses every
  // later statement until the rollback, so Transact decides from this one
  // whether running the body again can help.
  const absl::Status& failure() const { return failure_; }
  int64_t writer() const { return writer_; }

  // Runs `s` in this transaction; after a failure, fails at once with it.
  absl::StatusOr<Result> Run(const Statement& s, Params& p);

  absl::Status InsertAgent(const AgentRow& row) override;
  // A relay's batch of enrollments in one round trip.
  absl::Status InsertAgents(absl::Span<const AgentRow> rows) override;
  // The count and the insert are one transaction, under the batch's count
  // row lock: a quota is never passed whatever the servers' interleaving.
  // The lock is held until commit, so a group commit that enrolls agents
  // of two quota'd batches can deadlock with another server's taking them
  // in the other order; PostgreSQL then aborts one, which Transact runs
  // again.
  absl::StatusOr<QuotaDecision> InsertAgentsWithinQuota(
      absl::Span<const AgentRow> rows, int64_t max_agents) override;
  // Takes the request's advisory lock (held until commit), then reads
  // (kLockEnrollmentRequest, kFindEnrolledAgents).
  absl::StatusOr<std::vector<AgentRow>> FindEnrolledAgents(
      absl::Span<const std::string> requests) override;
  absl::StatusOr<uint64_t> InsertStudy(const StudyRow& row) override;
  absl::Status SetStudyState(uint64_t study_id, StudyState state) override;
  absl::Status InsertRound(const RoundRow& row) override;
  absl::Status SetRoundState(uint64_t round_id, RoundState state) override;
  // False when another replica closed the round first (store.h).
  absl::StatusOr<bool> CloseRound(uint64_t round_id, RoundState state) override;
  absl::StatusOr<AppendResult> AppendReport(const ReportRow& row) override;
  // See AppendBatch (postgres_append.h).
  absl::Status AppendReports(absl::Span<const ReportRow* const> rows,
                             absl::Span<AppendResult> results) override;
  // Stamped with the writer id, like reports. Not idempotent: a re-run
  // after a lost COMMIT must bring a new delta_id (kInsertDelta).
  absl::Status AppendDelta(const DeltaRow& row) override;

 private:
  Connection& c_;
  const int64_t writer_;
  absl::Status failure_;
};

}  // namespace ldp::postgres_internal

#endif  // LDP_SERVER_STORE_POSTGRES_POSTGRES_TRANSACTION_H_
