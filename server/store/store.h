// The aggregator's durable state, as rows behind an interface.
//
// Why an interface: the embedded default is SQLite (sqlite_store.h); a
// replicated deployment can put the same rows in PostgreSQL (DESIGN,
// "Storage and scale") without touching the protocol logic.
//
// The store treats study specs, round plans and report payloads as opaque
// bytes that the aggregator's codecs produce. It owns one piece of protocol
// logic because it must be atomic with the write: `AppendReport` stores a
// report and charges the agent's ledger in the same transaction, exactly
// once (DESIGN invariant 5). Every write happens inside `Transact`, which
// commits durably before it returns OK, so a caller acknowledges only what
// a crash cannot lose.
//
// Tasks have no rows: a task id names its round, agent and question
// (task_id.h), and which agents answer which question is a pure function of
// the stored round plan (planner.h). A task's participation record is its
// report row.
#ifndef LDP_SERVER_STORE_STORE_H_
#define LDP_SERVER_STORE_STORE_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "common/tasks/task.h"
#include "server/store/shard_map.h"

namespace ldp {

enum class StudyState { kActive = 1, kClosed = 2 };

enum class RoundState {
  kOpen = 1,
  kClosedQuorum = 2,    // every question reached the study's quorum
  kClosedDeadline = 3,  // the round's deadline passed
  kClosedEarly = 4,     // the analyst moved an interactive study on
};

// SHA-256 of an agent's bearer secret; the secret itself is never stored.
using CredentialHash = std::array<uint8_t, 32>;

struct AgentRow {
  uint64_t agent_id = 0;
  CredentialHash credential_hash{};
  absl::Time enrolled_at = absl::UnixEpoch();
  // Which enrollment token admitted the agent (opaque, e.g. the token's
  // SHA-256; "" = open enrollment). Counting agents per batch at load is
  // what makes enrollment quotas survive restarts.
  std::string enrollment_batch{};
  // The client's name for the enrollment that created the agent, as a
  // 32-byte digest (server/core/credential.h): unique among agents,
  // so a retried enrollment finds its agent instead of making another. ""
  // = none (stored as NULL). Written by InsertAgent(s) and read back by
  // FindEnrolledAgents only: the loads at start leave it empty.
  std::string enrollment_request{};
};

struct StudyRow {
  uint64_t study_id = 0;
  std::string spec{};        // EncodeStudySpec (study_codec.h)
  std::string request_id{};  // client idempotency key; "" = none
  StudyState state = StudyState::kActive;
  absl::Time created_at = absl::UnixEpoch();
};

struct RoundRow {
  uint64_t round_id = 0;
  uint64_t study_id = 0;
  RoundState state = RoundState::kOpen;
  absl::Time start_time = absl::UnixEpoch();
  absl::Time deadline = absl::UnixEpoch();
  std::string plan{};  // opaque; see storage_codec.h
};

// One report, with what the ledger charge needs.
struct ReportRow {
  uint64_t task_id = 0;
  uint64_t round_id = 0;
  uint64_t study_id = 0;
  uint64_t agent_id = 0;
  ReportId report_id{};
  std::string payload{};      // opaque; see storage_codec.h
  int64_t epsilon_nanos = 0;  // εₜ charged for this task
  int64_t cap_nanos = 0;      // the study's per-agent cap
  absl::Time received_at = absl::UnixEpoch();
  // Polls of a shared store (Store::PollReports): a stored delta
  // (DeltaRow) counts this report in its round's statistics, so its
  // payload is not read (empty). False for reports stored before deltas
  // were (PostgreSQL schema 8), which each server counts from the payload.
  bool in_delta = false;
};

// Shared stores: the sufficient statistics of the reports one transaction
// stored for one round (statistics_codec.h), written in that transaction,
// so that other servers merge one row per batch instead of reading each
// report's payload (server/rounds/batch_statistics.h).
struct DeltaRow {
  // Unique among the database's deltas (the writer draws it at random; a
  // repeat fails the transaction); servers count each delta once by it.
  uint64_t delta_id = 0;
  uint64_t round_id = 0;
  // An agent whose reports it counts: names the shard of a sharded store.
  uint64_t agent_id = 0;
  std::string statistics{};
};

enum class AppendOutcome {
  kStored,          // new report; the ledger was charged
  kIdenticalRetry,  // same task, report id and payload already stored: no
                    // charge
  kConflict,        // the task already has a different report: ALREADY_EXISTS
  kOverCap,         // the charge would exceed the cap: nothing stored
  kRoundClosed,     // shared stores: another server closed the round in the
                    // database first; nothing stored
};

struct AppendResult {
  AppendOutcome outcome = AppendOutcome::kStored;
  // The agent's spend in the study after this call; 0 for a report stored
  // at no charge (a repeated question, server/rounds/ledger_charge.h), which
  // reads no ledger.
  int64_t spent_nanos = 0;
  // kStored and this was the agent's first charge in the study.
  bool first_charge = false;
};

// One report of a shuffled batch (DESIGN invariant 9): no agent id and no
// time are stored, only what the sealed payload itself said.
struct ShuffledReportRow {
  ReportId report_id{};
  std::string payload{};  // opaque; see storage_codec.h
};

// A shuffled batch as a trusted shuffler delivered it, after the server
// opened and validated its payloads.
struct ShuffledBatchRow {
  ReportId batch_id{};  // the shuffler's idempotency key
  uint64_t round_id = 0;
  uint32_t question = 0;
  // The study's minimum: fewer new reports than this and nothing is
  // written.
  int64_t min_batch = 0;
  std::vector<ShuffledReportRow> reports{};
  // Payloads dropped before the store, kept with the batch so that a retry
  // gets the first answer.
  int64_t not_opened = 0;
  int64_t invalid = 0;
};

enum class ShuffledAppendOutcome {
  kStored,        // the batch's new reports were stored
  kRetry,         // this batch_id was stored before: nothing written
  kBelowMinimum,  // fewer than min_batch new reports: nothing written
};

struct ShuffledAppendResult {
  ShuffledAppendOutcome outcome = ShuffledAppendOutcome::kStored;
  // kStored: counts of this call; kRetry: of the stored batch.
  int64_t accepted = 0;
  int64_t duplicates = 0;  // report ids already stored for the question
  int64_t not_opened = 0;
  int64_t invalid = 0;
  // kStored: per row of the batch, whether it was stored (not a duplicate).
  std::vector<bool> stored{};
};

// A stored shuffled batch, for reloading a round's guarantee.
struct ShuffledBatchSummary {
  uint64_t round_id = 0;
  uint32_t question = 0;
  int64_t accepted = 0;
};

// What a store that counts enrollment quotas itself decided about a batch
// of new agents (StoreTransaction::InsertAgentsWithinQuota).
struct QuotaDecision {
  // False: the batch's stored agents plus the new ones would pass the
  // quota, and nothing was written.
  bool admitted = true;
  // The batch's agents the store counted before this call, stored by any
  // server; -1 when the store leaves counting to the server's memory.
  int64_t enrolled_before = -1;
};

struct LedgerSummary {
  uint64_t study_id = 0;
  int64_t num_agents = 0;  // agents charged at least once
  int64_t max_spent_nanos = 0;
};

struct LedgerEntry {
  uint64_t study_id = 0;
  int64_t cap_nanos = 0;
  int64_t spent_nanos = 0;
};

// The writes of one transaction. Expected outcomes (a duplicate, a charge
// over the cap, a repeated request id) are results, not errors: an error
// means the storage failed and the whole transaction rolls back.
class StoreTransaction {
 public:
  virtual ~StoreTransaction() = default;

