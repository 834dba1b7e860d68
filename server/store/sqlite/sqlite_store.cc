// SQLite store; see the header.
#include "server/store/sqlite/sqlite_store.h"

#include <sqlite3.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/sqlite/sqlite_statement.h"
#include "server/store/append_decision.h"
#include "server/store/sqlite/sqlite_agents.h"
#include "server/store/sqlite/sqlite_group_append.h"
#include "server/store/sqlite/sqlite_schema.h"
#include "server/store/sqlite/sqlite_shuffled.h"

namespace ldp {
namespace {

int64_t Nanos(absl::Time t) { return absl::ToUnixNanos(t); }
absl::Time FromNanos(int64_t n) { return absl::FromUnixNanos(n); }
int64_t Signed(uint64_t v) { return static_cast<int64_t>(v); }

}  // namespace

namespace sqlite_internal {

struct Connection {
  sqlite3* db = nullptr;
  struct Statements {
    std::unique_ptr<sqlite::Statement> insert_study, find_study,
        set_study_state, insert_round, set_round_state, insert_report,
        select_report, delete_report, ledger_read, ledger_insert,
        ledger_insert_new, ledger_update, ledger_all, ledger_one;
    std::unique_ptr<AgentWriter> agents;
    std::unique_ptr<GroupAppender> group_append;
    std::unique_ptr<ShuffledAppender> shuffled_append;
  } s;
  ~Connection() {
    s = Statements();
    sqlite3_close_v2(db);
  }
};

}  // namespace sqlite_internal

using sqlite::Exec;
using sqlite::ForEachRow;
using sqlite::SqliteError;
using sqlite::Statement;
using sqlite::Use;
using sqlite_internal::AgentWriter;
using sqlite_internal::BindReport;
using sqlite_internal::Configure;
using sqlite_internal::Connection;
using sqlite_internal::EnsureSchema;
using sqlite_internal::GroupAppender;
using sqlite_internal::kRowsPerGroup;
using sqlite_internal::MayBeFirstCharges;
using sqlite_internal::ShuffledAppender;

namespace {

absl::Status PrepareWriterStatements(sqlite3* db, Connection::Statements& s);

}  // namespace

class SqliteStore::Transaction final : public StoreTransaction {
 public:
  explicit Transaction(Connection::Statements& s) : s_(s) {}

  absl::Status InsertAgent(const AgentRow& row) override {
    return s_.agents->Insert(row);
  }
  absl::Status InsertAgents(absl::Span<const AgentRow> rows) override {
    return s_.agents->InsertMany(rows);
  }
  // One writer per database: no lock is needed for the lookup to see every
  // committed enrollment, and this transaction's own.
  absl::StatusOr<std::vector<AgentRow>> FindEnrolledAgents(
      absl::Span<const std::string> requests) override {
    return s_.agents->FindByRequests(requests);
  }

  absl::StatusOr<uint64_t> InsertStudy(const StudyRow& row) override {
    if (!row.request_id.empty()) {
      Use find(*s_.find_study);
      find->BindTextOrNull(1, row.request_id);
      ASSIGN_OR_RETURN(const bool found, find->Step());
      if (found) return static_cast<uint64_t>(find->Int(0));
    }
    Use s(*s_.insert_study);
    s->Bind(1, Signed(row.study_id));
    s->BindBlob(2, row.spec);
    s->BindTextOrNull(3, row.request_id);
    s->Bind(4, static_cast<int64_t>(row.state));
    s->Bind(5, Nanos(row.created_at));
    RETURN_IF_ERROR(s->Run());
    return row.study_id;
  }

  absl::Status SetStudyState(uint64_t study_id, StudyState state) override {
    Use s(*s_.set_study_state);
    s->Bind(1, static_cast<int64_t>(state));
    s->Bind(2, Signed(study_id));
    return s->Run();
  }

  absl::Status InsertRound(const RoundRow& row) override {
    Use s(*s_.insert_round);
    s->Bind(1, Signed(row.round_id));
    s->Bind(2, Signed(row.study_id));
    s->Bind(3, static_cast<int64_t>(row.state));
    s->Bind(4, Nanos(row.start_time));
    s->Bind(5, Nanos(row.deadline));
    s->BindBlob(6, row.plan);
    return s->Run();
  }

