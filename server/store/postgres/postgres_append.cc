// The PostgreSQL append path; see the header.
#include "server/store/postgres/postgres_append.h"

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "server/store/append_decision.h"
#include "server/store/postgres/postgres_connection.h"
#include "server/store/postgres/postgres_statements.h"
#include "server/store/postgres/postgres_transaction.h"

namespace ldp::postgres_internal {
namespace {

// One ledger row: an agent in a study.
struct GroupKey {
  uint64_t agent_id;
  uint64_t study_id;
  bool operator==(const GroupKey&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const GroupKey& k) {
    return H::combine(std::move(h), k.agent_id, k.study_id);
  }
};
GroupKey KeyOf(const ReportRow& row) { return {row.agent_id, row.study_id}; }

struct StoredReport {
  std::string report_id;
  std::string payload;
  uint64_t agent_id = 0;
};

StoredReportView ViewOf(const StoredReport& stored) {
  return {.report_id = stored.report_id,
          .payload = stored.payload,
          .agent_id = stored.agent_id};
}
StoredReportView ViewOf(const ReportRow& row) {
  return {.report_id = AsBytes(row.report_id),
          .payload = row.payload,
          .agent_id = row.agent_id};
}

// What kAppendBatch answered for the k-th row of the batch.
struct BatchAnswers {
  std::vector<bool> open;      // its round was open
  std::vector<bool> inserted;  // its report went in
  // Its group's spend after the batch, when the group was charged.
  std::vector<std::optional<int64_t>> group_spent;
};

// One AppendBatch call: the rows, their results and what is known of each.
class BatchAppend {
 public:
  BatchAppend(Transaction& t, absl::Span<const ReportRow* const> rows,
              absl::Span<AppendResult> results)
      : t_(t),
        rows_(rows),
        results_(results),
        decided_(rows.size(), false),
        needs_spend_(rows.size(), false) {}

  absl::Status Run();

 private:
  absl::StatusOr<BatchAnswers> SendBatch(const std::vector<size_t>& batch);
  absl::Status RunBatch(const std::vector<size_t>& batch);
  absl::Status DecideInserted(const std::vector<size_t>& batch,
                              const BatchAnswers& answers);
  absl::Status DecideExisting(const std::vector<size_t>& batch,
                              const BatchAnswers& answers,
                              const std::vector<int64_t>& existing_tasks);
  absl::Status DecideLater(const std::vector<size_t>& later);
  absl::Status FillSpend();