  virtual absl::Status InsertAgent(const AgentRow& row) = 0;
  // As InsertAgent on each row; a store that can insert a batch in one
  // round trip overrides it.
  virtual absl::Status InsertAgents(absl::Span<const AgentRow> rows) {
    for (const AgentRow& row : rows) {
      absl::Status status = InsertAgent(row);
      if (!status.ok()) return status;
    }
    return absl::OkStatus();
  }
  // As InsertAgents, for `rows` (non-empty) of one non-empty enrollment
  // batch whose token admits at most `max_agents` (≥ 1) agents in all. A
  // shared store counts the batch's agents in the database, in this
  // transaction, and refuses the whole call if they would pass max_agents:
  // servers on one database together never admit more. Other stores have
  // one server per database, whose memory does the counting (see
  // AgentRegistry::EnrollManyAsync): they insert without counting.
  virtual absl::StatusOr<QuotaDecision> InsertAgentsWithinQuota(
      absl::Span<const AgentRow> rows, int64_t max_agents) {
    absl::Status status = InsertAgents(rows);
    if (!status.ok()) return status;
    return QuotaDecision{};
  }
  // The stored agents (this transaction's inserts included) whose
  // enrollment_request is one of `requests` (32-byte digests, non-empty),
  // in no particular order; empty when none is. A shared store first takes
  // a lock on requests.front() held until the commit, so that servers
  // enrolling under one request at once take turns: the second finds what
  // the first committed. Inserting an agent whose enrollment_request is
  // stored already fails the transaction (a UNIQUE index).
  virtual absl::StatusOr<std::vector<AgentRow>> FindEnrolledAgents(
      absl::Span<const std::string> requests) {
    return absl::UnimplementedError("this store keeps no enrollment requests");
  }
  // Returns the id of the study that holds `row.request_id`: `row.study_id`
  // if inserted, or the earlier study's id (and nothing is written) when a
  // study with the same non-empty request id exists.
  virtual absl::StatusOr<uint64_t> InsertStudy(const StudyRow& row) = 0;
  virtual absl::Status SetStudyState(uint64_t study_id, StudyState state) = 0;
  virtual absl::Status InsertRound(const RoundRow& row) = 0;
  virtual absl::Status SetRoundState(uint64_t round_id, RoundState state) = 0;
  // Closes an open round with `state`. False (nothing written) when a shared
  // store finds the round already closed by another server: that server
  // then owns what follows the close (an interactive study's next round).
  virtual absl::StatusOr<bool> CloseRound(uint64_t round_id, RoundState state) {
    absl::Status status = SetRoundState(round_id, state);
    if (!status.ok()) return status;
    return true;
  }
  // Stores the report and charges ledger(agent, study) by epsilon_nanos
  // atomically: at most one report per task, at most `cap_nanos` spent.
  virtual absl::StatusOr<AppendResult> AppendReport(const ReportRow& row) = 0;
  // Stores a shuffled batch whole or not at all: a known batch_id is a
  // retry; report ids already stored for the question are duplicates,
  // skipped; fewer than min_batch new reports write nothing.
  virtual absl::StatusOr<ShuffledAppendResult> AppendShuffledBatch(
      const ShuffledBatchRow& row) {
    return absl::UnimplementedError(
        "this store does not keep shuffled reports; use the SQLite store");
  }
  // Shared stores: stores `row` (DeltaRow) beside the reports of this
  // transaction it counts. Other stores keep no deltas (Unimplemented).
  virtual absl::Status AppendDelta(const DeltaRow& row) {
    return absl::UnimplementedError("this store keeps no deltas");
  }
  // As AppendReport on each row in turn (results[i] is rows[i]'s); a store
  // that can charge a whole batch in one round trip overrides it.
  virtual absl::Status AppendReports(absl::Span<const ReportRow* const> rows,
                                     absl::Span<AppendResult> results) {
    for (size_t i = 0; i < rows.size(); ++i) {
      absl::StatusOr<AppendResult> result = AppendReport(*rows[i]);
      if (!result.ok()) return result.status();
      results[i] = *result;
    }
    return absl::OkStatus();
  }
};

enum class IdKind { kAgent = 1, kStudy = 2, kRound = 3 };

// Where a shared store's PollReports stands: one position per database it
// reads (a sharded store has several). Empty = from the beginning.
using ReportCursor = std::vector<uint64_t>;

// Writes (`Transact`) and loads come from one thread at a time; `GetLedger`
// may be called from any thread concurrently with them. Shared stores also
// take loads, polls and the calls below from a second thread concurrently
// with writes.
class Store {
 public:
  virtual ~Store() = default;

