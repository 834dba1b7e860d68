// RoundLifecycle over the core fixture (one noninteractive study, quorum 2):
// a round closes at its deadline on the injected clock, at quorum or when
// claimed, once, durably, and its noninteractive study closes with it.
#include "server/core/round_lifecycle.h"

#include <vector>

#include "gtest/gtest.h"
#include "tests/server/core/core_fixture.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using RoundLifecycleTest = ::ldp::testing::CoreTest;

TEST_F(RoundLifecycleTest, NothingClosesBeforeTheDeadline) {
  clock_.Advance(absl::Minutes(59));
  rounds_->CloseExpiredRounds();
  EXPECT_EQ(study_->LatestRound()->state(), RoundState::kOpen);
  EXPECT_EQ(study_->state.load(), StudyState::kActive);
}

TEST_F(RoundLifecycleTest, TheDeadlineClosesTheRoundAndStudyDurably) {
  clock_.Advance(absl::Hours(1));
  rounds_->CloseExpiredRounds();  // returns once the close is committed
  EXPECT_EQ(study_->LatestRound()->state(), RoundState::kClosedDeadline);
  EXPECT_EQ(study_->state.load(), StudyState::kClosed);

  Restart();
  ASSERT_OK(restorer_->Load(*follower_));
  const RoundEntry stored = studies_->FindRound(1);
  ASSERT_NE(stored.round, nullptr);
  EXPECT_EQ(stored.round->state(), RoundState::kClosedDeadline);
  EXPECT_EQ(stored.study->state.load(), StudyState::kClosed);
}

TEST_F(RoundLifecycleTest, AClaimedRoundClosesOnceInTheClaimedState) {
  const std::shared_ptr<RoundRuntime> round = study_->LatestRound();
  ASSERT_TRUE(round->ClaimClose());
  rounds_->QueueClose({.round = round, .study = study_},
                      RoundState::kClosedEarly);
  rounds_->Barrier();
  EXPECT_EQ(round->state(), RoundState::kClosedEarly);
  EXPECT_FALSE(round->ClaimClose());
  // A later deadline finds nothing left to close.
  clock_.Advance(absl::Hours(2));
  rounds_->CloseExpiredRounds();
  EXPECT_EQ(round->state(), RoundState::kClosedEarly);
}

TEST_F(RoundLifecycleTest, OneReportOfTwoIsNoQuorum) {
  ASSERT_NE(ReportOnce().task_id, 0u);
  const RoundEntry entry = studies_->FindRound(1);
  rounds_->CheckQuorum(entry);
  rounds_->Barrier();
  EXPECT_EQ(entry.round->state(), RoundState::kOpen);
  EXPECT_EQ(study_->state.load(), StudyState::kActive);
}

}  // namespace
}  // namespace ldp
