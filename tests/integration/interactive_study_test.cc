// An interactive study end to end against a real ldp-server on loopback:
// the MASKED-PARITY program (Kasiviswanathan et al. §5.3) learns r in round
// 1 and, from the server's estimate of r, asks round 2 for the mask a. Real
// agents (client library, gRPC) answer both rounds; the server is killed and
// restarted inside each round, so the program's rounds must come back from
// the store exactly as asked. The learned concept must be exact and no
// agent's ledger may pass the cap.
#include <atomic>
#include <memory>
#include <random>
#include <thread>
#include <vector>

#include "client/agent.h"
#include "client/agent_client.h"
#include "client/agent_state_store.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "proto/convert/study_convert.h"
#include "planning/programs/masked_parity.h"
#include "tests/integration/devices.h"
#include "tests/integration/server_process.h"
#include "tests/testing/status_matchers.h"

namespace ldp::testing {
namespace {

using ::testing::HasSubstr;

constexpr int kDimension = 8;
constexpr int64_t kCap = 4'000'000'000;  // ε = 4 per agent


v1::StudySpec Spec(std::map<std::string, std::string> parameters = {}) {
  StudySpec spec{.display_name = "masked parity d=8",
                 .schema = *MaskedParitySchema(kDimension),
                 .epsilon_cap_nanos = kCap,
                 .mode = StudyMode::kInteractive,
                 .program = ProgramSpec{.name = "masked_parity",
                                        .parameters = std::move(parameters)},
                 .round_duration = absl::Hours(1)};
  v1::StudySpec proto;
  ToProto(spec, &proto);
  return proto;
}

TEST(InteractiveStudy, RoundsThatWouldPassTheCapAreRefusedAtCreation) {
  ServerProcess server;
  ASSERT_OK(server.Start());
  AnalystClient analyst(server);
  // Both rounds asking every agent at ε = 3 need ε = 6 of a cap of 4.
  auto refused = analyst.CreateStudy(Spec({{"reuse_agents", "1"},
                                           {"round1_epsilon", "3"},
                                           {"round2_epsilon", "3"}}));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(refused.status().message(), HasSubstr("1 (\"learn r\", ε=3)"));
  EXPECT_THAT(refused.status().message(), HasSubstr("2 (\"learn a\", ε=3)"));
  EXPECT_THAT(refused.status().message(), HasSubstr("short by 2"));
  // Halving them fits.
  EXPECT_OK(analyst.CreateStudy(Spec({{"reuse_agents", "1"},
                                      {"round1_epsilon", "2"},
                                      {"round2_epsilon", "2"}})));
}

// d = 8, ε = 4, 4000 agents, 2000 per round. Round 1's cells (i, b = 1,
// r_i) hold 1/16 against 0, each with a standard error of about
// √(0.08/2000) ≈ 0.006 at ε = 4, so every bit is read at ≥ 7 SE; round 2's
// mean ±1/2 has SE ≈ 0.03. The test is exact with overwhelming probability
// and its seeds are fixed.
TEST(InteractiveStudy, MaskedParityIsLearnedExactlyAcrossRestarts) {
  std::mt19937_64 concept_gen(2026);
  MaskedParityConcept truth{.r = std::vector<bool>(kDimension)};
  for (int i = 0; i < kDimension; ++i) truth.r[i] = concept_gen() & 1;
  truth.a = concept_gen() & 1;

  constexpr int kAgents = 4000;
  std::vector<Device> devices(kAgents);
  for (int i = 0; i < kAgents; ++i) {
    devices[i].gen = std::make_unique<std::mt19937_64>(i + 1);
    auto agent = Agent::Create(
        {.record = SampleMaskedParityRecord(truth, *devices[i].gen),
         .max_epsilon_per_study_nanos = kCap,
         // Above the default 2 per day: these devices opted into this study.
         .caps = {.lifetime_nanos = kCap, .period_nanos = kCap}},
        std::make_unique<MemoryAgentStateStore>(), *devices[i].gen);
    ASSERT_OK(agent);
    devices[i].agent = *std::move(agent);
  }

  ServerProcess server;
  ASSERT_OK(server.Start());
  auto study = AnalystClient(server).CreateStudy(Spec());
  ASSERT_OK(study);
  const uint64_t id = study->study_id();
  ASSERT_EQ(study->status().round_ids_size(), 1);

  RunAllDevices(server, devices);  // round 1: the agents of [0, 1/2)
  int round1 = 0;
  for (const Device& d : devices) round1 += d.accepted;
  EXPECT_NEAR(round1, kAgents / 2, 10);

  server.Kill();  // round 1's reports must survive
  ASSERT_OK(server.Start());
  auto round2 = AnalystClient(server).StartRound(id);
  ASSERT_OK(round2);
  EXPECT_EQ(round2->name(), "learn a");
  EXPECT_EQ(round2->state(), v1::ROUND_OPEN);
  EXPECT_DOUBLE_EQ(round2->slice_begin(), 0.5);
  ASSERT_EQ(round2->questions_size(), 1);

  server.Kill();  // the program's round 2 must come back from the store
  ASSERT_OK(server.Start());
  RunAllDevices(server, devices);  // round 2: the agents of [1/2, 1)
  AnalystClient analyst(server);
  auto last = analyst.StartRound(id);  // closes round 2; the program is done
  ASSERT_OK(last);
  EXPECT_EQ(last->state(), v1::ROUND_CLOSED_EARLY);

  auto done = analyst.GetStudy(id);
  ASSERT_OK(done);
  EXPECT_EQ(done->status().state(), v1::STUDY_CLOSED);
  const v1::ProgramResult& result = done->status().program_result();
  EXPECT_TRUE(result.done());
  ProgramResult plain;
  for (const auto& v : result.values()) plain.values.push_back({.name = v.name(), .value = v.value()});
  auto learned = MaskedParityFromResult(plain, kDimension);
  ASSERT_OK(learned);
  EXPECT_EQ(*learned, truth) << result.summary();

  // Every agent answered exactly one round, and its ledger shows one charge.
  int64_t max_spent = 0;
  for (const Device& d : devices) {
    EXPECT_EQ(d.accepted, 1) << d.credential.agent_id;
    auto budget = analyst.GetAgentBudget(d.credential.agent_id);
    ASSERT_OK(budget);
    for (const auto& entry : budget->entries()) {
      EXPECT_LE(entry.spent_nanos(), entry.cap_nanos());
      max_spent = std::max<int64_t>(max_spent, entry.spent_nanos());
    }
  }
  EXPECT_EQ(max_spent, kCap);
  EXPECT_EQ(done->status().max_spent_nanos(), static_cast<uint64_t>(kCap));

  // Finished studies refuse to move on.
  auto again = analyst.StartRound(id);
  EXPECT_EQ(again.status().code(), absl::StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace ldp::testing
