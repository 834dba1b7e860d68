#include "server/program_driver.h"

#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planning/programs/threshold_learner.h"
#include "server/sqlite_store.h"
#include "tests/server/test_studies.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using ::ldp::testing::MeanQuestion;
using ::ldp::testing::StatusIs;
using ::testing::HasSubstr;

constexpr int64_t kEps = kNanosPerEpsilon;

// Keeps a program's questions in memory; the bytes name their index.
class QuestionCodec final : public StudySpecCodec {
 public:
  absl::StatusOr<StudySpec> Decode(std::string_view) const override {
    return absl::UnimplementedError("not needed here");
  }
  absl::StatusOr<std::string> EncodeQuestions(
      const std::vector<Question>& questions) const override {
    absl::MutexLock lock(&mutex_);
    asked_.push_back(questions);
    return absl::StrCat(asked_.size() - 1);
  }

 private:
  mutable absl::Mutex mutex_;
  mutable std::vector<std::vector<Question>> asked_ ABSL_GUARDED_BY(mutex_);
};

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
            .program = ProgramSpec{.name = "threshold_learner",
                                   .parameters = {{"mode", "adaptive"},
                                                  {"accuracy", "0.1"}}}};
  }
  // The study with its first round planned and added, as CreateStudy does.
  std::shared_ptr<StudyRuntime> Started() {
    auto study = Interactive(ThresholdStudy());
    absl::StatusOr<RoundPlan> plan = driver_->PlanFirstRound(*study);
    EXPECT_OK(plan);
    study->AddRound(std::make_shared<RoundRuntime>(
        RoundRow{.round_id = 1, .study_id = 1}, study->spec,
        *std::move(plan)));
    return study;
  }

  QuestionCodec codec_;
  AggregatorOptions options_{.spec_codec = &codec_};
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
  EXPECT_TRUE(study->LatestRound()->plan().decisions().from_program);
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
