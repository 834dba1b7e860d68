// A shuffled study's task through the agent's decoding, core and wire
// layers: refused without a shuffler, refused when its ticket does not fit
// the task or the agent (nothing spent), and otherwise charged ε0 like any
// task, sealed once so that the server's key opens it to a report with no
// agent and the shuffled task id, kept out of every upload to the server,
// and resent as saved until the shuffler acknowledges it.
#include "client/agent_wire/shuffled_reports.h"

#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "client/agent_wire/task_batch.h"
#include "client/agent_wire/upload_batches.h"
#include "client/core/agent.h"
#include "client/core/agent_state_store.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "proto/convert/deterministic_bytes.h"
#include "proto/convert/report_convert.h"
#include "tests/client/core/color_tasks.h"
#include "tests/client/core/shuffle_tasks.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using ::ldp::testing::OpenSubmissionBytes;
using ::ldp::testing::ShuffledFor;
using ::ldp::testing::ShuffleKeys;
using ::ldp::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr uint64_t kSealingAgentId = 77;
constexpr int64_t kSealingHalf = testing::kHalfEpsilonNanos;
const ShuffledTaskOptions kWithShuffler{.agent_id = kSealingAgentId,
                                        .has_shuffler = true};

// Keeps a MemoryAgentStateStore alive across agents, so a test can restart
// an agent from what it saved.
class SharedMemoryStore : public AgentStateStore {
 public:
  explicit SharedMemoryStore(MemoryAgentStateStore* store) : store_(store) {}
  absl::StatusOr<AgentState> Load() override { return store_->Load(); }
  absl::Status Save(const AgentState& state) override {
    return store_->Save(state);
  }

 private:
  MemoryAgentStateStore* store_;
};

class SealingTest : public ::testing::Test {
 protected:
  void SetUp() override { Restart(); }

  // A new agent (default caps, seeded coins) over the same saved state.
  void Restart() {
    auto agent =
        Agent::Create({.record_json = R"({"color": "c1"})"},
                      std::make_unique<SharedMemoryStore>(&store_), gen_);
    ASSERT_TRUE(agent.ok()) << agent.status();
    agent_ = *std::move(agent);
  }

  // Decodes `tasks` as one poll and lets the agent answer what it accepts.
  TaskBatch AnswerPoll(const std::vector<v1::Task>& tasks,
                       const ShuffledTaskOptions& shuffle = kWithShuffler) {
    absl::StatusOr<TaskBatch> batch =
        DecodeTaskBatch(testing::PollBytes(tasks), shuffle);
    EXPECT_TRUE(batch.ok()) << batch.status();
    for (const auto& answer : agent_->AnswerAll(batch->tasks)) {
      EXPECT_TRUE(answer.ok()) << answer.status();
    }
    return *std::move(batch);
  }

  v1::Task ShuffledColorTask() {
    return ShuffledFor(testing::ColorTask(1, 1001, 3), kSealingAgentId, keys_);
  }

  std::mt19937_64 gen_{20240611};
  MemoryAgentStateStore store_;
  std::unique_ptr<Agent> agent_;
  ShuffleKeys keys_ = testing::NewShuffleKeys();
};

TEST_F(SealingTest, RefusesShuffledTasksWithoutAShuffler) {
  const TaskBatch batch = AnswerPoll({ShuffledColorTask()}, {});
  EXPECT_TRUE(batch.tasks.empty());
  ASSERT_EQ(batch.malformed.size(), 1u);
  EXPECT_THAT(batch.malformed[0],
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("no shuffler")));
  EXPECT_EQ(agent_->total_spent_nanos(), 0);
}

