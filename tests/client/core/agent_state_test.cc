#include "client/core/agent_state.h"

#include <string>

#include "client/core/payload_text.h"
#include "client/core/state_lines.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using testing::StatusIs;

AgentState SampleState() {
  AgentState state;
  state.caps = {.lifetime_nanos = 10'000'000'000,
                .period_nanos = kUnlimitedNanos,
                .period_seconds = 3600};
  state.lifetime_spent_nanos = 7'500'000'000;
  state.spends = {{.at = 100, .nanos = 500'000'000}, {.at = 160, .nanos = 1}};
  state.studies[1] = {
      .cap_nanos = 2'000'000'000, .spent_nanos = 500'000'000, .last_used = 100};
  state.studies[9] = {.cap_nanos = 1'000'000'000,
                      .spent_nanos = 1'000'000'000,
                      .last_used = 90};
  state.memo["00ff"] = {FrequencyReport{ItemReport{3}}, 100};
  state.memo["abcd"] = {ScalarReport{-4}, 101};
  state.permanent["12ef"] = {FrequencyReport{BitVectorReport{{0xa1}}}, 102, 7};
  TaskReport report{.task_id = 42,
                    .payload = FrequencyReport{SubsetReport{{2, 5}}}};
  for (size_t i = 0; i < report.report_id.size(); ++i)
    report.report_id[i] = 0xf0 + i;
  state.reports[42] = {report, false, kNever};
  report.task_id = 43;
  state.reports[43] = {report, true, 5000};
  return state;
}

TEST(AgentState, RoundTripsThroughText) {
  const AgentState state = SampleState();
  auto parsed = ParseAgentState(SerializeAgentState(state));
  ASSERT_OK(parsed);
  EXPECT_TRUE(*parsed == state);
  EXPECT_EQ(parsed->TotalSpentNanos(), 7'500'000'000);
  EXPECT_EQ(parsed->SpentSince(100), 1);
  EXPECT_EQ(parsed->SpentSince(99), 500'000'001);
  auto empty = ParseAgentState(SerializeAgentState(AgentState{}));
  ASSERT_OK(empty);
  EXPECT_TRUE(*empty == AgentState{});
}

TEST(AgentState, IsReadableByAPerson) {
  const std::string text = SerializeAgentState(SampleState());
  EXPECT_NE(text.find("caps 10000000000 unlimited 3600\n"), std::string::npos);
  EXPECT_NE(text.find("lifetime 7500000000\n"), std::string::npos);
  EXPECT_NE(text.find("spend 100 500000000\n"), std::string::npos);
  EXPECT_NE(text.find("study 1 2000000000 500000000 100\n"), std::string::npos);
  EXPECT_NE(text.find("prr 12ef 102 7 bits:"), std::string::npos);
  EXPECT_NE(text.find("report 42 f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff pending "
                      "never subset:2.5\n"),
            std::string::npos);
  EXPECT_NE(text.find("report 43 f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff settled 5000 "
                      "subset:2.5\n"),
            std::string::npos);
  EXPECT_EQ(text.substr(text.size() - 4), "end\n");
}

TEST(AgentState, RejectsDamagedFilesInsteadOfResettingTheBudget) {
  const std::string good = SerializeAgentState(SampleState());
  const std::string header = "ldp-agent-state 1\n";
  const std::string v2 = "ldp-agent-state 2\ncaps 1 1 1\nlifetime 0\n";
  for (const std::string& text : {
           std::string(""),
           good.substr(0, good.size() - 4),  // truncated: no "end"
           good.substr(0, good.size() - 1),  // no final newline
           std::string("ldp-agent-state 3\nend\n"),
           std::string("ldp-agent-state 2\nend\n"),  // no caps, no lifetime
           v2 + "caps 1 1 1\nend\n",
           v2 + "lifetime 5\nend\n",
           v2 + "spend 5 1\nspend 4 1\nend\n",  // out of order
           v2 + "study 1 5 1\nend\n",           // no last_used
           v2 + "prr ab 1 item:1\nend\n",
           v2 + "report 1 000102030405060708090a0b0c0d0e0f pending soon "
                "item:1\nend\n",
           header + "caps 1 1 1\nend\n",    // v2 entries in a v1 file
           header + "study 1 5 6\nend\n",   // spent above cap
           header + "study 1 -5 0\nend\n",  // negative
           header + "study 1 5 1\nstudy 1 5 1\nend\n",
           header + "study 1 5\nend\n",
           header + "memo zz item:1\nend\n",
           header + "memo ab item:1\nmemo ab item:2\nend\n",
           header + "memo ab item:x\nend\n",
           header + "report 1 00 pending item:1\nend\n",
           header +
               "report 1 000102030405060708090a0b0c0d0e0f maybe item:1\nend\n",
           v2 + "report 1 000102030405060708090a0b0c0d0e0f pending never "
                "item:1 0a0\nend\n",  // sealed bytes: odd hex
           v2 + "report 1 000102030405060708090a0b0c0d0e0f pending never "
                "item:1 0A0B\nend\n",  // sealed bytes: not lowercase
           v2 + "report 1 000102030405060708090a0b0c0d0e0f pending never "
                "item:1 0a0b x\nend\n",
           header + "report 1 000102030405060708090a0b0c0d0e0f pending item:1 "
                    "0a0b\nend\n",  // sealed bytes in a v1 file
           header + "bogus 1\nend\n",
           header + "\nend\n",
       }) {
    EXPECT_THAT(ParseAgentState(text), StatusIs(absl::StatusCode::kDataLoss))
        << text;
  }
}

// Files written before caps existed keep every charge: their lifetime
// spend is the sum of their studies'.
TEST(AgentState, ReadsVersionOneFiles) {
  auto state = ParseAgentState(
      "ldp-agent-state 1\n"
      "study 1 2000000000 500000000\n"
      "study 4 1000000000 1000000000\n"
      "memo 00ff item:3\n"
      "report 42 f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff settled subset:2.5\n"
      "end\n");
  ASSERT_OK(state);
  EXPECT_EQ(state->TotalSpentNanos(), 1'500'000'000);
  EXPECT_EQ(state->studies.at(4).spent_nanos, 1'000'000'000);
  EXPECT_TRUE(state->memo.at("00ff").payload ==
              ReportPayload{FrequencyReport{ItemReport{3}}});
  EXPECT_TRUE(state->reports.at(42).settled);
  // Written back, it is a version 2 file with the same spend.
  auto again = ParseAgentState(SerializeAgentState(*state));
  ASSERT_OK(again);
  EXPECT_TRUE(*again == *state);
}

// A shuffled task's pending report keeps its sealed bytes, whatever they
// hold (they are binary), and its line's size is still what is written.
TEST(AgentState, SealedReportsRoundTrip) {
  AgentState state = SampleState();
  StoredReport& sealed = state.reports.at(42);
  sealed.sealed = std::string("\x00\x01 \n\xff sealed", 12);
  const std::string text = SerializeAgentState(state);
  EXPECT_NE(text.find("never subset:2.5 0001200aff207365616c6564\n"),
            std::string::npos);
  auto parsed = ParseAgentState(text);
  ASSERT_OK(parsed);
  EXPECT_TRUE(*parsed == state);
  EXPECT_EQ(parsed->reports.at(42).sealed, sealed.sealed);
  EXPECT_TRUE(parsed->reports.at(43).sealed.empty());
  EXPECT_EQ(ReportLineSize(sealed, PayloadToText(sealed.report.payload)),
            static_cast<int64_t>(ReportLine(sealed).size()));
  EXPECT_EQ(SerializedSize(state), static_cast<int64_t>(text.size()));
}

TEST(AgentState, EntryLinesAreWhatSerializeWrites) {
  const AgentState state = SampleState();
  const std::string text = SerializeAgentState(state);
  EXPECT_NE(text.find(StudyLine(1, state.studies.at(1))), std::string::npos);
  EXPECT_NE(text.find(MemoLine("abcd", state.memo.at("abcd"))),
            std::string::npos);
  EXPECT_NE(text.find(ReportLine(state.reports.at(43))), std::string::npos);
  EXPECT_NE(text.find(PermanentLine("12ef", state.permanent.at("12ef"))),
            std::string::npos);
  EXPECT_NE(text.find(SpendLine(state.spends[1])), std::string::npos);
}

// The sizes the agent keeps its cap by are the lengths of what is written,
// at every number of digits (0, 9, 10, the largest ids, kNever's word).
TEST(AgentState, LineSizesAreTheWrittenLengths) {
  AgentState state = SampleState();
  const AgentState empty;
  EXPECT_EQ(SerializedSize(empty),
            static_cast<int64_t>(SerializeAgentState(empty).size()));
  for (const uint64_t n : {uint64_t{0}, uint64_t{9}, uint64_t{10},
                           uint64_t{99999}, uint64_t{1} << 63, ~uint64_t{0}}) {
    const int64_t s = static_cast<int64_t>(n >> 1);
    const StudyBudget budget{
        .cap_nanos = s, .spent_nanos = s / 3, .last_used = s};
    EXPECT_EQ(StudyLineSize(n, budget),
              static_cast<int64_t>(StudyLine(n, budget).size()));
    const SpendEntry spend{.at = s, .nanos = s / 7};
    EXPECT_EQ(SpendLineSize(spend),
              static_cast<int64_t>(SpendLine(spend).size()));
    const MemoEntry memo{ScalarReport{-s}, s};
    EXPECT_EQ(MemoLineSize("beef", memo, PayloadToText(memo.payload)),
              static_cast<int64_t>(MemoLine("beef", memo).size()));
    const PermanentResponse prr{FrequencyReport{ItemReport{7}}, s, s / 5};
    EXPECT_EQ(PermanentLineSize("12", prr, PayloadToText(prr.payload)),
              static_cast<int64_t>(PermanentLine("12", prr).size()));
    StoredReport stored = state.reports.at(42);
    stored.report.task_id = n;
    stored.expires = n == ~uint64_t{0} ? kNever : s;
    stored.settled = n % 2 == 1;
    EXPECT_EQ(ReportLineSize(stored, PayloadToText(stored.report.payload)),
              static_cast<int64_t>(ReportLine(stored).size()));
    state.reports[n] = stored;
    state.studies[n] = budget;
  }
  state.caps.period_nanos = kUnlimitedNanos;
  state.caps.lifetime_nanos = kUnlimitedNanos;
  EXPECT_EQ(SerializedSize(state),
            static_cast<int64_t>(SerializeAgentState(state).size()));
}

}  // namespace
}  // namespace ldp
