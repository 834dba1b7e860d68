// Opening delivered batches against the server's own question and keys:
// agents' payloads sealed through real tickets open, count and estimate;
// an altered payload, one moved from another task, a digest of another
// question and a key the server does not keep are refused or dropped, and
// nothing of them is counted.
#include "server/grpc/shuffled_batch_opener.h"

#include <stdlib.h>

#include <filesystem>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "proto/convert/report_convert.h"
#include "proto/sealing/sealed_report.h"
#include "server/grpc/shuffle_tickets.h"
#include "server/grpc/wire_question_cache.h"
#include "server/store/sqlite/sqlite_store.h"
#include "tests/server/core/test_studies.h"
#include "tests/testing/fake_clock.h"
#include "tests/testing/statistics.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using ::testing::HasSubstr;
using testing::StatusIs;

class ShuffledBatchOpenerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = ::testing::TempDir() + "ldp_opener_XXXXXX";
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    keys_ = *ShuffleKeyring::LoadOrCreate(dir_ + "/keys", clock_.Now());
    issuer_ = std::make_unique<ShuffleTicketIssuer>(*keys_);
    auto aggregator = Aggregator::Create(
        {.clock = &clock_, .analyst_token = "analyst-secret-0123456789"},
        *SqliteStore::Open({.path = dir_ + "/ldp.db"}));
    ASSERT_OK(aggregator);
    aggregator_ = *std::move(aggregator);
    StudySpec spec = testing::MakeStudy(10 * kNanosPerEpsilon,
                                        {testing::BucketHistogram("bucket")});
    spec.shuffle =
        ShuffleSpec{.target_epsilon = 1.0, .delta = 1e-6, .min_batch = 100};
    absl::StatusOr<StudyInfo> info = aggregator_->CreateStudy(spec);
    ASSERT_OK(info);
    study_ = info->study_id;
  }
  void TearDown() override {
    aggregator_.reset();
    std::filesystem::remove_all(dir_);
  }

  // An enrolled agent answers its task as ldp-agent does: the shuffle
  // params GetTasks would send, then the sealed report.
  v1::ShuffleSubmission Submit(int value) {
    const uint64_t agent = aggregator_->Enroll("")->agent_id;
    const TaskAssignment task = (*aggregator_->GetTasks(agent))[0];
    v1::Task wire;
    WireQuestionToProto(task, &wire);
    v1::ShuffleParams params =
        *issuer_->Issue(task, QuestionDigest(wire), agent);
    v1::ShuffleTicket ticket;
    EXPECT_TRUE(ticket.ParseFromString(params.ticket().ticket()));
    auto mechanism = *TaskMechanism::Create(task.MakeTask());
    TaskReport report{
        .payload = mechanism->Randomize(
            Record{.values = {{"bucket", int64_t{value}}}}, gen_)};
    for (uint8_t& byte : report.report_id) byte = static_cast<uint8_t>(gen_());
    v1::Report plain;
    ReportToProto(report, 0, &plain);
    plain.set_task_id(ticket.shuffled_task_id());
    v1::ShuffleSubmission submission;
    *submission.mutable_ticket() = params.ticket();
    *submission.mutable_sealed() = *SealReport(plain, params);
    header_.set_study_id(ticket.study_id());
    header_.set_round_id(ticket.round_id());
    header_.set_shuffled_task_id(ticket.shuffled_task_id());
    header_.set_key_id(ticket.key_id());
    header_.set_question_digest(ticket.question_digest());
    header_.set_batch_id(std::string(16, 'b'));
    return submission;
  }
  std::vector<v1::SealedPayload> Payloads(int n) {
    std::vector<v1::SealedPayload> payloads;
    for (int i = 0; i < n; ++i) payloads.push_back(Submit(i % 64).sealed());
    header_.set_num_reports(payloads.size());
    return payloads;
  }

  std::string dir_;
  FakeClock clock_;
  testing::SeededGenerator gen_{5};
  std::unique_ptr<ShuffleKeyring> keys_;
  std::unique_ptr<ShuffleTicketIssuer> issuer_;
  std::unique_ptr<Aggregator> aggregator_;
  uint64_t study_ = 0;
  v1::ShuffledBatchHeader header_;
};

TEST_F(ShuffledBatchOpenerTest, AgentsSealedPayloadsOpenAndCount) {
  std::vector<v1::SealedPayload> payloads = Payloads(120);
  absl::StatusOr<ShuffledBatch> batch =
      OpenShuffledBatch(*aggregator_, *keys_, header_, payloads);
  ASSERT_OK(batch);
  EXPECT_EQ(batch->reports.size(), 120u);
  EXPECT_EQ(batch->not_opened, 0);
  absl::StatusOr<ShuffledBatchOutcome> outcome =
      aggregator_->DeliverShuffledBatch(*std::move(batch));
  ASSERT_OK(outcome);
  EXPECT_EQ(outcome->accepted, 120);
}

TEST_F(ShuffledBatchOpenerTest, AlteredOrMovedPayloadsDoNotOpen) {
  std::vector<v1::SealedPayload> payloads = Payloads(3);
  payloads[0].mutable_ciphertext()->back() ^= 1;
  // A payload sealed for this question, replayed under a header naming
  // another shuffled task of the round: its aad differs.
  v1::ShuffledBatchHeader moved = header_;
  moved.set_shuffled_task_id(header_.shuffled_task_id() + 1);
  absl::StatusOr<ShuffledBatch> batch =
      OpenShuffledBatch(*aggregator_, *keys_, header_, payloads);
  ASSERT_OK(batch);
  EXPECT_EQ(batch->not_opened, 1);
  EXPECT_EQ(batch->reports.size(), 2u);
  EXPECT_THAT(batch->first_error, HasSubstr("does not open"));
  EXPECT_THAT(OpenShuffledBatch(*aggregator_, *keys_, moved, payloads),
              StatusIs(absl::StatusCode::kNotFound));
}

TEST_F(ShuffledBatchOpenerTest, RefusesAnotherQuestionOrKey) {
  std::vector<v1::SealedPayload> payloads = Payloads(2);
  v1::ShuffledBatchHeader digest = header_;
  digest.set_question_digest(std::string(32, 'x'));
  EXPECT_THAT(OpenShuffledBatch(*aggregator_, *keys_, digest, payloads),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("another question")));
  v1::ShuffledBatchHeader key = header_;
  key.set_key_id(std::string(8, 'k'));
  EXPECT_THAT(
      OpenShuffledBatch(*aggregator_, *keys_, key, payloads),
      StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("key")));
  v1::ShuffledBatchHeader short_id = header_;
  short_id.set_batch_id("short");
  EXPECT_THAT(OpenShuffledBatch(*aggregator_, *keys_, short_id, payloads),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST_F(ShuffledBatchOpenerTest, ARotatedOutKeyNoLongerOpens) {
  std::vector<v1::SealedPayload> payloads = Payloads(2);
  auto rotated = *ShuffleKeyring::Rotate(dir_ + "/keys", clock_.Now());
  ASSERT_OK(OpenShuffledBatch(*aggregator_, *rotated, header_, payloads));
  auto twice = *ShuffleKeyring::Rotate(dir_ + "/keys", clock_.Now());
  EXPECT_THAT(OpenShuffledBatch(*aggregator_, *twice, header_, payloads),
              StatusIs(absl::StatusCode::kFailedPrecondition));
}

}  // namespace
}  // namespace ldp