  absl::Status SetRoundState(uint64_t round_id, RoundState state) override {
    Use s(*s_.set_round_state);
    s->Bind(1, static_cast<int64_t>(state));
    s->Bind(2, Signed(round_id));
    return s->Run();
  }

  // Whole groups of first charges in three statements (GroupAppender);
  // any group that is not one, and the tail, row by row.
  absl::Status AppendReports(absl::Span<const ReportRow* const> rows,
                             absl::Span<AppendResult> results) override {
    size_t i = 0;
    while (rows.size() - i >= kRowsPerGroup) {
      const auto group = rows.subspan(i, kRowsPerGroup);
      bool stored = false;
      if (MayBeFirstCharges(group)) {
        ASSIGN_OR_RETURN(stored, s_.group_append->Append(group));
      }
      for (size_t k = 0; k < group.size(); ++k, ++i) {
        if (stored) {
          results[i] =
              DecideAppend(*group[k], {.spent_nanos = 0, .charged = true});
        } else {
          ASSIGN_OR_RETURN(results[i], AppendReport(*group[k]));
        }
      }
    }
    for (; i < rows.size(); ++i) {
      ASSIGN_OR_RETURN(results[i], AppendReport(*rows[i]));
    }
    return absl::OkStatus();
  }

  // The report goes in first (its primary key dedupes); then the ledger is
  // read and charged, and an over-cap report is taken back out, all inside
  // the caller's transaction. Plain statements only: RETURNING would cost
  // an ephemeral table per report. DecideAppend (append_decision.h) says
  // what the facts mean.
  absl::StatusOr<ShuffledAppendResult> AppendShuffledBatch(
      const ShuffledBatchRow& row) override {
    return s_.shuffled_append->Append(row);
  }

  absl::StatusOr<AppendResult> AppendReport(const ReportRow& row) override {
    ASSIGN_OR_RETURN(const bool inserted, InsertReport(row));
    if (!inserted) return CompareWithStored(row);
    // A repeated question (server/rounds/ledger_charge.h) is stored at no
    // charge.
    if (row.epsilon_nanos == 0) return DecideAppend(row, {});
    ASSIGN_OR_RETURN(const bool first, FirstCharge(row));
    if (first) return DecideAppend(row, {.spent_nanos = 0, .charged = true});
    ASSIGN_OR_RETURN(const std::optional<Ledger> ledger, ReadLedger(row));
    const int64_t spent = ledger.has_value() ? ledger->spent : 0;
    const int64_t cap = ledger.has_value()
                            ? std::min(ledger->cap, row.cap_nanos)
                            : row.cap_nanos;
    const AppendFacts facts{
        .spent_nanos = spent,
        .charged = ChargeFits(row.epsilon_nanos, spent, cap)};
    if (!facts.charged) {
      Use remove(*s_.delete_report);
      remove->Bind(1, Signed(row.task_id));
      RETURN_IF_ERROR(remove->Run());
      return DecideAppend(row, facts);
    }
    Use charge(ledger.has_value() ? *s_.ledger_update : *s_.ledger_insert);
    charge->Bind(1, Signed(row.agent_id));
    charge->Bind(2, Signed(row.study_id));
    charge->Bind(3, spent + row.epsilon_nanos);
    if (!ledger.has_value()) charge->Bind(4, row.cap_nanos);
    RETURN_IF_ERROR(charge->Run());
    return DecideAppend(row, facts);
  }

 private:
  absl::StatusOr<bool> InsertReport(const ReportRow& row) {
    Use s(*s_.insert_report);
    BindReport(*s, 0, row);
    RETURN_IF_ERROR(s->Run());
    return s->Changes() == 1;  // 0: the task already has a report
  }

  // The agent's first charge in the study, which is most reports' case,
  // in one statement instead of a read and an insert: the row goes in only
  // if none exists, and only when ε fits the cap from zero, exactly what
  // the general path would decide for a missing row. False: a row exists
  // (or ε does not fit), and the general path decides.
  absl::StatusOr<bool> FirstCharge(const ReportRow& row) {
    if (!ChargeFits(row.epsilon_nanos, 0, row.cap_nanos)) return false;
    Use s(*s_.ledger_insert_new);
    s->Bind(1, Signed(row.agent_id));
    s->Bind(2, Signed(row.study_id));
    s->Bind(3, row.epsilon_nanos);
    s->Bind(4, row.cap_nanos);
    RETURN_IF_ERROR(s->Run());
    return s->Changes() == 1;
  }

