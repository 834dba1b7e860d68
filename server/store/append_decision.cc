// The append decision; see the header.
#include "server/store/append_decision.h"

namespace ldp {
namespace {

bool SameReport(const ReportRow& row, const StoredReportView& stored) {
  const std::string_view id(reinterpret_cast<const char*>(row.report_id.data()),
                            row.report_id.size());
  return stored.report_id == id && stored.payload == row.payload &&
         stored.agent_id == row.agent_id;
}

}  // namespace

bool ChargeFits(int64_t epsilon_nanos, int64_t spent_nanos, int64_t cap_nanos) {
  return epsilon_nanos >= 0 && epsilon_nanos <= cap_nanos - spent_nanos;
}

AppendResult DecideAppend(const ReportRow& row, const AppendFacts& facts) {
  if (facts.stored.has_value()) {
    return {.outcome = SameReport(row, *facts.stored)
                           ? AppendOutcome::kIdenticalRetry
                           : AppendOutcome::kConflict,
            .spent_nanos = facts.spent_nanos};
  }
  if (!facts.round_open) {
    return {.outcome = AppendOutcome::kRoundClosed,
            .spent_nanos = facts.spent_nanos};
  }
  if (row.epsilon_nanos == 0) return {.outcome = AppendOutcome::kStored};
  if (!facts.charged) {
    return {.outcome = AppendOutcome::kOverCap,
            .spent_nanos = facts.spent_nanos};
  }
  return {.outcome = AppendOutcome::kStored,
          .spent_nanos = facts.spent_nanos + row.epsilon_nanos,
          .first_charge = facts.spent_nanos == 0};
}

}  // namespace ldp
