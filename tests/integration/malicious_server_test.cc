// The agent defends itself against a malicious server (DESIGN invariant
// 4). A fake AgentService on loopback hands the real client
// library (AgentClient + Agent) hand-made tasks: tasks beyond the agent's
// budget (while lying about the study's cap), randomizers whose parameters
// do not match the εₜ they charge, questions outside the task's record
// schema, and the same question re-asked under new task and round ids to
// average out the noise. Every refusal must be visible in CycleResult, the
// agent's own ledger must show exactly the allowed spend, and the fake
// server records every report it receives, so "nothing else was sent" is
// checked on the wire.
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "client/agent_client/agent_client.h"
#include "client/core/agent.h"
#include "client/core/agent_state_store.h"
#include "google/protobuf/text_format.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "proto/ldp/v1/agent_service.grpc.pb.h"
#include "tests/integration/fake_agent_service.h"
#include "tests/testing/deep_expression.h"
#include "tests/testing/status_matchers.h"

namespace ldp::testing {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

constexpr int64_t kNanos = 1'000'000'000;  // nano-ε per ε

// A task over the schema {x: real [0, 1], color: r|g|b|y}; `body` adds the
// question and randomizer (text format).
v1::Task MakeTask(uint64_t study, uint64_t round, uint64_t task_id,
                  int64_t epsilon_nanos, const std::string& body) {
  v1::Task task;
  const std::string text = absl::StrCat(
      "study_id: ", study, " round_id: ", round, " task_id: ", task_id,
      " epsilon_nanos: ", epsilon_nanos, R"pb(
        schema {
          fields { name: "x" real_field { lower: 0 upper: 1 } }
          fields { name: "color" categorical_field { categories: [ "r", "g", "b", "y" ] } }
        }
      )pb",
      body);
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &task))
      << text;
  return task;
}

// Honest questions: the mean of x (Duchi) and the color histogram (GRR).
v1::Task MeanTask(uint64_t study, uint64_t round, uint64_t task_id,
                  int64_t eps) {
  return MakeTask(
      study, round, task_id, eps,
      absl::StrCat(
          "query { root { field: \"x\" } output_range { lower: 0 upper: 1 } }"
          " randomizer { duchi {} epsilon_nanos: ",
          eps, " }"));
}
v1::Task ColorTask(uint64_t study, uint64_t round, uint64_t task_id,
                   int64_t eps) {
  return MakeTask(
      study, round, task_id, eps,
      absl::StrCat("encoding { field { field: \"color\" } }"
                   " randomizer { grr {} domain_size: 4 epsilon_nanos: ",
                   eps, " }"));
}

// The payload alone (what the randomizer produced), as bytes.
std::string PayloadBytes(v1::Report report) {
  report.clear_task_id();
  report.clear_report_id();
  report.clear_agent_id();
  std::string bytes;
  EXPECT_TRUE(report.SerializeToString(&bytes));
  return bytes;
}

class MaliciousServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(),
                             &port);
    builder.RegisterService(&fake_);
    server_ = builder.BuildAndStart();
    ASSERT_NE(server_, nullptr);
    ASSERT_GT(port, 0);
    auto client = AgentClient::CreateForChannel(
        {.max_attempts = 1, .send_window = absl::Milliseconds(20)},
        grpc::CreateChannel(absl::StrCat("127.0.0.1:", port),
                            grpc::InsecureChannelCredentials()),
        gen_);
    ASSERT_OK(client);
    client_ = *std::move(client);
    ASSERT_OK(client_->Enroll(""));
    ASSERT_NO_FATAL_FAILURE(MakeAgent(/*total_limit_nanos=*/0));
  }

  void TearDown() override {
    if (server_ != nullptr) server_->Shutdown();
  }

  // The agent allows itself 1 ε per study and `total_limit_nanos` overall
  // (0: the default lifetime cap).
  void MakeAgent(int64_t total_limit_nanos) {
    Record record;
    record.values["x"] = 0.7;
    record.values["color"] = std::string("g");
    AgentOptions options{.record = record,
                         .max_epsilon_per_study_nanos = kNanos};
    if (total_limit_nanos > 0) options.caps.lifetime_nanos = total_limit_nanos;
    auto agent =
        Agent::Create(options, std::make_unique<MemoryAgentStateStore>(), gen_);
    ASSERT_OK(agent);
    agent_ = *std::move(agent);
  }

  CycleResult Cycle(std::vector<v1::Task> tasks) {
    fake_.SetTaskScript(
        [tasks = std::move(tasks)](uint64_t, int) { return tasks; });
    return client_->RunOnce(*agent_);
  }

  int64_t Spent(uint64_t study) const {
    const auto budget = agent_->Budget(study);
    return budget.has_value() ? budget->spent_nanos : 0;
  }

  std::mt19937_64 gen_{99};
  FakeAgentService fake_;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<AgentClient> client_;
  std::unique_ptr<Agent> agent_;
};