  struct Ledger {
    int64_t spent = 0;
    int64_t cap = 0;
  };
  absl::StatusOr<std::optional<Ledger>> ReadLedger(const ReportRow& row) {
    Use s(*s_.ledger_read);
    s->Bind(1, Signed(row.agent_id));
    s->Bind(2, Signed(row.study_id));
    ASSIGN_OR_RETURN(const bool found, s->Step());
    if (!found) return std::nullopt;
    return Ledger{.spent = s->Int(0), .cap = s->Int(1)};
  }

  // The task's stored report is read while its statement is in use: the
  // view points into SQLite's row.
  absl::StatusOr<AppendResult> CompareWithStored(const ReportRow& row) {
    ASSIGN_OR_RETURN(const std::optional<Ledger> ledger, ReadLedger(row));
    AppendFacts facts{.stored = StoredReportView{},
                      .spent_nanos = ledger.has_value() ? ledger->spent : 0};
    Use s(*s_.select_report);
    s->Bind(1, Signed(row.task_id));
    ASSIGN_OR_RETURN(const bool found, s->Step());
    // Not found cannot happen (the insert skipped only for this task's
    // row); the empty view then reads as a conflict.
    if (found) {
      facts.stored =
          StoredReportView{.report_id = s->Blob(0),
                           .payload = s->Blob(1),
                           .agent_id = static_cast<uint64_t>(s->Int(2))};
    }
    return DecideAppend(row, facts);
  }

  Connection::Statements& s_;
};

namespace {

absl::Status PrepareWriterStatements(sqlite3* db, Connection::Statements& s) {
  const std::pair<std::unique_ptr<Statement>*, const char*> all[] = {
      {&s.insert_study,
       "INSERT INTO studies(study_id, spec, request_id, state, created_at) "
       "VALUES(?1, ?2, ?3, ?4, ?5)"},
      {&s.find_study, "SELECT study_id FROM studies WHERE request_id = ?1"},
      {&s.set_study_state, "UPDATE studies SET state = ?1 WHERE study_id = ?2"},
      {&s.insert_round,
       "INSERT INTO rounds(round_id, study_id, state, start_time, deadline, "
       "plan) VALUES(?1, ?2, ?3, ?4, ?5, ?6)"},
      {&s.set_round_state, "UPDATE rounds SET state = ?1 WHERE round_id = ?2"},
      {&s.insert_report,
       "INSERT INTO reports(task_id, round_id, agent_id, report_id, payload, "
       "received_at) VALUES(?1, ?2, ?3, ?4, ?5, ?6) "
       "ON CONFLICT(task_id) DO NOTHING"},
      {&s.select_report,
       "SELECT report_id, payload, agent_id FROM reports WHERE task_id = ?1"},
      {&s.delete_report, "DELETE FROM reports WHERE task_id = ?1"},
      {&s.ledger_read,
       "SELECT spent_nanos, cap_nanos FROM ledger "
       "WHERE agent_id = ?1 AND study_id = ?2"},
      {&s.ledger_insert,
       "INSERT INTO ledger(agent_id, study_id, spent_nanos, cap_nanos) "
       "VALUES(?1, ?2, ?3, ?4)"},
      {&s.ledger_insert_new,
       "INSERT INTO ledger(agent_id, study_id, spent_nanos, cap_nanos) "
       "VALUES(?1, ?2, ?3, ?4) ON CONFLICT(agent_id, study_id) DO NOTHING"},
      {&s.ledger_update,
       "UPDATE ledger SET spent_nanos = ?3 "
       "WHERE agent_id = ?1 AND study_id = ?2"},
  };
  for (const auto& [slot, sql] : all) {
    ASSIGN_OR_RETURN(*slot, Statement::Prepare(db, sql));
  }
  ASSIGN_OR_RETURN(s.agents, AgentWriter::Prepare(db));
  ASSIGN_OR_RETURN(s.group_append, GroupAppender::Prepare(db));
  ASSIGN_OR_RETURN(s.shuffled_append, ShuffledAppender::Prepare(db));
  return absl::OkStatus();
}

absl::Status PrepareReaderStatements(sqlite3* db, Connection::Statements& s) {
  ASSIGN_OR_RETURN(
      s.ledger_all,
      Statement::Prepare(db,
                         "SELECT study_id, cap_nanos, spent_nanos FROM ledger "
                         "WHERE agent_id = ?1 ORDER BY study_id"));
  ASSIGN_OR_RETURN(
      s.ledger_one,
      Statement::Prepare(db,
                         "SELECT study_id, cap_nanos, spent_nanos FROM ledger "
                         "WHERE agent_id = ?1 AND study_id = ?2"));
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Connection>> OpenConnection(
    const SqliteStoreOptions& options, bool writer) {
  auto connection = std::make_unique<Connection>();
  const int code = sqlite3_open_v2(
      options.path.c_str(), &connection->db,
      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
      nullptr);
  if (code != SQLITE_OK) {
    return SqliteError(connection->db, absl::StrCat("open ", options.path),
                       code);
  }
  RETURN_IF_ERROR(Configure(connection->db, writer ? options.cache_kib : 2048));
  if (writer) {
    RETURN_IF_ERROR(EnsureSchema(connection->db));
    RETURN_IF_ERROR(PrepareWriterStatements(connection->db, connection->s));
  } else {
    RETURN_IF_ERROR(PrepareReaderStatements(connection->db, connection->s));
  }
  return connection;
}

}  // namespace

absl::StatusOr<std::unique_ptr<SqliteStore>> SqliteStore::Open(
    const SqliteStoreOptions& options) {
  if (options.path.empty()) {
    return absl::InvalidArgumentError("the database path must not be empty");
  }
  if (options.cache_kib < 64) {
    return absl::InvalidArgumentError(
        absl::StrCat("cache_kib must be >= 64, got ", options.cache_kib));
  }
  if (options.checkpoint_pages < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "checkpoint_pages must be >= 0, got ", options.checkpoint_pages));
  }
  std::unique_ptr<SqliteStore> store(new SqliteStore());
  ASSIGN_OR_RETURN(store->writer_, OpenConnection(options, /*writer=*/true));
  if (options.checkpoint_pages > 0) {
    ASSIGN_OR_RETURN(store->checkpointer_,
                     WalCheckpointer::Start(options.path));
    store->checkpoint_pages_ = options.checkpoint_pages;
    // Replaces SQLite's automatic checkpoint on this connection.
    sqlite3_wal_hook(store->writer_->db, &SqliteStore::OnWalCommit,
                     store.get());
  }
  absl::MutexLock lock(&store->reader_mutex_);
  ASSIGN_OR_RETURN(store->reader_, OpenConnection(options, /*writer=*/false));
  return store;
}