TEST_F(SealingTest, RefusesTicketsThatDoNotFitTheTaskOrTheAgent) {
  const ShuffleKeys other = testing::NewShuffleKeys();
  const std::string other_digest =
      QuestionDigest(testing::ColorTask(1, 1001, 4));
  const std::vector<std::function<void(v1::ShuffleTicket&)>> tampers = {
      [](v1::ShuffleTicket& t) { t.set_agent_id(kSealingAgentId + 1); },
      [](v1::ShuffleTicket& t) { t.set_study_id(2); },
      [](v1::ShuffleTicket& t) { t.set_round_id(2); },
      [](v1::ShuffleTicket& t) { t.set_shuffled_task_id(0); },
      [&](v1::ShuffleTicket& t) { t.set_question_digest(other_digest); },
      [&](v1::ShuffleTicket& t) {
        t.set_key_id(HpkeKeyId(HpkeKeyBytes(other.hpke.public_key)));
      },
      [](v1::ShuffleTicket& t) {
        t.mutable_deadline()->set_seconds(t.deadline().seconds() + 1);
      },
      [](v1::ShuffleTicket& t) { t.set_min_batch(0); },
  };
  std::vector<v1::Task> tasks;
  for (const auto& tamper : tampers) {
    tasks.push_back(ShuffledFor(testing::ColorTask(1, 1001 + tasks.size(), 3),
                                kSealingAgentId, keys_, tamper));
  }
  // The key the ticket names, but another key to seal to.
  tasks.push_back(ShuffledColorTask());
  tasks.back().set_task_id(1100);
  tasks.back().mutable_shuffle()->set_hpke_public_key(
      std::string(HpkeKeyBytes(other.hpke.public_key)));
  // The ticket's question, but the task asks it of another schema.
  tasks.push_back(ShuffledColorTask());
  tasks.back().set_task_id(1101);
  ASSERT_TRUE(google::protobuf::TextFormat::MergeFromString(
      R"pb(fields {
             name: "extra"
             real_field { lower: 0 upper: 1 }
           })pb",
      tasks.back().mutable_schema()));
  const TaskBatch batch = AnswerPoll(tasks);
  EXPECT_TRUE(batch.tasks.empty());
  ASSERT_EQ(batch.malformed.size(), tasks.size());
  for (const absl::Status& refusal : batch.malformed) {
    EXPECT_THAT(refusal, StatusIs(absl::StatusCode::kInvalidArgument,
                                  HasSubstr("shuffle ticket")));
  }
  EXPECT_EQ(agent_->total_spent_nanos(), 0);
  // The same task with the fitting ticket is answered.
  EXPECT_EQ(AnswerPoll({ShuffledColorTask()}).tasks.size(), 1u);
}

TEST_F(SealingTest, ChargesEpsilon0AndSealsForTheServerOnly) {
  const v1::Task shuffled = ShuffledColorTask();
  const TaskBatch batch =
      AnswerPoll({shuffled, testing::ColorTask(2, 2001, 5)});
  ASSERT_EQ(batch.tasks.size(), 2u);
  EXPECT_EQ(agent_->total_spent_nanos(), 2 * kSealingHalf);
  EXPECT_EQ(agent_->Budget(1)->spent_nanos, kSealingHalf);
  // The server's upload holds the plain task's report alone.
  const std::vector<TaskReport> to_server = agent_->PendingReports();
  ASSERT_EQ(to_server.size(), 1u);
  const auto uploads = MakeUploadBatches(to_server, kSealingAgentId, {});
  ASSERT_EQ(uploads.size(), 1u);
  ASSERT_EQ(uploads[0].reports_size(), 1);
  EXPECT_EQ(uploads[0].reports(0).task_id(), 2001u);
  // The shuffler's submission opens, at the server, to an anonymous report.
  const std::vector<SealedReport> sealed = agent_->PendingSealed();
  ASSERT_EQ(sealed.size(), 1u);
  EXPECT_EQ(sealed[0].task_id, 1001u);
  absl::StatusOr<v1::Report> opened =
      OpenSubmissionBytes(keys_, sealed[0].sealed);
  ASSERT_TRUE(opened.ok()) << opened.status();
  EXPECT_EQ(opened->agent_id(), 0u);
  EXPECT_EQ(opened->task_id(), testing::TestShuffledTaskId());
  EXPECT_EQ(opened->protocol_version(), kWireProtocolVersion);
  const TaskReport& saved = agent_->state().reports.at(1001).report;
  EXPECT_EQ(opened->report_id(),
            std::string(saved.report_id.begin(), saved.report_id.end()));
  EXPECT_TRUE(*PayloadFromProto(*opened) == saved.payload);
  v1::ShuffleSubmission submission;
  ASSERT_TRUE(submission.ParseFromString(sealed[0].sealed));
  EXPECT_EQ(DeterministicBytes(submission.ticket()),
            DeterministicBytes(shuffled.shuffle().ticket()));
}