  // True when several servers may run on this store at once (PostgreSQL).
  // Then ids come from ReserveIds, agents another server enrolled are found
  // with FindAgent, and each server follows the others' reports with
  // PollReports; the database, not a server's memory, refuses duplicates,
  // over-cap charges and reports to closed rounds.
  virtual bool shared() const { return false; }
  // Shared stores: `count` (≥ 1) consecutive ids of `kind` that no other
  // server will use; returns the first. Thread-safe.
  virtual absl::StatusOr<uint64_t> ReserveIds(IdKind kind, int64_t count) {
    return absl::UnimplementedError("this store is not shared");
  }
  // Shared stores: the agent's row, or nullopt if no server enrolled it.
  // Thread-safe.
  virtual absl::StatusOr<std::optional<AgentRow>> FindAgent(uint64_t agent_id) {
    return absl::UnimplementedError("this store is not shared");
  }
  // Shared stores: visits every report committed since `*cursor` (every
  // report from a zero cursor), then advances the cursor. A report may be
  // visited more than once; callers dedupe by task id. epsilon_nanos,
  // cap_nanos and study_id are 0. A report that a delta counts (in_delta)
  // comes without its payload, and so do the reports of rounds in
  // `without_payload`: the caller needs only that they exist (closed
  // rounds that answer from their statistics). Reports this store instance
  // wrote under its current writer id are not visited.
  virtual absl::Status PollReports(
      ReportCursor* cursor, absl::Span<const uint64_t> without_payload,
      absl::FunctionRef<absl::Status(const ReportRow&)> visit) {
    return absl::UnimplementedError("this store is not shared");
  }
  absl::Status PollReports(
      ReportCursor* cursor,
      absl::FunctionRef<absl::Status(const ReportRow&)> visit) {
    return PollReports(cursor, {}, visit);
  }
  // Shared stores: as PollReports, for deltas (DeltaRow, agent_id 0): every
  // delta committed since `*cursor` that another store instance wrote (or
  // this one, under a writer id it gave up when an attempt of a
  // transaction failed, which may have committed), at least once; callers
  // dedupe by delta id. A cursor of its own.
  virtual absl::Status PollDeltas(
      ReportCursor* cursor,
      absl::FunctionRef<absl::Status(const DeltaRow&)> visit) {
    return absl::UnimplementedError("this store is not shared");
  }