TEST_F(MaliciousServerTest,
       TasksBeyondTheBudgetAreRefusedEvenWhenTheServerClaimsMore) {
  fake_.SetClaimedCap(100 * kNanos);  // a lie: the agent's own cap is 1 ε
  const CycleResult first = Cycle({
      MeanTask(1, 1, 100, 6 * kNanos / 10),   // fits: 0.6 of 1
      ColorTask(1, 1, 101, 6 * kNanos / 10),  // 0.6 more: only 0.4 left
      MeanTask(2, 1, 200, 5 * kNanos),        // 5 ε in a fresh study
  });
  EXPECT_OK(first.poll_status);
  EXPECT_OK(first.upload_status);
  EXPECT_EQ(first.tasks_received, 3);
  EXPECT_EQ(first.answered_fresh, 1);
  ASSERT_EQ(first.refusals.size(), 2u);
  for (const absl::Status& refusal : first.refusals) {
    EXPECT_THAT(refusal, StatusIs(absl::StatusCode::kFailedPrecondition));
  }
  EXPECT_EQ(Spent(1), 6 * kNanos / 10);
  EXPECT_EQ(Spent(2), 0);
  EXPECT_EQ(agent_->total_spent_nanos(), 6 * kNanos / 10);

  // Asked again, the same answer: no further report, no further spend.
  const CycleResult second = Cycle({ColorTask(1, 1, 101, 6 * kNanos / 10),
                                    MeanTask(2, 1, 200, 5 * kNanos),
                                    MeanTask(1, 1, 100, 6 * kNanos / 10)});
  EXPECT_EQ(second.refusals.size(), 2u);
  EXPECT_EQ(second.answered_fresh, 0);
  EXPECT_EQ(agent_->total_spent_nanos(), 6 * kNanos / 10);

  const std::vector<v1::Report> sent = fake_.Received();
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].task_id(), 100u);
  EXPECT_EQ(sent[0].agent_id(), client_->credential().agent_id);
}

TEST_F(MaliciousServerTest, TheSameQuestionInManyStudiesIsAnsweredOnce) {
  // The memo is keyed by what the question is, not by the study that asks
  // it: copies in new studies get the same payload at no cost.
  std::vector<v1::Task> copies;
  for (uint64_t study = 10; study < 15; ++study) {
    copies.push_back(MeanTask(study, 1, 1000 + study, kNanos));
  }
  const CycleResult result = Cycle(copies);
  EXPECT_EQ(result.answered_fresh, 1);
  EXPECT_EQ(result.answered_from_memo, 4);
  EXPECT_TRUE(result.refusals.empty());
  EXPECT_EQ(agent_->total_spent_nanos(), kNanos);
  const std::vector<v1::Report> sent = fake_.Received();
  ASSERT_EQ(sent.size(), 5u);
  for (const v1::Report& report : sent) {
    EXPECT_EQ(report.scalar().SerializeAsString(),
              sent[0].scalar().SerializeAsString());
  }
}

TEST_F(MaliciousServerTest,
       NewQuestionsInManyStudiesAreBoundedByTheLifetimeCap) {
  ASSERT_NO_FATAL_FAILURE(MakeAgent(/*total_limit_nanos=*/3 * kNanos / 2));
  std::vector<v1::Task> studies;
  for (uint64_t study = 10; study < 15; ++study) {
    studies.push_back(ColorTask(study, 1, 1000 + study, kNanos / 2 + study));
  }
  const CycleResult result = Cycle(studies);
  EXPECT_EQ(result.answered_fresh, 2);
  EXPECT_EQ(result.refusals.size(), 3u);
  EXPECT_LE(agent_->total_spent_nanos(), 3 * kNanos / 2);
  EXPECT_EQ(fake_.Received().size(), 2u);
}

