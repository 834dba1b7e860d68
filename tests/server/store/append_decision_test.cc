// DecideAppend and ChargeFits: the rules every store applies to one
// appended report (server/store/append_decision.h).
//
// Why alone: the store tests reach these rules only through SQLite or
// PostgreSQL, where a wrong precedence (a retry into a closed round, a zero
// charge the ledger did not take) or an overflowing cap check hides behind
// the engine. Here each outcome is set up from the facts alone, and each
// expectation names the field a wrong rule would get wrong.
#include "server/store/append_decision.h"

#include <cstdint>
#include <limits>
#include <string>

#include "gtest/gtest.h"
#include "server/store/store.h"

namespace ldp {
namespace {

constexpr int64_t kCapNanos = 1'000'000'000;
constexpr int64_t kMaxNanos = std::numeric_limits<int64_t>::max();

// A report of agent 7 whose 16-byte report id is `id_byte` repeated.
ReportRow DecisionRow(int64_t epsilon_nanos, uint8_t id_byte = 0x11,
                      std::string payload = "payload") {
  ReportRow row{.task_id = 42,
                .round_id = 3,
                .study_id = 2,
                .agent_id = 7,
                .payload = std::move(payload),
                .epsilon_nanos = epsilon_nanos,
                .cap_nanos = kCapNanos};
  row.report_id.fill(id_byte);
  return row;
}

// The bytes of a report id as a store reads them back.
std::string IdBytes(uint8_t id_byte) {
  return std::string(ReportId{}.size(), static_cast<char>(id_byte));
}

// What a store read back for the task: the views point into `id` and
// `payload`, which must outlive the facts.
AppendFacts StoredFacts(const std::string& id, const std::string& payload,
                        uint64_t agent_id, int64_t spent_nanos) {
  return {.stored =
              StoredReportView{
                  .report_id = id, .payload = payload, .agent_id = agent_id},
          .spent_nanos = spent_nanos};
}

TEST(DecideAppendTest, FirstChargeIsStoredWithItsSpendAndFlagged) {
  const AppendResult result = DecideAppend(DecisionRow(400'000'000),
                                           {.spent_nanos = 0, .charged = true});
  EXPECT_EQ(result.outcome, AppendOutcome::kStored);
  EXPECT_EQ(result.spent_nanos, 400'000'000);
  EXPECT_TRUE(result.first_charge);
}

TEST(DecideAppendTest, LaterChargeReportsTheRunningSpendWithoutFirstCharge) {
  const AppendResult result = DecideAppend(
      DecisionRow(400'000'000), {.spent_nanos = 300'000'000, .charged = true});
  EXPECT_EQ(result.outcome, AppendOutcome::kStored);
  EXPECT_EQ(result.spent_nanos, 700'000'000);
  EXPECT_FALSE(result.first_charge);
}

TEST(DecideAppendTest, ZeroChargeIsStoredWithoutSpendThoughNothingWasCharged) {
  // A repeated question: the ledger takes nothing (charged stays false) and
  // the spend the store saw is not reported.
  const AppendResult result =
      DecideAppend(DecisionRow(0), {.spent_nanos = 500'000'000});
  EXPECT_EQ(result.outcome, AppendOutcome::kStored);
  EXPECT_EQ(result.spent_nanos, 0);
  EXPECT_FALSE(result.first_charge);
}

TEST(DecideAppendTest, SameIdPayloadAndAgentIsAnIdenticalRetry) {
  const std::string id = IdBytes(0x11), payload = "payload";
  const AppendResult result =
      DecideAppend(DecisionRow(400'000'000),
                   StoredFacts(id, payload, /*agent_id=*/7, 400'000'000));
  EXPECT_EQ(result.outcome, AppendOutcome::kIdenticalRetry);
  EXPECT_EQ(result.spent_nanos, 400'000'000);
  EXPECT_FALSE(result.first_charge);
}

TEST(DecideAppendTest, RetryStaysARetryAfterItsRoundClosed) {
  const std::string id = IdBytes(0x11), payload = "payload";
  AppendFacts facts = StoredFacts(id, payload, 7, 400'000'000);
  facts.round_open = false;
  EXPECT_EQ(DecideAppend(DecisionRow(400'000'000), facts).outcome,
            AppendOutcome::kIdenticalRetry);
}

TEST(DecideAppendTest, DifferentPayloadUnderTheSameIdIsAConflict) {
  const std::string id = IdBytes(0x11), payload = "another payload";
  const AppendResult result = DecideAppend(
      DecisionRow(400'000'000), StoredFacts(id, payload, 7, 400'000'000));
  EXPECT_EQ(result.outcome, AppendOutcome::kConflict);
  EXPECT_EQ(result.spent_nanos, 400'000'000);
}

TEST(DecideAppendTest, DifferentReportIdIsAConflict) {
  const std::string id = IdBytes(0x22), payload = "payload";
  EXPECT_EQ(
      DecideAppend(DecisionRow(400'000'000), StoredFacts(id, payload, 7, 0))
          .outcome,
      AppendOutcome::kConflict);
}

TEST(DecideAppendTest, SameReportFromAnotherAgentIsAConflict) {
  const std::string id = IdBytes(0x11), payload = "payload";
  EXPECT_EQ(DecideAppend(DecisionRow(400'000'000),
                         StoredFacts(id, payload, /*agent_id=*/8, 0))
                .outcome,
            AppendOutcome::kConflict);
}

TEST(DecideAppendTest, ConflictIsNotMistakenForAClosedRound) {
  const std::string id = IdBytes(0x11), payload = "other";
  AppendFacts facts = StoredFacts(id, payload, 7, 0);
  facts.round_open = false;
  EXPECT_EQ(DecideAppend(DecisionRow(400'000'000), facts).outcome,
            AppendOutcome::kConflict);
}

TEST(DecideAppendTest, ClosedRoundRefusesANewReportAndKeepsTheSpend) {
  const AppendResult result = DecideAppend(
      DecisionRow(400'000'000),
      {.round_open = false, .spent_nanos = 200'000'000, .charged = false});
  EXPECT_EQ(result.outcome, AppendOutcome::kRoundClosed);
  EXPECT_EQ(result.spent_nanos, 200'000'000);
  EXPECT_FALSE(result.first_charge);
}

TEST(DecideAppendTest, ClosedRoundRefusesEvenAZeroCharge) {
  EXPECT_EQ(DecideAppend(DecisionRow(0), {.round_open = false}).outcome,
            AppendOutcome::kRoundClosed);
}

TEST(DecideAppendTest, UnchargedPositiveChargeIsOverTheCap) {
  const AppendResult result = DecideAppend(
      DecisionRow(400'000'000), {.spent_nanos = 800'000'000, .charged = false});
  EXPECT_EQ(result.outcome, AppendOutcome::kOverCap);
  EXPECT_EQ(result.spent_nanos, 800'000'000);
  EXPECT_FALSE(result.first_charge);
}

TEST(DecideAppendTest, OverCapWithNothingSpentIsNotAFirstCharge) {
  const AppendResult result =
      DecideAppend(DecisionRow(kCapNanos + 1), {.spent_nanos = 0});
  EXPECT_EQ(result.outcome, AppendOutcome::kOverCap);
  EXPECT_EQ(result.spent_nanos, 0);
  EXPECT_FALSE(result.first_charge);
}

TEST(ChargeFitsTest, ChargeThatReachesTheCapExactlyFits) {
  EXPECT_TRUE(ChargeFits(400'000'000, 600'000'000, kCapNanos));
  EXPECT_TRUE(ChargeFits(kCapNanos, 0, kCapNanos));
}

TEST(ChargeFitsTest, OneNanoOverTheCapDoesNotFit) {
  EXPECT_FALSE(ChargeFits(400'000'001, 600'000'000, kCapNanos));
  EXPECT_FALSE(ChargeFits(kCapNanos + 1, 0, kCapNanos));
}

TEST(ChargeFitsTest, ZeroFitsAFullLedgerButNotAnOverdrawnOne) {
  EXPECT_TRUE(ChargeFits(0, kCapNanos, kCapNanos));
  EXPECT_FALSE(ChargeFits(0, kCapNanos + 1, kCapNanos));
}

TEST(ChargeFitsTest, NegativeChargeNeverFits) {
  EXPECT_FALSE(ChargeFits(-1, 0, kCapNanos));
  EXPECT_FALSE(ChargeFits(-1, kCapNanos + 5, kCapNanos));
  EXPECT_FALSE(ChargeFits(std::numeric_limits<int64_t>::min(), 0, kCapNanos));
}

TEST(ChargeFitsTest, ChargesNearInt64MaxDoNotOverflow) {
  // ε + spent would wrap negative here and "fit"; ε ≤ cap − spent does not.
  EXPECT_TRUE(ChargeFits(kMaxNanos, 0, kMaxNanos));
  EXPECT_FALSE(ChargeFits(kMaxNanos, 1, kMaxNanos));
  EXPECT_FALSE(ChargeFits(1, kMaxNanos, kMaxNanos));
  EXPECT_FALSE(ChargeFits(kMaxNanos, kMaxNanos, kMaxNanos));
  EXPECT_TRUE(ChargeFits(kMaxNanos - 5, 5, kMaxNanos));
  EXPECT_FALSE(ChargeFits(kMaxNanos - 4, 5, kMaxNanos));
  EXPECT_FALSE(ChargeFits(kMaxNanos, 0, kCapNanos));
}

}  // namespace
}  // namespace ldp