SqliteStore::~SqliteStore() {
  if (writer_ != nullptr) sqlite3_wal_hook(writer_->db, nullptr, nullptr);
  checkpointer_.reset();
}

int SqliteStore::OnWalCommit(void* store, sqlite3* /*db*/, const char* /*name*/,
                             int pages) {
  auto* self = static_cast<SqliteStore*>(store);
  if (pages >= self->checkpoint_pages_) self->checkpointer_->Request();
  return SQLITE_OK;
}

absl::Status SqliteStore::Transact(
    absl::FunctionRef<absl::Status(StoreTransaction&)> body) {
  sqlite3* db = writer_->db;
  RETURN_IF_ERROR(Exec(db, "BEGIN IMMEDIATE"));
  Transaction transaction(writer_->s);
  absl::Status status = body(transaction);
  if (status.ok()) status = Exec(db, "COMMIT");
  if (!status.ok() && sqlite3_get_autocommit(db) == 0) {
    (void)Exec(db, "ROLLBACK");
  }
  return status;
}

absl::Status SqliteStore::ForEachAgent(
    absl::FunctionRef<absl::Status(const AgentRow&)> visit) {
  return ForEachRow(
      writer_->db,
      "SELECT agent_id, credential_hash, enrolled_at, enrollment_batch "
      "FROM agents ORDER BY agent_id",
      [&](Statement& s) {
        AgentRow agent{.agent_id = static_cast<uint64_t>(s.Int(0)),
                       .enrolled_at = FromNanos(s.Int(2))};
        const std::string_view hash = s.Blob(1);
        if (hash.size() != agent.credential_hash.size()) {
          return absl::DataLossError(absl::StrCat(
              "agent ", agent.agent_id, " has a malformed credential hash"));
        }
        std::memcpy(agent.credential_hash.data(), hash.data(), hash.size());
        agent.enrollment_batch = std::string(s.Blob(3));
        return visit(agent);
      });
}