TEST_F(MaliciousServerTest,
       RandomizersThatDoNotMatchTheChargedEpsilonAreRefused) {
  const int64_t eps = kNanos / 2;
  std::vector<v1::Task> tasks = {
      // GRR specified at 3 ε while the task charges 0.5 ε.
      MakeTask(
          1, 1, 1, eps,
          "encoding { field { field: \"color\" } }"
          " randomizer { grr {} domain_size: 4 epsilon_nanos: 3000000000 }"),
      // Specified at 0.5 ε but charging 1 ε (overcharging is refused too).
      MakeTask(1, 1, 2, kNanos,
               absl::StrCat("query { root { field: \"x\" } output_range { "
                            "lower: 0 upper: 1 } }"
                            " randomizer { duchi {} epsilon_nanos: ",
                            eps, " }")),
      // A domain size that is not the encoding's (4 colors).
      MakeTask(
          1, 1, 3, eps,
          absl::StrCat("encoding { field { field: \"color\" } }"
                       " randomizer { oue {} domain_size: 8 epsilon_nanos: ",
                       eps, " }")),
      // A real-valued mechanism for a histogram, a frequency oracle for a
      // query.
      MakeTask(1, 1, 4, eps,
               absl::StrCat("encoding { field { field: \"color\" } }"
                            " randomizer { duchi {} epsilon_nanos: ",
                            eps, " }")),
      MakeTask(
          1, 1, 5, eps,
          absl::StrCat("query { root { field: \"x\" } output_range { lower: 0 "
                       "upper: 1 } }"
                       " randomizer { grr {} domain_size: 4 epsilon_nanos: ",
                       eps, " }")),
      // Longitudinal: a permanent ε∞ below the per-report ε is incoherent.
      MakeTask(
          1, 1, 6, eps,
          absl::StrCat("encoding { field { field: \"color\" } }"
                       " randomizer { longitudinal_unary_encoding {"
                       " epsilon_permanent_nanos: 100000000 } domain_size: 4"
                       " epsilon_nanos: ",
                       eps, " }")),
      // Discrete Laplace on a lattice finer than the mechanism supports.
      MakeTask(
          1, 1, 7, eps,
          absl::StrCat("query { root { field: \"x\" } output_range { lower: 0 "
                       "upper: 1 } }"
                       " randomizer { discrete_laplace { resolution_bits: 62 }"
                       " epsilon_nanos: ",
                       eps, " }")),
      // No randomizer at all.
      MakeTask(
          1, 1, 8, eps,
          "query { root { field: \"x\" } output_range { lower: 0 upper: 1 } }"),
  };
  const size_t bad = tasks.size();
  tasks.push_back(MeanTask(1, 1, 9, eps));  // the one honest task
  const CycleResult result = Cycle(tasks);
  EXPECT_EQ(result.tasks_received, static_cast<int>(bad + 1));
  EXPECT_EQ(result.answered_fresh, 1);
  ASSERT_EQ(result.refusals.size(), bad);
  for (const absl::Status& refusal : result.refusals) {
    EXPECT_FALSE(refusal.ok());
    EXPECT_NE(refusal.code(), absl::StatusCode::kUnavailable) << refusal;
  }
  EXPECT_EQ(agent_->total_spent_nanos(), eps);
  const std::vector<v1::Report> sent = fake_.Received();
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].task_id(), 9u);
}

TEST_F(MaliciousServerTest, QuestionsOutsideTheSchemaAreRefused) {
  const int64_t eps = kNanos / 2;
  const std::string duchi =
      absl::StrCat(" randomizer { duchi {} epsilon_nanos: ", eps, " }");
  const std::string grr = absl::StrCat(
      " randomizer { grr {} domain_size: 4 epsilon_nanos: ", eps, " }");
  const CycleResult result = Cycle({
      // Fields the schema does not have.
      MakeTask(1, 1, 1, eps,
               "query { root { field: \"salary\" } output_range { lower: 0 "
               "upper: 1 } }" +
                   duchi),
      MakeTask(1, 1, 2, eps, "encoding { field { field: \"ssn\" } }" + grr),
      // A field used as what it is not (x is real, not categorical).
      MakeTask(1, 1, 3, eps,
               "query { root { category_is { field: \"x\" category: \"r\" } }"
               " output_range { lower: 0 upper: 1 } }" +
                   duchi),
      MakeTask(1, 1, 4, eps,
               "query { root { category_is { field: \"color\" category: "
               "\"purple\" } }"
               " output_range { lower: 0 upper: 1 } }" +
                   duchi),
  });
  EXPECT_EQ(result.tasks_received, 4);
  EXPECT_EQ(result.answered_fresh, 0);
  ASSERT_EQ(result.refusals.size(), 4u);
  for (const absl::Status& refusal : result.refusals) {
    EXPECT_THAT(refusal, StatusIs(absl::StatusCode::kInvalidArgument));
  }
  EXPECT_EQ(agent_->total_spent_nanos(), 0);
  EXPECT_TRUE(fake_.Received().empty());
  EXPECT_EQ(result.reports_sent, 0);
}

