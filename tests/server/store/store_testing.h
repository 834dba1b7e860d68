// Rows and one-line calls that the store tests share: the contract suite
// (store_contract_test.cc) and each store's own tests.
//
// Why shared: every store test appends reports of agent 7 in study 1 and
// reads back counts and spends; one copy keeps the suites' rows the same.
#ifndef LDP_TESTS_SERVER_STORE_STORE_TESTING_H_
#define LDP_TESTS_SERVER_STORE_STORE_TESTING_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "gtest/gtest.h"
#include "server/store/store.h"
#include "tests/testing/status_matchers.h"

namespace ldp::store_testing {

inline constexpr int64_t kCap = 1'000'000'000;

// A report of agent 7 in round 1 of study 1, its report id `id_byte`
// repeated.
inline ReportRow Report(uint64_t task_id, uint8_t id_byte,
                        int64_t epsilon_nanos = 400'000'000,
                        std::string payload = "payload") {
  ReportRow row{.task_id = task_id,
                .round_id = 1,
                .study_id = 1,
                .agent_id = 7,
                .payload = std::move(payload),
                .epsilon_nanos = epsilon_nanos,
                .cap_nanos = kCap,
                .received_at = absl::FromUnixSeconds(100)};
  row.report_id.fill(id_byte);
  return row;
}

// AppendReport in a transaction of its own.
inline AppendResult Append(Store& store, const ReportRow& row) {
  AppendResult result;
  EXPECT_OK(store.Transact([&](StoreTransaction& t) -> absl::Status {
    absl::StatusOr<AppendResult> appended = t.AppendReport(row);
    if (!appended.ok()) return appended.status();
    result = *appended;
    return absl::OkStatus();
  }));
  return result;
}

// AppendReports of all `rows` in one transaction.
inline std::vector<AppendResult> AppendBatch(
    Store& store, const std::vector<ReportRow>& rows) {
  std::vector<const ReportRow*> pointers;
  for (const ReportRow& row : rows) pointers.push_back(&row);
  std::vector<AppendResult> results(rows.size());
  EXPECT_OK(store.Transact([&](StoreTransaction& t) {
    return t.AppendReports(pointers, absl::MakeSpan(results));
  }));
  return results;
}

inline int CountReports(Store& store) {
  int count = 0;
  EXPECT_OK(store.ForEachReport([&](const ReportRow&) {
    ++count;
    return absl::OkStatus();
  }));
  return count;
}

// The agent's spend in the study; 0 without a ledger entry.
inline int64_t Spent(Store& store, uint64_t agent_id = 7,
                     uint64_t study_id = 1) {
  absl::StatusOr<std::vector<LedgerEntry>> ledger =
      store.GetLedger(agent_id, study_id);
  EXPECT_OK(ledger);
  return !ledger.ok() || ledger->empty() ? 0 : ledger->front().spent_nanos;
}

}  // namespace ldp::store_testing

#endif  // LDP_TESTS_SERVER_STORE_STORE_TESTING_H_