  // Shared stores keep, on each database that holds reports, the
  // sufficient statistics of every closed round's reports stored there
  // (statistics_codec.h; server/core/round_folder.h writes and merges
  // them), so that no server reads a closed round's report rows to answer
  // its estimates.
  //
  // How many databases hold reports: a sharded store's shards, else 1.
  virtual int num_report_databases() const { return 1; }
  // Visits the reports database `database` stored for round `round_id`, in
  // task id order (epsilon_nanos, cap_nanos and study_id are 0), once the
  // round is closed there: FailedPrecondition, visiting nothing, while it
  // is open or not stored there. A round closed on a database takes no
  // report there any more, so what this visits is final.
  virtual absl::Status ForEachClosedRoundReport(
      int database, uint64_t round_id,
      absl::FunctionRef<absl::Status(const ReportRow&)> visit) {
    return absl::UnimplementedError("this store keeps no round statistics");
  }
  // Stores `statistics` as database `database`'s statistics of round
  // `round_id`, unless it holds some already: then nothing is written (two
  // servers folding one round write the same bytes, and the first stays).
  virtual absl::Status SaveRoundStatistics(int database, uint64_t round_id,
                                           std::string_view statistics) {
    return absl::UnimplementedError("this store keeps no round statistics");
  }
  // Each database's statistics of round `round_id`, in database order;
  // nullopt where none are stored yet.
  virtual absl::StatusOr<std::vector<std::optional<std::string>>>
  LoadRoundStatistics(uint64_t round_id) {
    return absl::UnimplementedError("this store keeps no round statistics");
  }