TEST_F(MaliciousServerTest, AQuestionReAskedUnderNewIdsIsAnsweredFromTheMemo) {
  const int64_t eps = kNanos / 4;
  const CycleResult first =
      Cycle({MeanTask(1, 1, 100, eps), ColorTask(1, 1, 101, eps)});
  EXPECT_EQ(first.answered_fresh, 2);
  EXPECT_EQ(first.reports_accepted, 2);
  const int64_t spent = Spent(1);
  ASSERT_EQ(spent, 2 * eps);

  // The same two questions in later "rounds", under new task ids, several
  // times over and in one poll: every answer is the memoized one.
  const CycleResult again =
      Cycle({MeanTask(1, 2, 200, eps), ColorTask(1, 2, 201, eps),
             MeanTask(1, 3, 300, eps), ColorTask(1, 3, 301, eps)});
  EXPECT_TRUE(again.refusals.empty());
  EXPECT_EQ(again.answered_fresh, 0);
  EXPECT_EQ(again.answered_from_memo, 4);
  EXPECT_EQ(Spent(1), spent);
  // A task id seen before gets the very same report (retry semantics).
  const CycleResult repeat = Cycle({MeanTask(1, 1, 100, eps)});
  EXPECT_EQ(repeat.answered_again, 1);
  EXPECT_EQ(Spent(1), spent);

  const std::vector<v1::Report> sent = fake_.Received();
  ASSERT_EQ(sent.size(), 6u);  // 100, 101, then 200, 201, 300, 301
  std::map<uint64_t, std::string> payload;
  for (const v1::Report& report : sent)
    payload[report.task_id()] = PayloadBytes(report);
  ASSERT_EQ(payload.size(), 6u);
  EXPECT_EQ(payload[200], payload[100]);
  EXPECT_EQ(payload[300], payload[100]);
  EXPECT_EQ(payload[201], payload[101]);
  EXPECT_EQ(payload[301], payload[101]);

  // A genuinely different question (another ε) is a new answer, charged.
  const CycleResult changed = Cycle({MeanTask(1, 4, 400, 2 * eps)});
  EXPECT_EQ(changed.answered_fresh, 1);
  EXPECT_EQ(Spent(1), spent + 2 * eps);
}

// A refusal prints ε exactly, so a charge just over what remains never reads
// "charges 0.5 but only 0.5 remains".
TEST_F(MaliciousServerTest, RefusalsShowTheExactEpsilon) {
  const int64_t half = kNanos / 2;
  ASSERT_EQ(Cycle({MeanTask(1, 1, 1, half)}).answered_fresh, 1);
  const CycleResult result = Cycle({ColorTask(1, 2, 2, half + 1)});
  EXPECT_EQ(result.answered_fresh, 0);
  ASSERT_EQ(result.refusals.size(), 1u);
  EXPECT_THAT(result.refusals[0],
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       AllOf(HasSubstr("charges 0.500000001 epsilon"),
                             HasSubstr("only 0.5 of"))));
  EXPECT_EQ(Spent(1), half);
}

// A question nested deeper than protobuf reads (~48 levels) would fail the
// whole poll in gRPC's deserialization, so the agent reads the poll task
// by task: that task alone is refused, naming the limits, and the poll's
// other tasks are answered.
TEST_F(MaliciousServerTest,
       ATaskNestedTooDeepIsRefusedAloneAndTheRestAnswered) {
  const int64_t eps = kNanos / 4;
  const auto deep_mean = [&](uint64_t study, int depth) {
    v1::Task task = MeanTask(study, 1, study, eps);
    *task.mutable_query()->mutable_root() = DeepExpression(depth, "x");
    return task;
  };
  const CycleResult result = Cycle({MeanTask(1, 1, 1, eps), deep_mean(2, 60),
                                    deep_mean(3, 40), ColorTask(4, 1, 4, eps)});
  ASSERT_OK(result.poll_status);
  EXPECT_EQ(result.answered_fresh, 2);
  ASSERT_EQ(result.refusals.size(), 2u);
  EXPECT_THAT(result.refusals[0],
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("refusing task 2 of study 2"),
                             HasSubstr("100"), HasSubstr("32"))));
  EXPECT_THAT(result.refusals[1],
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("refusing task 3 of study 3"),
                             HasSubstr("32"))));
  std::set<uint64_t> answered;
  for (const v1::Report& report : fake_.Received())
    answered.insert(report.task_id());
  EXPECT_EQ(answered, (std::set<uint64_t>{1, 4}));
  EXPECT_EQ(Spent(2) + Spent(3), 0);
}

}  // namespace
}  // namespace ldp::testing
