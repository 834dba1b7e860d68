// The budget against a real ldp-server: an agent asked beyond its own cap
// refuses and nothing is charged; one report per task is counted and
// charged once (a different second report gets ALREADY_EXISTS, an
// identical retry is acknowledged again without a charge); no agent's
// server-side spend ever exceeds the study cap.
#include <random>
#include <vector>

#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "tests/integration/agent_runner.h"
#include "tests/integration/mean_study.h"
#include "tests/integration/server_process.h"
#include "tests/testing/status_matchers.h"

namespace ldp::testing {
namespace {

constexpr int64_t kCapNanos = 1'000'000'000;  // ε = 1 per agent

v1::StudySpec Spec() { return MeanStudySpec("budget", 1, "duchi"); }

Record RecordWithX(double x) {
  Record r;
  r.values["x"] = x;
  return r;
}

TEST(Budget, AnAgentAskedBeyondItsOwnCapRefusesAndIsNotCharged) {
  ServerProcess server;
  ASSERT_OK(server.Start());
  AnalystClient analyst(server);
  auto study = analyst.CreateStudy(Spec());
  ASSERT_OK(study);
  // The server asks for ε = 1; these agents allow themselves only 0.5.
  const auto outcomes =
      RunAgents(server, {RecordWithX(0.2), RecordWithX(0.7)},
                /*threads=*/1, /*agent_cap_nanos=*/kCapNanos / 2);
  for (const auto& o : outcomes) {
    EXPECT_EQ(o.refused, 1);
    EXPECT_EQ(o.accepted, 0);
    auto budget = analyst.GetAgentBudget(o.agent_id);
    ASSERT_OK(budget);
    for (const auto& entry : budget->entries())
      EXPECT_EQ(entry.spent_nanos(), 0u);
  }
  auto after = analyst.GetStudy(study->study_id());
  ASSERT_OK(after);
  EXPECT_EQ(after->status().num_reports(), 0u);
}

TEST(Budget, OneReportPerTaskChargedOnceAndNeverBeyondTheCap) {
  ServerProcess server;
  ASSERT_OK(server.Start());
  AnalystClient analyst(server);
  auto study = analyst.CreateStudy(Spec());
  ASSERT_OK(study);

  std::mt19937_64 gen(5);
  auto agent = Agent::Create(
      {.record = RecordWithX(0.4), .max_epsilon_per_study_nanos = kCapNanos},
      std::make_unique<MemoryAgentStateStore>(), gen);
  ASSERT_OK(agent);
  auto client = AgentClient::CreateForChannel({.max_attempts = 2},
                                              server.NewChannel(), gen);
  ASSERT_OK(client);
  auto credential = (*client)->Enroll("");
  ASSERT_OK(credential);
  auto batch = (*client)->GetTasks();
  ASSERT_OK(batch);
  ASSERT_EQ(batch->tasks.size(), 1u);
  auto answer = (**agent).Answer(batch->tasks[0]);
  ASSERT_OK(answer);
  const TaskReport report = answer->report;

  auto first = (*client)->Upload({report});
  ASSERT_OK(first);
  EXPECT_OK((*first)[0]);
  // The same bytes again (a retry): acknowledged, not charged again.
  auto retry = (*client)->Upload({report});
  ASSERT_OK(retry);
  EXPECT_OK((*retry)[0]);
  // A different report for the same task: refused.
  TaskReport second = report;
  second.report_id[0] ^= 0xff;
  auto duplicate = (*client)->Upload({second});
  ASSERT_OK(duplicate);
  EXPECT_THAT((*duplicate)[0], StatusIs(absl::StatusCode::kAlreadyExists));

  auto after = analyst.GetStudy(study->study_id());
  ASSERT_OK(after);
  EXPECT_EQ(after->status().num_reports(), 1u);
  EXPECT_LE(after->status().max_spent_nanos(),
            static_cast<uint64_t>(kCapNanos));
  auto budget = analyst.GetAgentBudget(credential->agent_id);
  ASSERT_OK(budget);
  ASSERT_EQ(budget->entries_size(), 1);
  EXPECT_EQ(budget->entries(0).spent_nanos(), static_cast<uint64_t>(kCapNanos));
  EXPECT_EQ(budget->entries(0).cap_nanos(), static_cast<uint64_t>(kCapNanos));
  auto estimates = analyst.GetEstimates(study->study_id());
  ASSERT_OK(estimates);
  EXPECT_EQ(estimates->estimates(0).scalar().num_reports(), 1);
}

}  // namespace
}  // namespace ldp::testing