  Transaction& t_;
  absl::Span<const ReportRow* const> rows_;
  absl::Span<AppendResult> results_;
  std::vector<bool> decided_;
  // Rows that store nothing: their spend is read once, at the end.
  std::vector<bool> needs_spend_;
  // Rows redone alone: groups over their cap, and races.
  std::vector<size_t> one_by_one_;
  // The reports tasks of the batch already had.
  absl::flat_hash_map<uint64_t, StoredReport> stored_;
  absl::flat_hash_map<uint64_t, size_t> first_of_task_;
};

absl::Status BatchAppend::Run() {
  const size_t n = rows_.size();
  // The batch statement takes the first row of each task with a positive
  // charge. Repeats of a task within the batch, and non-positive charges
  // (which SQLite still checks against a stored report first), are
  // decided after it.
  std::vector<size_t> batch, later;
  batch.reserve(n);
  first_of_task_.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    const bool first = first_of_task_.try_emplace(rows_[i]->task_id, i).second;
    (first && rows_[i]->epsilon_nanos > 0 ? batch : later).push_back(i);
  }
  if (!batch.empty()) RETURN_IF_ERROR(RunBatch(batch));
  // Groups over their cap and races, one at a time in input order.
  std::sort(one_by_one_.begin(), one_by_one_.end());
  for (const size_t i : one_by_one_) {
    ASSIGN_OR_RETURN(results_[i], AppendOne(t_, *rows_[i]));
    decided_[i] = true;
  }
  RETURN_IF_ERROR(DecideLater(later));
  return FillSpend();
}

absl::StatusOr<BatchAnswers> BatchAppend::SendBatch(
    const std::vector<size_t>& batch) {
  const size_t m = batch.size();
  std::vector<int64_t> task(m), round(m), study(m), agent(m), eps(m), cap(m),
      received(m);
  std::vector<std::string_view> report_id(m), payload(m);
  for (size_t k = 0; k < m; ++k) {
    const ReportRow& row = *rows_[batch[k]];
    task[k] = Signed(row.task_id);
    round[k] = Signed(row.round_id);
    study[k] = Signed(row.study_id);
    agent[k] = Signed(row.agent_id);
    report_id[k] = AsBytes(row.report_id);
    payload[k] = row.payload;
    eps[k] = row.epsilon_nanos;
    cap[k] = row.cap_nanos;
    received[k] = Nanos(row.received_at);
  }
  Params p;
  p.IntArray(task)
      .IntArray(round)
      .IntArray(study)
      .IntArray(agent)
      .BytesArray(report_id)
      .BytesArray(payload)
      .IntArray(eps)
      .IntArray(cap)
      .IntArray(received)
      .Int(t_.writer());
  ASSIGN_OR_RETURN(Result r, t_.Run(kAppendBatch, p));
  if (r.rows() != static_cast<int>(m)) {
    return absl::InternalError(absl::StrCat("PostgreSQL append: ", r.rows(),
                                            " answers for ", m, " reports"));
  }
  BatchAnswers answers{.open = std::vector<bool>(m),
                       .inserted = std::vector<bool>(m),
                       .group_spent = std::vector<std::optional<int64_t>>(m)};
  for (int j = 0; j < r.rows(); ++j) {
    const int64_t ord = r.Int(j, 0);
    if (ord < 1 || ord > static_cast<int64_t>(m)) {
      return absl::InternalError("PostgreSQL append: answer out of range");
    }
    const size_t k = static_cast<size_t>(ord - 1);
    answers.open[k] = r.Bool(j, 1);
    answers.inserted[k] = r.Bool(j, 2);
    if (!r.IsNull(j, 3)) answers.group_spent[k] = r.Int(j, 3);
  }
  return answers;
}

// The batch statement over rows_[batch[k]], then what its answers imply:
// stored rows are decided; rows of groups that did not fit go to
// one_by_one_ (their reports taken back out); rows whose task already had
// a report are compared with it.
absl::Status BatchAppend::RunBatch(const std::vector<size_t>& batch) {
  ASSIGN_OR_RETURN(const BatchAnswers answers, SendBatch(batch));
  RETURN_IF_ERROR(DecideInserted(batch, answers));
  std::vector<int64_t> existing_tasks;
  for (size_t k = 0; k < batch.size(); ++k) {
    if (!answers.inserted[k]) {
      existing_tasks.push_back(Signed(rows_[batch[k]]->task_id));
    }
  }
  if (existing_tasks.empty()) return absl::OkStatus();
  return DecideExisting(batch, answers, existing_tasks);
}

absl::Status BatchAppend::DecideInserted(const std::vector<size_t>& batch,
                                         const BatchAnswers& answers) {
  const size_t m = batch.size();
  // Charged groups: their spend before the batch is the final spend less
  // what the batch added; stored rows then count up from it in order.
  absl::flat_hash_map<GroupKey, int64_t> running;
  for (size_t k = 0; k < m; ++k) {
    if (answers.inserted[k] && answers.group_spent[k].has_value()) {
      running[KeyOf(*rows_[batch[k]])] = *answers.group_spent[k];
    }
  }
  for (size_t k = 0; k < m; ++k) {
    if (answers.inserted[k] && answers.group_spent[k].has_value()) {
      running[KeyOf(*rows_[batch[k]])] -= rows_[batch[k]]->epsilon_nanos;
    }
  }
  std::vector<int64_t> refused_tasks;
  for (size_t k = 0; k < m; ++k) {
    if (!answers.inserted[k]) continue;
    const size_t i = batch[k];
    const ReportRow& row = *rows_[i];
    if (!answers.group_spent[k].has_value()) {
      refused_tasks.push_back(Signed(row.task_id));
      one_by_one_.push_back(i);
      continue;
    }
    int64_t& spent = running[KeyOf(row)];
    results_[i] = DecideAppend(row, {.spent_nanos = spent, .charged = true});
    spent += row.epsilon_nanos;
    decided_[i] = true;
  }
  if (refused_tasks.empty()) return absl::OkStatus();
  Params remove;
  remove.IntArray(refused_tasks);
  return t_.Run(kDeleteReports, remove).status();
}

// Tasks that were not inserted: already stored (retry or conflict), or
// their round is not open.
absl::Status BatchAppend::DecideExisting(
    const std::vector<size_t>& batch, const BatchAnswers& answers,
    const std::vector<int64_t>& existing_tasks) {
  Params tasks;
  tasks.IntArray(existing_tasks);
  ASSIGN_OR_RETURN(Result found, t_.Run(kStoredReports, tasks));
  for (int j = 0; j < found.rows(); ++j) {
    stored_[static_cast<uint64_t>(found.Int(j, 0))] = {
        .report_id = std::string(found.Bytes(j, 1)),
        .payload = std::string(found.Bytes(j, 2)),
        .agent_id = static_cast<uint64_t>(found.Int(j, 3))};
  }
  for (size_t k = 0; k < batch.size(); ++k) {
    if (answers.inserted[k]) continue;
    const size_t i = batch[k];
    const ReportRow& row = *rows_[i];
    auto it = stored_.find(row.task_id);
    if (it != stored_.end()) {
      results_[i] = DecideAppend(row, {.stored = ViewOf(it->second)});
    } else if (!answers.open[k]) {
      results_[i] = DecideAppend(row, {.round_open = false});
    } else {
      // Open round, not inserted, yet no report: the one in the way was
      // taken back out since. Decide it alone.
      one_by_one_.push_back(i);
      continue;
    }
    needs_spend_[i] = true;
    decided_[i] = true;
  }
  return absl::OkStatus();
}

// Repeats of a task within the batch and non-positive charges, in order.
absl::Status BatchAppend::DecideLater(const std::vector<size_t>& later) {
  for (const size_t i : later) {
    const ReportRow& row = *rows_[i];
    const size_t first = first_of_task_.at(row.task_id);
    if (first != i && decided_[first]) {
      const AppendOutcome outcome = results_[first].outcome;
      if (outcome == AppendOutcome::kStored) {
        results_[i] = DecideAppend(row, {.stored = ViewOf(*rows_[first])});
        needs_spend_[i] = true;
        decided_[i] = true;
        continue;
      }
      auto it = stored_.find(row.task_id);
      if (it != stored_.end() && (outcome == AppendOutcome::kIdenticalRetry ||
                                  outcome == AppendOutcome::kConflict)) {
        results_[i] = DecideAppend(row, {.stored = ViewOf(it->second)});
        needs_spend_[i] = true;
        decided_[i] = true;
        continue;
      }
    }
    // The first of its task was refused (cap, closed round) or is this
    // row: exactly as AppendReport would.
    ASSIGN_OR_RETURN(results_[i], AppendOne(t_, row));
    decided_[i] = true;
  }
  return absl::OkStatus();
}

// Sets spent_nanos of the rows marked, from the ledger as it is now.
absl::Status BatchAppend::FillSpend() {
  absl::flat_hash_map<GroupKey, int64_t> spend;
  std::vector<int64_t> agents, studies;
  for (size_t i = 0; i < rows_.size(); ++i) {
    if (!needs_spend_[i]) continue;
    if (spend.try_emplace(KeyOf(*rows_[i]), 0).second) {
      agents.push_back(Signed(rows_[i]->agent_id));
      studies.push_back(Signed(rows_[i]->study_id));
    }
  }
  if (agents.empty()) return absl::OkStatus();
  Params p;
  p.IntArray(agents).IntArray(studies);
  ASSIGN_OR_RETURN(Result r, t_.Run(kLedgerSpent, p));
  for (int j = 0; j < r.rows(); ++j) {
    spend[{static_cast<uint64_t>(r.Int(j, 0)),
           static_cast<uint64_t>(r.Int(j, 1))}] = r.Int(j, 2);
  }
  for (size_t i = 0; i < rows_.size(); ++i) {
    if (needs_spend_[i]) results_[i].spent_nanos = spend[KeyOf(*rows_[i])];
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status AppendBatch(Transaction& t,
                         absl::Span<const ReportRow* const> rows,
                         absl::Span<AppendResult> results) {
  return BatchAppend(t, rows, results).Run();
}

absl::StatusOr<AppendResult> AppendOne(Transaction& t, const ReportRow& row) {
  Params p;
  p.Int(Signed(row.task_id))
      .Int(Signed(row.round_id))
      .Int(Signed(row.agent_id))
      .Bytes(AsBytes(row.report_id))
      .Bytes(row.payload)
      .Int(Nanos(row.received_at))
      .Int(t.writer());
  ASSIGN_OR_RETURN(Result appended, t.Run(kAppendOne, p));
  const bool open = appended.Bool(0, 0);
  const bool inserted = appended.Bool(0, 1);
  if (!inserted) {
    Params q;
    q.Int(Signed(row.task_id))
        .Int(Signed(row.agent_id))
        .Int(Signed(row.study_id));
    ASSIGN_OR_RETURN(Result found, t.Run(kStoredOne, q));
    AppendFacts facts{.round_open = open,
                      .spent_nanos = found.IsNull(0, 0) ? 0 : found.Int(0, 0)};
    if (!found.IsNull(0, 1)) {
      facts.stored =
          StoredReportView{.report_id = found.Bytes(0, 1),
                           .payload = found.Bytes(0, 2),
                           .agent_id = static_cast<uint64_t>(found.Int(0, 3))};
    }
    if (facts.stored.has_value() || !open) return DecideAppend(row, facts);
    return absl::InternalError(absl::StrCat("PostgreSQL append: task ",
                                            row.task_id,
                                            " was neither inserted nor found"));
  }
  // A repeated question (server/rounds/ledger_charge.h) is stored at no charge.
  if (row.epsilon_nanos == 0) return DecideAppend(row, {});
  if (row.epsilon_nanos > 0) {
    Params charge;
    charge.Int(Signed(row.agent_id))
        .Int(Signed(row.study_id))
        .Int(row.epsilon_nanos)
        .Int(row.cap_nanos);
    ASSIGN_OR_RETURN(Result charged, t.Run(kChargeOne, charge));
    if (charged.rows() == 1) {
      // The ledger answers the spend after this charge.
      return DecideAppend(row,
                          {.spent_nanos = charged.Int(0, 0) - row.epsilon_nanos,
                           .charged = true});
    }
  }
  Params remove;
  remove.Int(Signed(row.task_id))
      .Int(Signed(row.agent_id))
      .Int(Signed(row.study_id));
  ASSIGN_OR_RETURN(Result removed, t.Run(kRemoveOne, remove));
  return DecideAppend(
      row, {.spent_nanos = removed.IsNull(0, 0) ? 0 : removed.Int(0, 0)});
}

}  // namespace ldp::postgres_internal