absl::StatusOr<std::vector<StudyRow>> SqliteStore::LoadStudies() {
  std::vector<StudyRow> studies;
  RETURN_IF_ERROR(ForEachRow(
      writer_->db,
      "SELECT study_id, spec, request_id, state, created_at FROM studies "
      "ORDER BY study_id",
      [&](Statement& s) {
        studies.push_back({.study_id = static_cast<uint64_t>(s.Int(0)),
                           .spec = std::string(s.Blob(1)),
                           .request_id = std::string(s.Blob(2)),
                           .state = static_cast<StudyState>(s.Int(3)),
                           .created_at = FromNanos(s.Int(4))});
        return absl::OkStatus();
      }));
  return studies;
}

absl::StatusOr<std::vector<RoundRow>> SqliteStore::LoadRounds() {
  std::vector<RoundRow> rounds;
  RETURN_IF_ERROR(ForEachRow(
      writer_->db,
      "SELECT round_id, study_id, state, start_time, deadline, plan "
      "FROM rounds ORDER BY round_id",
      [&](Statement& s) {
        rounds.push_back({.round_id = static_cast<uint64_t>(s.Int(0)),
                          .study_id = static_cast<uint64_t>(s.Int(1)),
                          .state = static_cast<RoundState>(s.Int(2)),
                          .start_time = FromNanos(s.Int(3)),
                          .deadline = FromNanos(s.Int(4)),
                          .plan = std::string(s.Blob(5))});
        return absl::OkStatus();
      }));
  return rounds;
}

absl::Status SqliteStore::ForEachReport(
    absl::FunctionRef<absl::Status(const ReportRow&)> visit) {
  ReportRow report;  // one buffer for every row's payload
  return ForEachRow(
      writer_->db,
      "SELECT task_id, round_id, agent_id, report_id, payload, received_at "
      "FROM reports ORDER BY task_id",
      [&](Statement& s) {
        report.task_id = static_cast<uint64_t>(s.Int(0));
        report.round_id = static_cast<uint64_t>(s.Int(1));
        report.agent_id = static_cast<uint64_t>(s.Int(2));
        const std::string_view id = s.Blob(3);
        if (id.size() != report.report_id.size()) {
          return absl::DataLossError(
              absl::StrCat("report for task ", report.task_id,
                           " has a malformed report id"));
        }
        std::memcpy(report.report_id.data(), id.data(), id.size());
        report.payload.assign(s.Blob(4));
        report.received_at = FromNanos(s.Int(5));
        return visit(report);
      });
}

absl::Status SqliteStore::ForEachShuffledBatch(
    absl::FunctionRef<absl::Status(const ShuffledBatchSummary&)> visit) {
  return sqlite_internal::ForEachShuffledBatch(writer_->db, visit);
}

absl::Status SqliteStore::ForEachShuffledReport(
    absl::FunctionRef<absl::Status(uint64_t, uint32_t, std::string_view)>
        visit) {
  return sqlite_internal::ForEachShuffledReport(writer_->db, visit);
}

absl::StatusOr<std::vector<LedgerSummary>> SqliteStore::SummarizeLedger() {
  std::vector<LedgerSummary> summaries;
  RETURN_IF_ERROR(ForEachRow(
      writer_->db,
      "SELECT study_id, count(*), max(spent_nanos) FROM ledger "
      "GROUP BY study_id ORDER BY study_id",
      [&](Statement& s) {
        summaries.push_back({.study_id = static_cast<uint64_t>(s.Int(0)),
                             .num_agents = s.Int(1),
                             .max_spent_nanos = s.Int(2)});
        return absl::OkStatus();
      }));
  return summaries;
}

absl::StatusOr<std::vector<LedgerEntry>> SqliteStore::GetLedger(
    uint64_t agent_id, uint64_t study_id) {
  absl::MutexLock lock(&reader_mutex_);
  Use s(study_id == 0 ? *reader_->s.ledger_all : *reader_->s.ledger_one);
  s->Bind(1, Signed(agent_id));
  if (study_id != 0) s->Bind(2, Signed(study_id));
  std::vector<LedgerEntry> entries;
  for (;;) {
    ASSIGN_OR_RETURN(const bool row, s->Step());
    if (!row) return entries;
    entries.push_back({.study_id = static_cast<uint64_t>(s->Int(0)),
                       .cap_nanos = s->Int(1),
                       .spent_nanos = s->Int(2)});
  }
}

}  // namespace ldp
