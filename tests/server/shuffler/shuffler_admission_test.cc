// Who the shuffler admits: tickets signed by the server's key only, before
// their deadline, well-formed payloads, and one report per agent and batch
// key (an identical retry is OK, another report is ALREADY_EXISTS).
#include <memory>
#include <vector>

#include "gtest/gtest.h"
#include "server/shuffler/core/shuffler.h"
#include "tests/server/shuffler/shuffler_test_support.h"
#include "tests/testing/sqlite_query.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using ::ldp::shuffler_testing::ShufflerFixture;
using ::ldp::shuffler_testing::TicketFactory;
using ::ldp::testing::StatusIs;
using ::testing::HasSubstr;

class ShufflerAdmissionTest : public ShufflerFixture {
 protected:
  ShufflerAdmissionTest() : ShufflerFixture(/*seed=*/20240601) {}

  absl::Status SubmitOne(const v1::ShuffleSubmission& submission) {
    std::vector<absl::Status> statuses = shuffler_->Submit({submission});
    EXPECT_EQ(statuses.size(), 1u);
    return statuses.empty() ? absl::InternalError("no ack") : statuses[0];
  }
};

TEST_F(ShufflerAdmissionTest, AcceptsATicketSignedByTheServersKey) {
  EXPECT_OK(SubmitOne(tickets_.Submission(1)));
  EXPECT_EQ(shuffler_->Stats().pending_reports, 1u);
  EXPECT_EQ(shuffler_->Stats().submissions[0], 1u);
}

TEST_F(ShufflerAdmissionTest, RefusesATicketSignedByAnotherKey) {
  const TicketFactory impostor(&clock_);
  EXPECT_THAT(SubmitOne(impostor.Submission(1)),
              StatusIs(absl::StatusCode::kUnauthenticated));
  v1::ShuffleSubmission altered = tickets_.Submission(2);
  altered.mutable_ticket()->mutable_ticket()->back() ^= 1;
  EXPECT_THAT(SubmitOne(altered), StatusIs(absl::StatusCode::kUnauthenticated));
  EXPECT_EQ(shuffler_->Stats().pending_reports, 0u);
  EXPECT_EQ(
      shuffler_->Stats()
          .submissions[static_cast<int>(absl::StatusCode::kUnauthenticated)],
      2u);
}

TEST_F(ShufflerAdmissionTest, RefusesAMalformedPayload) {
  v1::ShuffleSubmission short_enc = tickets_.Submission(1);
  short_enc.mutable_sealed()->mutable_enc()->pop_back();
  EXPECT_THAT(SubmitOne(short_enc), StatusIs(absl::StatusCode::kInvalidArgument,
                                             HasSubstr("sealed.enc")));
  v1::ShuffleSubmission short_ciphertext = tickets_.Submission(2);
  short_ciphertext.mutable_sealed()->set_ciphertext(std::string(15, 'c'));
  EXPECT_THAT(
      SubmitOne(short_ciphertext),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("ciphertext")));
  EXPECT_THAT(SubmitOne(v1::ShuffleSubmission()),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST_F(ShufflerAdmissionTest, RefusesATicketPastItsDeadline) {
  const v1::ShuffleSubmission submission = tickets_.Submission(1);
  clock_.Advance(absl::Hours(1));
  EXPECT_THAT(
      SubmitOne(submission),
      StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("deadline")));
}

TEST_F(ShufflerAdmissionTest, IdenticalRetryIsOkAndStoredOnce) {
  const v1::ShuffleSubmission submission = tickets_.Submission(1);
  EXPECT_OK(SubmitOne(submission));
  EXPECT_OK(SubmitOne(submission));
  // Also twice in one call, which commits in one transaction.
  std::vector<absl::Status> both = shuffler_->Submit({submission, submission});
  EXPECT_OK(both[0]);
  EXPECT_OK(both[1]);
  EXPECT_EQ(shuffler_->Stats().pending_reports, 1u);
}

TEST_F(ShufflerAdmissionTest, SecondDifferentReportIsAlreadyExists) {
  EXPECT_OK(SubmitOne(tickets_.Submission(1, 11, 5, "first")));
  EXPECT_THAT(SubmitOne(tickets_.Submission(1, 11, 5, "second")),
              StatusIs(absl::StatusCode::kAlreadyExists));
  // The same agent for another task is another batch key.
  EXPECT_OK(SubmitOne(tickets_.Submission(1, 12, 5, "second")));
  EXPECT_EQ(shuffler_->Stats().pending_reports, 2u);
}

TEST_F(ShufflerAdmissionTest, AnswersEachSubmissionOfACallInOrder) {
  const TicketFactory impostor(&clock_);
  std::vector<absl::Status> acks = shuffler_->Submit(
      {tickets_.Submission(1), impostor.Submission(2), tickets_.Submission(3),
       tickets_.Submission(1, 11, 5, "other")});
  ASSERT_EQ(acks.size(), 4u);
  EXPECT_OK(acks[0]);
  EXPECT_THAT(acks[1], StatusIs(absl::StatusCode::kUnauthenticated));
  EXPECT_OK(acks[2]);
  EXPECT_THAT(acks[3], StatusIs(absl::StatusCode::kAlreadyExists));
}

TEST_F(ShufflerAdmissionTest, ConcurrentCallsAreAllDurable) {
  std::vector<std::thread> threads;
  std::vector<std::vector<absl::Status>> acks(4);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      std::vector<v1::ShuffleSubmission> batch;
      for (int i = 0; i < 25; ++i) {
        batch.push_back(tickets_.Submission(1 + t * 100 + i, 11, 1000));
      }
      acks[t] = shuffler_->Submit(batch);
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (const auto& call : acks) {
    for (const absl::Status& ack : call) EXPECT_OK(ack);
  }
  EXPECT_EQ(shuffler_->Stats().pending_reports, 100u);
  EXPECT_EQ(testing::QuerySqliteInt(dir_.path() + "/shuffler.db",
                                    "SELECT count(*) FROM pending"),
            100);
}

TEST(ShufflerConfigTest, RefusesImpossibleSettings) {
  ShufflerConfig config;
  config.db_path = "x.db";
  config.ticket_public_key = std::string(32, 'k');
  EXPECT_OK(ValidateShufflerConfig(config));
  ShufflerConfig bad = config;
  bad.ticket_public_key = "short";
  EXPECT_THAT(ValidateShufflerConfig(bad),
              StatusIs(absl::StatusCode::kInvalidArgument));
  bad = config;
  bad.extra_max_fraction = -0.1;
  EXPECT_THAT(ValidateShufflerConfig(bad),
              StatusIs(absl::StatusCode::kInvalidArgument));
  bad = config;
  bad.min_batch_floor = 0;
  EXPECT_THAT(ValidateShufflerConfig(bad),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

}  // namespace
}  // namespace ldp
