#include "server/core/program_driver.h"

#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planning/programs/threshold_learner.h"
#include "server/store/sqlite/sqlite_store.h"
#include "server/store/study_codec.h"
#include "tests/server/core/test_studies.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using ::ldp::testing::MeanQuestion;
using ::ldp::testing::StatusIs;
using ::testing::HasSubstr;

constexpr int64_t kEps = kNanosPerEpsilon;

class ProgramDriverTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = ::testing::TempDir() + "ldp_programs_XXXXXX";
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    auto store = SqliteStore::Open({.path = dir_ + "/ldp.db"});
    ASSERT_OK(store);
    store_ = *std::move(store);
    studies_ = std::make_unique<StudyRegistry>(*store_);
    driver_ = std::make_unique<ProgramDriver>(options_, *studies_);
  }
  void TearDown() override {
    driver_.reset();
    studies_.reset();
    store_.reset();
    std::filesystem::remove_all(dir_);
  }

  static std::shared_ptr<StudyRuntime> Interactive(StudySpec spec) {
    auto study = std::make_shared<StudyRuntime>();
    study->study_id = 1;
    study->spec = std::make_shared<const StudySpec>(std::move(spec));
    return study;
  }
  static StudySpec ThresholdStudy() {
    return {.schema = *ThresholdSchema(64),
            .epsilon_cap_nanos = kEps,
            .mode = StudyMode::kInteractive,
            .program = ProgramSpec{
                .name = "threshold_learner",
                .parameters = {{"mode", "adaptive"}, {"accuracy", "0.1"}}}};
  }
  // The study with its first round planned and added, as CreateStudy does.
  std::shared_ptr<StudyRuntime> Started(StudySpec spec = ThresholdStudy()) {
    auto study = Interactive(std::move(spec));
    absl::StatusOr<RoundPlan> plan = driver_->PlanFirstRound(*study);
    EXPECT_OK(plan);
    study->AddRound(std::make_shared<RoundRuntime>(
        RoundRow{.round_id = 1, .study_id = 1}, study->spec, *std::move(plan)));
    return study;
  }

  AggregatorOptions options_{};
  std::string dir_;
  std::unique_ptr<SqliteStore> store_;
  std::unique_ptr<StudyRegistry> studies_;
  std::unique_ptr<ProgramDriver> driver_;
};

TEST_F(ProgramDriverTest, AnInteractiveStudyNeedsAProgramAndNoQuestions) {
  StudySpec no_program = ThresholdStudy();
  no_program.program.reset();
  EXPECT_THAT(driver_->PlanFirstRound(*Interactive(no_program)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("threshold_learner")));
  StudySpec with_questions = ThresholdStudy();
  with_questions.schema = testing::TestSchema();
  with_questions.questions = {MeanQuestion("mean", "x", -1, 1)};
  EXPECT_THAT(driver_->PlanFirstRound(*Interactive(with_questions)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("leave `questions` empty")));
  StudySpec no_cap = ThresholdStudy();
  no_cap.epsilon_cap_nanos = 0;
  EXPECT_THAT(driver_->PlanFirstRound(*Interactive(no_cap)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("epsilon_cap_nanos")));
}

TEST_F(ProgramDriverTest, TheFirstRoundIsTheProgramsAndItsResultIsOpen) {
  auto study = Started();
  ASSERT_NE(study->program, nullptr);
  EXPECT_FALSE(study->schedule.empty());
  bool done = true;
  EXPECT_TRUE(study->Result(&done).has_value());
  EXPECT_FALSE(done);
  const PlanDecisions& decisions = study->LatestRound()->plan().decisions();
  EXPECT_TRUE(decisions.from_program);
  // The round keeps the program's questions in the stored form a restart
  // reads back (study_codec.h).
  absl::StatusOr<std::vector<Question>> asked =
      DecodeQuestions(decisions.questions_bytes, study->spec->schema);
  ASSERT_OK(asked);
  const RoundPlan& plan = study->LatestRound()->plan();
  ASSERT_EQ(asked->size(), plan.questions().size());
  for (size_t q = 0; q < asked->size(); ++q) {
    EXPECT_EQ((*asked)[q].id, plan.questions()[q].question_id);
  }
  EXPECT_EQ(AnswersOf(*study->LatestRound(), 0.95).answers.size(),
            static_cast<size_t>(study->LatestRound()->num_questions()));
}

TEST_F(ProgramDriverTest, TheNextRoundTakesTheRegistrysNextId) {
  auto study = Started();
  studies_->ContinueIdsAfter(0, 40);
  study->LatestRound()->set_state(RoundState::kClosedDeadline);
  const absl::Time now = absl::FromUnixSeconds(1000);
  absl::StatusOr<std::shared_ptr<RoundRuntime>> next =
      driver_->PlanNextRound(*study, now);
  ASSERT_OK(next);
  if (*next == nullptr) GTEST_SKIP() << "the program finished after one round";
  EXPECT_EQ((*next)->round_id(), 41u);
  EXPECT_EQ((*next)->start_time(), now);
  EXPECT_EQ((*next)->deadline(), now + study->spec->round_duration);
  EXPECT_EQ(study->Rounds().size(), 1u);  // not added: the caller stores it
}

TEST_F(ProgramDriverTest, NoRoundStartsAtOrAfterTheStudysDeadline) {
  StudySpec spec = ThresholdStudy();
  spec.deadline = absl::FromUnixSeconds(1000);
  auto study = Started(std::move(spec));
  study->LatestRound()->set_state(RoundState::kClosedDeadline);
  absl::StatusOr<std::shared_ptr<RoundRuntime>> at_deadline =
      driver_->PlanNextRound(*study, absl::FromUnixSeconds(1000));
  ASSERT_OK(at_deadline);
  EXPECT_EQ(*at_deadline, nullptr);
  bool done = false;
  EXPECT_TRUE(study->Result(&done).has_value());
  EXPECT_TRUE(done);
  // A second before it, the same program asks its next round.
  absl::StatusOr<std::shared_ptr<RoundRuntime>> before =
      driver_->PlanNextRound(*study, absl::FromUnixSeconds(999));
  ASSERT_OK(before);
  EXPECT_NE(*before, nullptr);
}

// A crash between a round's close and the next round leaves an active study
// whose latest round is closed: the caller must close it again.
TEST_F(ProgramDriverTest, ResumeHandsBackAClosedRoundOfAnActiveStudy) {
  auto study = Started();
  EXPECT_EQ(driver_->Resume(*study), nullptr);
  study->LatestRound()->set_state(RoundState::kClosedQuorum);
  EXPECT_EQ(driver_->Resume(*study), study->LatestRound());
  study->state = StudyState::kClosed;
  EXPECT_EQ(driver_->Resume(*study), nullptr);
}

TEST_F(ProgramDriverTest, AFailedProgramSaysWhy) {
  EXPECT_EQ(FailedProgramResult(absl::InternalError("bad shape")).summary,
            "the analyst program failed: bad shape");
}

}  // namespace
}  // namespace ldp
