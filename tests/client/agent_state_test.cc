#include "client/agent_state.h"

#include <string>

#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using testing::StatusIs;

AgentState SampleState() {
  AgentState state;
  state.studies[1] = {.cap_nanos = 2'000'000'000, .spent_nanos = 500'000'000};
  state.studies[9] = {.cap_nanos = 1'000'000'000, .spent_nanos = 1'000'000'000};
  state.memo["00ff"] = FrequencyReport{ItemReport{3}};
  state.memo["abcd"] = ScalarReport{-4};
  TaskReport report{.task_id = 42, .payload = FrequencyReport{SubsetReport{{2, 5}}}};
  for (size_t i = 0; i < report.report_id.size(); ++i) report.report_id[i] = 0xf0 + i;
  state.reports[42] = {report, false};
  report.task_id = 43;
  state.reports[43] = {report, true};
  return state;
}

TEST(AgentState, RoundTripsThroughText) {
  const AgentState state = SampleState();
  auto parsed = ParseAgentState(SerializeAgentState(state));
  ASSERT_OK(parsed);
  EXPECT_TRUE(*parsed == state);
  EXPECT_EQ(parsed->TotalSpentNanos(), 1'500'000'000);
  auto empty = ParseAgentState(SerializeAgentState(AgentState{}));
  ASSERT_OK(empty);
  EXPECT_TRUE(*empty == AgentState{});
}

TEST(AgentState, IsReadableByAPerson) {
  const std::string text = SerializeAgentState(SampleState());
  EXPECT_NE(text.find("study 1 2000000000 500000000\n"), std::string::npos);
  EXPECT_NE(text.find("report 42 f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff pending subset:2.5\n"),
            std::string::npos);
  EXPECT_EQ(text.substr(text.size() - 4), "end\n");
}

TEST(AgentState, RejectsDamagedFilesInsteadOfResettingTheBudget) {
  const std::string good = SerializeAgentState(SampleState());
  const std::string header = "ldp-agent-state 1\n";
  for (const std::string& text : {
           std::string(""),
           good.substr(0, good.size() - 4),  // truncated: no "end"
           good.substr(0, good.size() - 1),  // no final newline
           std::string("ldp-agent-state 2\nend\n"),
           header + "study 1 5 6\nend\n",           // spent above cap
           header + "study 1 -5 0\nend\n",          // negative
           header + "study 1 5 1\nstudy 1 5 1\nend\n",
           header + "study 1 5\nend\n",
           header + "memo zz item:1\nend\n",
           header + "memo ab item:1\nmemo ab item:2\nend\n",
           header + "memo ab item:x\nend\n",
           header + "report 1 00 pending item:1\nend\n",
           header + "report 1 000102030405060708090a0b0c0d0e0f maybe item:1\nend\n",
           header + "bogus 1\nend\n",
           header + "\nend\n",
       }) {
    EXPECT_THAT(ParseAgentState(text), StatusIs(absl::StatusCode::kDataLoss))
        << text;
  }
}

}  // namespace
}  // namespace ldp
