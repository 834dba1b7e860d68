// The shuffler's tables; see the header.
#include "server/shuffler/core/shuffle_store.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "server/shuffler/core/shuffle_schema.h"

namespace ldp::shuffler_internal {

using sqlite::Statement;
using sqlite::Transaction;
using sqlite::Use;

struct ShuffleStore::Statements {
  std::unique_ptr<Statement> find_key, insert_key, keys_due, delete_key,
      delete_key_pending, delete_key_seen, seen, pending_digest, insert_pending,
      pending_count, select_pending, delete_pending, insert_seen, insert_batch,
      insert_payload, oldest_batch, batch_payloads, delete_batch, count_pending,
      count_outbox;
};

namespace {

using StatementSlot = std::unique_ptr<Statement> ShuffleStore::Statements::*;

// Every statement the store runs, prepared once at open.
const std::pair<StatementSlot, const char*> kStatements[] = {
    {&ShuffleStore::Statements::find_key,
     "SELECT header, deadline_nanos, min_release, threshold FROM batch_keys "
     "WHERE batch_key = ?1"},
    {&ShuffleStore::Statements::insert_key,
     "INSERT INTO batch_keys (batch_key, header, deadline_nanos, "
     "min_release, threshold) VALUES (?1, ?2, ?3, ?4, ?5)"},
    {&ShuffleStore::Statements::keys_due,
     "SELECT batch_key FROM batch_keys WHERE deadline_nanos <= ?1"},
    {&ShuffleStore::Statements::delete_key,
     "DELETE FROM batch_keys WHERE batch_key = ?1"},
    {&ShuffleStore::Statements::delete_key_pending,
     "DELETE FROM pending WHERE batch_key = ?1"},
    {&ShuffleStore::Statements::delete_key_seen,
     "DELETE FROM seen WHERE batch_key = ?1"},
    {&ShuffleStore::Statements::seen,
     "SELECT 1 FROM seen WHERE batch_key = ?1 AND agent_id = ?2"},
    {&ShuffleStore::Statements::pending_digest,
     "SELECT digest FROM pending WHERE batch_key = ?1 AND agent_id = ?2"},
    {&ShuffleStore::Statements::insert_pending,
     "INSERT INTO pending (batch_key, agent_id, enc, ciphertext, digest) "
     "VALUES (?1, ?2, ?3, ?4, ?5)"},
    {&ShuffleStore::Statements::pending_count,
     "SELECT count(*) FROM pending WHERE batch_key = ?1"},
    {&ShuffleStore::Statements::select_pending,
     "SELECT agent_id, enc, ciphertext FROM pending WHERE batch_key = ?1"},
    {&ShuffleStore::Statements::delete_pending,
     "DELETE FROM pending WHERE batch_key = ?1"},
    {&ShuffleStore::Statements::insert_seen,
     "INSERT INTO seen (batch_key, agent_id) VALUES (?1, ?2)"},
    {&ShuffleStore::Statements::insert_batch,
     "INSERT INTO outbox_batches (batch_id, header) VALUES (?1, ?2)"},
    {&ShuffleStore::Statements::insert_payload,
     "INSERT INTO outbox_payloads (ordinal, seq, enc, ciphertext) "
     "VALUES (?1, ?2, ?3, ?4)"},
    {&ShuffleStore::Statements::oldest_batch,
     "SELECT ordinal, header FROM outbox_batches ORDER BY ordinal LIMIT 1"},
    {&ShuffleStore::Statements::batch_payloads,
     "SELECT enc, ciphertext FROM outbox_payloads WHERE ordinal = ?1 "
     "ORDER BY seq"},
    {&ShuffleStore::Statements::delete_batch,
     "DELETE FROM outbox_batches WHERE ordinal = ?1"},
    {&ShuffleStore::Statements::count_pending, "SELECT count(*) FROM pending"},
    {&ShuffleStore::Statements::count_outbox,
     "SELECT count(*) FROM outbox_batches"},
};

absl::Status PrepareAll(sqlite3* db, ShuffleStore::Statements& s) {
  for (const auto& [slot, sql] : kStatements) {
    ASSIGN_OR_RETURN(s.*slot, Statement::Prepare(db, sql));
  }
  return absl::OkStatus();
}

}  // namespace

ShuffleStore::~ShuffleStore() = default;

absl::StatusOr<std::unique_ptr<ShuffleStore>> ShuffleStore::Open(
    const std::string& path) {
  auto store = std::unique_ptr<ShuffleStore>(new ShuffleStore());
  ASSIGN_OR_RETURN(store->db_, SqliteDb::Open(path));
  RETURN_IF_ERROR(EnsureShuffleSchema(*store->db_));
  store->s_ = std::make_unique<Statements>();
  RETURN_IF_ERROR(PrepareAll(store->db_->handle(), *store->s_));
  return store;
}

absl::StatusOr<std::unique_ptr<Transaction>> ShuffleStore::Begin() {
  return Transaction::Begin(db_->handle());
}

absl::StatusOr<std::optional<KeyRow>> ShuffleStore::FindKey(
    const std::string& key) {
  Use s(*s_->find_key);
  s->BindBlob(1, key);
  ASSIGN_OR_RETURN(const bool row, s->Step());
  if (!row) return std::nullopt;
  return KeyRow{.header = std::string(s->Blob(0)),
                .deadline = absl::FromUnixNanos(s->Int(1)),
                .min_release = static_cast<uint64_t>(s->Int(2)),
                .threshold = static_cast<uint64_t>(s->Int(3))};
}

absl::Status ShuffleStore::InsertKey(const std::string& key,
                                     const KeyRow& row) {
  Use s(*s_->insert_key);
  s->BindBlob(1, key);
  s->BindBlob(2, row.header);
  s->Bind(3, absl::ToUnixNanos(row.deadline));
  s->Bind(4, static_cast<int64_t>(row.min_release));
  s->Bind(5, static_cast<int64_t>(row.threshold));
  return s->Run();
}

absl::StatusOr<std::vector<std::string>> ShuffleStore::KeysDueBy(
    absl::Time now) {
  Use s(*s_->keys_due);
  s->Bind(1, absl::ToUnixNanos(now));
  std::vector<std::string> keys;
  for (;;) {
    ASSIGN_OR_RETURN(const bool row, s->Step());
    if (!row) return keys;
    keys.emplace_back(s->Blob(0));
  }
}

absl::Status ShuffleStore::DeleteKey(const std::string& key) {
  for (Statement* statement :
       {s_->delete_key_pending.get(), s_->delete_key_seen.get(),
        s_->delete_key.get()}) {
    Use s(*statement);
    s->BindBlob(1, key);
    RETURN_IF_ERROR(s->Run());
  }
  return absl::OkStatus();
}

absl::StatusOr<bool> ShuffleStore::Seen(const std::string& key,
                                        uint64_t agent_id) {
  Use s(*s_->seen);
  s->BindBlob(1, key);
  s->Bind(2, static_cast<int64_t>(agent_id));
  return s->Step();
}

absl::StatusOr<std::optional<std::string>> ShuffleStore::PendingDigest(
    const std::string& key, uint64_t agent_id) {
  Use s(*s_->pending_digest);
  s->BindBlob(1, key);
  s->Bind(2, static_cast<int64_t>(agent_id));
  ASSIGN_OR_RETURN(const bool row, s->Step());
  if (!row) return std::nullopt;
  return std::string(s->Blob(0));
}

absl::Status ShuffleStore::InsertPending(const std::string& key,
                                         uint64_t agent_id,
                                         const v1::SealedPayload& payload,
                                         const std::string& digest) {
  Use s(*s_->insert_pending);
  s->BindBlob(1, key);
  s->Bind(2, static_cast<int64_t>(agent_id));
  s->BindBlob(3, payload.enc());
  s->BindBlob(4, payload.ciphertext());
  s->BindBlob(5, digest);
  return s->Run();
}

absl::StatusOr<uint64_t> ShuffleStore::PendingCount(const std::string& key) {
  Use s(*s_->pending_count);
  s->BindBlob(1, key);
  ASSIGN_OR_RETURN(const bool row, s->Step());
  return row ? static_cast<uint64_t>(s->Int(0)) : 0;
}

absl::StatusOr<std::vector<v1::SealedPayload>> ShuffleStore::TakePending(
    const std::string& key) {
  std::vector<v1::SealedPayload> payloads;
  {
    Use select(*s_->select_pending);
    select->BindBlob(1, key);
    Use seen(*s_->insert_seen);
    for (;;) {
      ASSIGN_OR_RETURN(const bool row, select->Step());
      if (!row) break;
      v1::SealedPayload& payload = payloads.emplace_back();
      payload.set_enc(std::string(select->Blob(1)));
      payload.set_ciphertext(std::string(select->Blob(2)));
      seen->BindBlob(1, key);
      seen->Bind(2, select->Int(0));
      RETURN_IF_ERROR(seen->Run());
      seen->Reset();
    }
  }
  Use remove(*s_->delete_pending);
  remove->BindBlob(1, key);
  RETURN_IF_ERROR(remove->Run());
  return payloads;
}

absl::Status ShuffleStore::AppendOutbox(
    const v1::ShuffledBatchHeader& header,
    const std::vector<v1::SealedPayload>& payloads) {
  const std::string header_bytes = header.SerializeAsString();
  {
    Use s(*s_->insert_batch);
    s->BindBlob(1, header.batch_id());
    s->BindBlob(2, header_bytes);
    RETURN_IF_ERROR(s->Run());
  }
  const int64_t ordinal = sqlite3_last_insert_rowid(db_->handle());
  Use s(*s_->insert_payload);
  for (size_t seq = 0; seq < payloads.size(); ++seq) {
    s->Bind(1, ordinal);
    s->Bind(2, static_cast<int64_t>(seq));
    s->BindBlob(3, payloads[seq].enc());
    s->BindBlob(4, payloads[seq].ciphertext());
    RETURN_IF_ERROR(s->Run());
    s->Reset();
  }
  return absl::OkStatus();
}

absl::StatusOr<std::optional<OutboxBatch>> ShuffleStore::OldestOutbox() {
  OutboxBatch batch;
  {
    Use s(*s_->oldest_batch);
    ASSIGN_OR_RETURN(const bool row, s->Step());
    if (!row) return std::nullopt;
    batch.ordinal = s->Int(0);
    if (!batch.header.ParseFromArray(s->Blob(1).data(),
                                     static_cast<int>(s->Blob(1).size()))) {
      return absl::DataLossError(absl::StrCat("outbox batch ", batch.ordinal,
                                              " has an unreadable header"));
    }
  }
  RETURN_IF_ERROR(ReadPayloads(batch.ordinal, batch));
  return batch;
}

absl::Status ShuffleStore::ReadPayloads(int64_t ordinal, OutboxBatch& batch) {
  Use s(*s_->batch_payloads);
  s->Bind(1, ordinal);
  for (;;) {
    ASSIGN_OR_RETURN(const bool row, s->Step());
    if (!row) return absl::OkStatus();
    v1::SealedPayload& payload = batch.payloads.emplace_back();
    payload.set_enc(std::string(s->Blob(0)));
    payload.set_ciphertext(std::string(s->Blob(1)));
  }
}

absl::Status ShuffleStore::DeleteOutbox(int64_t ordinal) {
  Use s(*s_->delete_batch);
  s->Bind(1, ordinal);
  return s->Run();
}

absl::Status ShuffleStore::TruncateWal() {
  return db_->Exec("PRAGMA wal_checkpoint(TRUNCATE)");
}

absl::StatusOr<uint64_t> ShuffleStore::CountPending() {
  Use s(*s_->count_pending);
  ASSIGN_OR_RETURN(const bool row, s->Step());
  return row ? static_cast<uint64_t>(s->Int(0)) : 0;
}

absl::StatusOr<uint64_t> ShuffleStore::CountOutbox() {
  Use s(*s_->count_outbox);
  ASSIGN_OR_RETURN(const bool row, s->Step());
  return row ? static_cast<uint64_t>(s->Int(0)) : 0;
}

}  // namespace ldp::shuffler_internal