  // Sharded stores (sharded_store.h): how agent ids map onto the
  // databases. Null for a store on one database, whose every write goes
  // through Transact.
  virtual const ShardMap* shard_map() const { return nullptr; }
  // Sharded stores: `count` (1 to ShardMap::kAgentBlock) consecutive agent
  // ids that no other server will use, all on the shard of `placement`
  // (ShardMap::ShardOfPlacement) if given, else on a shard the store picks
  // in turn; returns the first.
  virtual absl::StatusOr<uint64_t> ReserveAgentIds(
      std::optional<uint64_t> placement, int64_t count) {
    return ReserveIds(IdKind::kAgent, count);
  }
  // Sharded stores: as Transact, on shard `shard` alone, whose agents'
  // enrollments, reports and ledger rows are the only writes it takes
  // (anything else fails the transaction). One shard's outage then fails
  // only its own transactions. Other stores: Transact.
  virtual absl::Status TransactShard(
      int shard, absl::FunctionRef<absl::Status(StoreTransaction&)> body) {
    return Transact(body);
  }

  // Runs `body` in one transaction and commits it durably if `body` returns
  // OK; otherwise, or if the commit fails, rolls everything back and
  // returns the error. A sharded store runs one transaction per database
  // and commits the catalog's last, so a failure can leave the other
  // databases' writes committed; every write being idempotent, running
  // the body again completes them.
  virtual absl::Status Transact(
      absl::FunctionRef<absl::Status(StoreTransaction&)> body) = 0;

  // Reload after a restart. Rows come in id order.
  virtual absl::Status ForEachAgent(
      absl::FunctionRef<absl::Status(const AgentRow&)> visit) = 0;
  virtual absl::StatusOr<std::vector<StudyRow>> LoadStudies() = 0;
  virtual absl::StatusOr<std::vector<RoundRow>> LoadRounds() = 0;
  // Visits every report; epsilon_nanos, cap_nanos and study_id are 0.
  virtual absl::Status ForEachReport(
      absl::FunctionRef<absl::Status(const ReportRow&)> visit) = 0;

  // Shuffled batches and their reports (AppendShuffledBatch), in no
  // particular order: the order they arrived in is not kept. Stores that
  // keep none visit nothing.
  virtual bool keeps_shuffled_reports() const { return false; }
  virtual absl::Status ForEachShuffledBatch(
      absl::FunctionRef<absl::Status(const ShuffledBatchSummary&)> visit) {
    return absl::OkStatus();
  }
  virtual absl::Status ForEachShuffledReport(
      absl::FunctionRef<absl::Status(uint64_t round_id, uint32_t question,
                                     std::string_view payload)>
          visit) {
    return absl::OkStatus();
  }

  // Per study with any charge: how many agents, and the largest spend.
  virtual absl::StatusOr<std::vector<LedgerSummary>> SummarizeLedger() = 0;

  // The agent's ledger, one entry per study it was charged in; one study's
  // if study_id ≠ 0. Reads the last committed state.
  virtual absl::StatusOr<std::vector<LedgerEntry>> GetLedger(
      uint64_t agent_id, uint64_t study_id) = 0;
};

}  // namespace ldp

#endif  // LDP_SERVER_STORE_STORE_H_
