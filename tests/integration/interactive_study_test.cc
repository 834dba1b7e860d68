// An interactive study end to end against a real ldp-server on loopback:
// the MASKED-PARITY program (Kasiviswanathan et al. §5.3) learns r in round
// 1 and, from the server's estimate of r, asks round 2 for the mask a. Real
// agents (client library, gRPC) answer both rounds; the server is killed and
// restarted inside each round, so the program's rounds must come back from
// the store exactly as asked. The learned concept must be exact and no
// agent's ledger may pass the cap. The sequence-fragment puzzle's heavy
// hitters take the same path with a query-valued fragment question (a hash
// built from parity masks) and a candidate question the program builds
// from the first round. Logistic regression with two gradient coordinates
// per agent runs its two-block gradient steps through the same server.
#include <atomic>
#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "client/agent_client/agent_client.h"
#include "client/core/agent.h"
#include "client/core/agent_state_store.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planning/programs/masked_parity.h"
#include "proto/convert/study_convert.h"
#include "tests/integration/devices.h"
#include "tests/integration/server_process.h"
#include "tests/testing/status_matchers.h"

namespace ldp::testing {
namespace {

using ::testing::HasSubstr;

constexpr int kDimension = 8;
constexpr int64_t kCap = 4'000'000'000;  // ε = 4 per agent

// `n` in-process agents with their own seeded coins (device i's seed is
// i + 1), each record drawn by `record(coins)`, and every cap at
// `cap`: above the default 2 per day, as these devices opted into the study.
std::vector<Device> CappedDevices(
    int n, int64_t cap, const std::function<Record(std::mt19937_64&)>& record) {
  std::vector<Device> devices(n);
  for (int i = 0; i < n; ++i) {
    devices[i].gen = std::make_unique<std::mt19937_64>(i + 1);
    auto agent = Agent::Create(
        {.record = record(*devices[i].gen),
         .max_epsilon_per_study_nanos = cap,
         .caps = {.lifetime_nanos = cap, .period_nanos = cap}},
        std::make_unique<MemoryAgentStateStore>(), *devices[i].gen);
    EXPECT_OK(agent);
    if (agent.ok()) devices[i].agent = *std::move(agent);
  }
  return devices;
}

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
  std::vector<Device> devices =
      CappedDevices(kAgents, kCap, [&truth](std::mt19937_64& coins) {
        return SampleMaskedParityRecord(truth, coins);
      });

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
  for (const auto& v : result.values())
    plain.values.push_back({.name = v.name(), .value = v.value()});
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

// sequence_fragments over 16-bit values, ε = 4, 900 agents holding 0x3c5a
// (50%), 0x3c81 (30%) or 0x975a (20%): round 1 asks 2/3 of them for one
// of two fragments tied to a 4-bit hash (N = 4096 each, 300 agents),
// round 2 the rest (300) which stitched candidate they hold. A fragment
// estimate's standard error is about √(0.076/300 + f(1 − f)/300) ≤ 0.035,
// so every planted fragment (≥ 20%) clears the 3 SE cut at ≥ 5 SE and
// every planted value is stitched; in round 2 a planted value's share
// beats any stitched stranger's (true share 0) by ≥ 5 SE. So the top 3
// are the planted values, each share within 5 of its SE of the truth.
TEST(InteractiveStudy, SequenceFragmentsFindThePlantedValues) {
  const std::vector<uint32_t> planted = {0x3c5a, 0x3c81, 0x975a};
  constexpr int kAgents = 900;
  std::mt19937_64 population(77);
  std::map<uint32_t, int> counts;
  std::vector<Device> devices =
      CappedDevices(kAgents, kCap, [&](std::mt19937_64&) {
        const double u =
            std::uniform_real_distribution<double>(0, 1)(population);
        const uint32_t value = planted[u < 0.5 ? 0 : u < 0.8 ? 1 : 2];
        ++counts[value];
        Record record;
        std::vector<bool> bits(16);
        for (int j = 0; j < 16; ++j) bits[j] = (value >> (15 - j)) & 1;
        record.values["value"] = bits;
        return record;
      });
  StudySpec spec{
      .display_name = "sequence fragments",
      .schema = *RecordSchema::Create({FieldSpec::BitVector("value", 16)}),
      .epsilon_cap_nanos = kCap,
      .mode = StudyMode::kInteractive,
      .program = ProgramSpec{.name = "sequence_fragments",
                             .parameters = {{"k", "3"}, {"hash_bits", "4"}}},
      .round_duration = absl::Hours(1)};
  v1::StudySpec proto;
  ToProto(spec, &proto);

  ServerProcess server;
  ASSERT_OK(server.Start());
  AnalystClient analyst(server);
  auto study = analyst.CreateStudy(proto);
  ASSERT_OK(study);
  const uint64_t id = study->study_id();
  RunAllDevices(server, devices);  // the fragments: agents of [0, 2/3)
  auto words = analyst.StartRound(id);
  ASSERT_OK(words);
  EXPECT_EQ(words->name(), "words");
  RunAllDevices(server, devices);  // the candidates: agents of [2/3, 1)
  ASSERT_OK(analyst.StartRound(id));

  auto done = analyst.GetStudy(id);
  ASSERT_OK(done);
  EXPECT_EQ(done->status().state(), v1::STUDY_CLOSED);
  const v1::ProgramResult& result = done->status().program_result();
  std::map<std::string, const v1::ProgramValue*> values;
  for (const auto& v : result.values()) values[v.name()] = &v;
  std::vector<uint32_t> found;
  for (int i = 0; i < 3; ++i) {
    const std::string name = absl::StrCat("top[", i, "]");
    ASSERT_TRUE(values.contains(name + ".value")) << result.summary();
    ASSERT_TRUE(values.contains(name + ".count_fraction"));
    const auto value = static_cast<uint32_t>(values[name + ".value"]->value());
    found.push_back(value);
    const v1::ProgramValue& share = *values[name + ".count_fraction"];
    const double se =
        (share.interval().upper() - share.interval().lower()) / (2 * 1.959964);
    EXPECT_LE(std::abs(share.value() - counts[value] / double(kAgents)), 5 * se)
        << result.summary();
  }
  EXPECT_THAT(found, ::testing::UnorderedElementsAreArray(planted))
      << result.summary();
  for (const Device& d : devices) EXPECT_EQ(d.accepted, 1);
}

// Logistic regression with two gradient coordinates per agent,
// through the real server: each gradient step is two rounds on one slice
// of the agents, one block of coordinates each at ε/2, so every agent
// answers both rounds of its step and spends exactly the cap. 1,200 agents
// are far too few to learn the model (the planner's unit tests do that on
// 200,000); what this holds is the schedule as the server runs it: the
// rounds' names and order, one report per agent per round of its step,
// the spend, and a released model.
TEST(InteractiveStudy, LogisticRegressionAsksTwoBlocksPerGradientStep) {
  constexpr int kAgents = 1200;
  constexpr int64_t kTwo = 2'000'000'000;  // ε = 2 per agent, 1 per report
  std::mt19937_64 population(25);
  std::vector<Device> devices =
      CappedDevices(kAgents, kTwo, [&population](std::mt19937_64&) {
        std::uniform_real_distribution<double> u(-1, 1), v(0, 4);
        Record record;
        const double a = u(population), b = v(population);
        record.values["u"] = a;
        record.values["v"] = b;
        record.values["y"] = a + (b / 2 - 1) > 0;
        return record;
      });
  StudySpec spec{
      .display_name = "logistic regression, k = 2",
      .schema = *RecordSchema::Create({FieldSpec::Real("u", -1, 1),
                                       FieldSpec::Real("v", 0, 4),
                                       FieldSpec::Bool("y")}),
      .epsilon_cap_nanos = kTwo,
      .mode = StudyMode::kInteractive,
      .program = ProgramSpec{.name = "logistic_regression",
                             .parameters = {{"features", "u,v"},
                                            {"label", "y"},
                                            {"rounds", "2"},
                                            {"coordinates_per_agent", "2"}}},
      .round_duration = absl::Hours(1)};
  v1::StudySpec proto;
  ToProto(spec, &proto);

  ServerProcess server;
  ASSERT_OK(server.Start());
  AnalystClient analyst(server);
  auto study = analyst.CreateStudy(proto);
  ASSERT_OK(study);
  const uint64_t id = study->study_id();
  const std::vector<std::string> next = {"gradient step 1, block 2 of 2",
                                         "gradient step 2, block 1 of 2",
                                         "gradient step 2, block 2 of 2"};
  for (const std::string& name : next) {
    RunAllDevices(server, devices);
    auto round = analyst.StartRound(id);
    ASSERT_OK(round);
    EXPECT_EQ(round->name(), name);
  }
  RunAllDevices(server, devices);
  ASSERT_OK(analyst.StartRound(id));  // closes the last round: the result

  auto done = analyst.GetStudy(id);
  ASSERT_OK(done);
  EXPECT_EQ(done->status().state(), v1::STUDY_CLOSED);
  std::map<std::string, double> values;
  for (const auto& v : done->status().program_result().values()) {
    values[v.name()] = v.value();
  }
  EXPECT_EQ(values["gradient_steps"], 2);
  for (const char* name : {"theta[0]", "theta[1]", "bias"}) {
    ASSERT_TRUE(values.contains(name)) << name;
    EXPECT_TRUE(std::isfinite(values[name])) << name;
  }
  for (const Device& d : devices) {
    EXPECT_EQ(d.accepted, 2);  // both blocks of its step, nothing else
    EXPECT_EQ(d.agent->total_spent_nanos(), kTwo);
  }
}

}  // namespace
}  // namespace ldp::testing