TEST_F(SealingTest, ResendsTheSavedBytesUntilTheShufflerSettlesThem) {
  AnswerPoll({ShuffledColorTask()});
  const std::string sealed = agent_->PendingSealed().at(0).sealed;
  AnswerPoll({ShuffledColorTask()});  // the same task again: the same bytes
  Restart();
  ASSERT_EQ(agent_->PendingSealed().size(), 1u);
  EXPECT_EQ(agent_->PendingSealed()[0].sealed, sealed);
  EXPECT_EQ(agent_->total_spent_nanos(), kSealingHalf);
  absl::StatusOr<std::vector<v1::SubmitRequest>> requests =
      MakeSubmitBatches(agent_->PendingSealed(), {});
  ASSERT_TRUE(requests.ok());
  ASSERT_EQ(requests->size(), 1u);
  EXPECT_EQ(DeterministicBytes((*requests)[0].submissions(0)), sealed);
  // A transient failure leaves it pending; ALREADY_EXISTS settles it.
  v1::SubmitResponse response;
  response.add_acks()->set_code(14);
  auto verdicts = SubmitAcksToStatuses(response, 1);
  ASSERT_TRUE(verdicts.ok());
  ASSERT_TRUE(agent_->RecordAck(1001, (*verdicts)[0]).ok());
  EXPECT_EQ(agent_->PendingSealed().size(), 1u);
  response.mutable_acks(0)->set_code(6);
  verdicts = SubmitAcksToStatuses(response, 1);
  ASSERT_TRUE(verdicts.ok());
  ASSERT_TRUE(agent_->RecordAck(1001, (*verdicts)[0]).ok());
  Restart();
  EXPECT_TRUE(agent_->PendingSealed().empty());
  EXPECT_TRUE(agent_->PendingReports().empty());
}

TEST_F(SealingTest, RefusesALargeEpsilon0UnderTheDefaultCaps) {
  v1::Task task = testing::ColorTask(1, 1001, 3);
  task.set_epsilon_nanos(4 * kNanosPerEpsilon);
  task.mutable_randomizer()->set_epsilon_nanos(4 * kNanosPerEpsilon);
  absl::StatusOr<TaskBatch> batch = DecodeTaskBatch(
      testing::PollBytes({ShuffledFor(task, kSealingAgentId, keys_)}),
      kWithShuffler);
  ASSERT_TRUE(batch.ok());
  ASSERT_EQ(batch->tasks.size(), 1u);
  const auto answers = agent_->AnswerAll(batch->tasks);
  EXPECT_THAT(answers[0].status(),
              StatusIs(absl::StatusCode::kFailedPrecondition));
  EXPECT_EQ(agent_->total_spent_nanos(), 0);
  EXPECT_TRUE(agent_->PendingSealed().empty());
}

TEST(ShuffledReportsWireTest, AcksMapToVerdicts) {
  v1::SubmitResponse response;
  for (int code : {0, 6, 3, 14, 99}) response.add_acks()->set_code(code);
  auto verdicts = SubmitAcksToStatuses(response, 5);
  ASSERT_TRUE(verdicts.ok());
  std::vector<absl::StatusCode> codes;
  for (const absl::Status& v : *verdicts) codes.push_back(v.code());
  EXPECT_THAT(codes, ElementsAre(absl::StatusCode::kOk, absl::StatusCode::kOk,
                                 absl::StatusCode::kInvalidArgument,
                                 absl::StatusCode::kUnavailable,
                                 absl::StatusCode::kUnknown));
  EXPECT_THAT(SubmitAcksToStatuses(response, 4),
              StatusIs(absl::StatusCode::kInternal));
}

TEST(ShuffledReportsWireTest, BatchesKeepTheirLimitsAndRefuseGarbage) {
  v1::ShuffleSubmission submission;
  submission.mutable_sealed()->set_enc(std::string(32, 'e'));
  submission.mutable_sealed()->set_ciphertext(std::string(80, 'c'));
  std::vector<SealedReport> reports;
  for (uint64_t id = 1; id <= 5; ++id) {
    reports.push_back({id, DeterministicBytes(submission)});
  }
  auto batches = MakeSubmitBatches(reports, {.max_reports_per_batch = 2});
  ASSERT_TRUE(batches.ok());
  ASSERT_EQ(batches->size(), 3u);
  EXPECT_EQ((*batches)[2].submissions_size(), 1);
  batches = MakeSubmitBatches(reports, {.max_batch_bytes = 1});
  ASSERT_TRUE(batches.ok());
  EXPECT_EQ(batches->size(), 5u);
  reports[3].sealed = "\xff\xff not protobuf";
  EXPECT_THAT(
      MakeSubmitBatches(reports, {}),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("task 4")));
}

}  // namespace
}  // namespace ldp
