#include "server/core/study_registry.h"

#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <string>

#include "common/tasks/task_id.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/store/sqlite/sqlite_store.h"
#include "tests/server/core/test_studies.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using ::ldp::testing::MakeStudy;
using ::ldp::testing::MeanQuestion;
using ::ldp::testing::StatusIs;
using ::testing::ElementsAre;

class StudyRegistryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = ::testing::TempDir() + "ldp_registry_XXXXXX";
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    auto store = SqliteStore::Open({.path = dir_ + "/ldp.db"});
    ASSERT_OK(store);
    store_ = *std::move(store);
    registry_ = std::make_unique<StudyRegistry>(*store_);
  }
  void TearDown() override {
    registry_.reset();
    store_.reset();
    std::filesystem::remove_all(dir_);
  }

  // A study with one open round, not registered yet.
  std::shared_ptr<StudyRuntime> MakeRuntime(uint64_t study_id,
                                            uint64_t round_id,
                                            std::string request_id = "") {
    auto study = std::make_shared<StudyRuntime>();
    study->study_id = study_id;
    study->request_id = std::move(request_id);
    study->spec = std::make_shared<const StudySpec>(
        MakeStudy(kNanosPerEpsilon, {MeanQuestion("mean", "x", -1, 1)}));
    study->AddRound(MakeRound(*study, round_id));
    return study;
  }
  static std::shared_ptr<RoundRuntime> MakeRound(const StudyRuntime& study,
                                                 uint64_t round_id) {
    absl::StatusOr<RoundPlan> plan = RoundPlan::Create(*study.spec);
    EXPECT_OK(plan);
    return std::make_shared<RoundRuntime>(
        RoundRow{.round_id = round_id, .study_id = study.study_id}, study.spec,
        *std::move(plan));
  }

  std::string dir_;
  std::unique_ptr<SqliteStore> store_;
  std::unique_ptr<StudyRegistry> registry_;
};

TEST_F(StudyRegistryTest, FindsARegisteredStudyWithItsRounds) {
  auto study = MakeRuntime(7, 3, "request-a");
  registry_->Register(study);
  EXPECT_EQ(registry_->FindStudy(7), study);
  const RoundEntry entry = registry_->FindRound(3);
  EXPECT_EQ(entry.study, study);
  EXPECT_EQ(entry.round, study->LatestRound());
  EXPECT_EQ(registry_->StudyForRequest("request-a"), 7u);
}

TEST_F(StudyRegistryTest, UnknownIdsFindNothing) {
  EXPECT_EQ(registry_->FindStudy(1), nullptr);
  EXPECT_EQ(registry_->FindRound(1).round, nullptr);
  EXPECT_EQ(registry_->StudyForRequest("never"), 0u);
}

// The follower and the job that stored a study may both register it; the
// copy registered first keeps counting reports.
TEST_F(StudyRegistryTest, TheFirstCopyOfAStudyStays) {
  auto first = MakeRuntime(5, 9);
  auto second = MakeRuntime(5, 9);
  registry_->Register(first);
  registry_->Register(second);
  EXPECT_EQ(registry_->FindStudy(5), first);
  EXPECT_EQ(registry_->FindRound(9).round, first->LatestRound());
}

TEST_F(StudyRegistryTest, ARoundIsRegisteredOnceAndJoinsItsStudy) {
  auto study = MakeRuntime(1, 1);
  registry_->Register(study);
  auto next = MakeRound(*study, 2);
  registry_->RegisterRound(study, next);
  registry_->RegisterRound(study, MakeRound(*study, 2));
  EXPECT_EQ(study->Rounds().size(), 2u);
  EXPECT_EQ(registry_->FindRound(2).round, next);
  EXPECT_EQ(registry_->FindRound(2).study, study);
}

TEST_F(StudyRegistryTest, PagesRunNewestFirst) {
  for (uint64_t id = 1; id <= 5; ++id) registry_->Register(MakeRuntime(id, id));
  const auto ids = [](const std::vector<std::shared_ptr<StudyRuntime>>& page) {
    std::vector<uint64_t> out;
    for (const auto& study : page) out.push_back(study->study_id);
    return out;
  };
  uint64_t next = 99;
  EXPECT_THAT(ids(registry_->Page(2, 0, next)), ElementsAre(5, 4));
  EXPECT_EQ(next, 3u);
  EXPECT_THAT(ids(registry_->Page(2, next, next)), ElementsAre(3, 2));
  EXPECT_EQ(next, 1u);
  EXPECT_THAT(ids(registry_->Page(2, next, next)), ElementsAre(1));
  EXPECT_EQ(next, 0u);
  EXPECT_EQ(registry_->AllStudies().size(), 5u);
}

TEST_F(StudyRegistryTest, IdsContinueAfterTheStoredOnes) {
  registry_->ContinueIdsAfter(41, 17);
  EXPECT_THAT(registry_->NextStudyId(), ::ldp::testing::IsOkAndHolds(42u));
  EXPECT_THAT(registry_->NextRoundId(), ::ldp::testing::IsOkAndHolds(18u));
}

TEST_F(StudyRegistryTest, RoundIdsStopAtTheTaskIdLimit) {
  registry_->ContinueIdsAfter(0, kMaxRoundId - 1);
  EXPECT_OK(registry_->NextRoundId());
  EXPECT_THAT(registry_->NextRoundId(),
              StatusIs(absl::StatusCode::kResourceExhausted));
}

}  // namespace
}  // namespace ldp
