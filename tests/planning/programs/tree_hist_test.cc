// treehist: parameter checks, the schedule, the thresholded walk from
// hand-made answers, and planted heavy values found through the in-process
// simulator.
#include "planning/programs/tree_hist.h"

#include <cmath>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planning/program_simulator.h"
#include "planning/programs/program_registry.h"
#include "tests/planning/programs/heavy_hitter_checks.h"
#include "tests/testing/epsilon_nanos.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using ::ldp::testing::kEps;
using ::ldp::testing::PlantedBits;
using ::ldp::testing::StatusIs;
using ::testing::HasSubstr;

absl::StatusOr<std::unique_ptr<AnalystProgram>> CreateTreeHist(
    std::map<std::string, std::string> parameters) {
  return testing::CreateSearch("treehist", std::move(parameters));
}

TEST(TreeHistTest, RejectsBadParameters) {
  testing::ExpectRefused("treehist",
                         {
                             {{{"field", "n"}}, "bit-vector field \"n\""},
                             {{{"bits", "17"}}, "bits"},
                             {{{"k", "0"}}, "k"},
                             {{{"bits_per_level", "9"}}, "bits_per_level"},
                             {{{"threshold_sigmas", "-1"}}, "threshold_sigmas"},
                             {{{"max_candidates", "0"}}, "max_candidates"},
                             {{{"candidates", "8"}}, "candidates"},
                         });
}

// One bit per level by default: 16 levels and the recount on 17 disjoint
// slices, each at the whole cap.
TEST(TreeHistTest, ScheduleIsOneSlicePerLevelAndTheRecount) {
  auto program = CreateTreeHist({});
  ASSERT_OK(program);
  const std::vector<ScheduledRound> schedule = (*program)->Schedule();
  ASSERT_EQ(schedule.size(), 17u);
  EXPECT_EQ(schedule[0].name, "level bits 0-0");
  EXPECT_EQ(schedule[15].name, "level bits 15-15");
  EXPECT_EQ(schedule[16].name, "recount");
  for (int t = 0; t < 17; ++t) EXPECT_EQ(schedule[t].slice, EqualSlice(t, 17));
  EXPECT_OK(CheckSchedule(schedule, 4 * kEps));
  EXPECT_EQ(MaxScheduledSpend(schedule), 4 * kEps);
}

HistogramEstimate Flat(size_t items, double variance) {
  return {.frequencies = std::vector<double>(items, 0),
          .variances = std::vector<double>(items, variance)};
}

// A prefix survives when its estimate is ≥ 3 of its standard errors; when
// none does the largest survives alone; the recount ranks the leaves.
TEST(TreeHistTest, WalkKeepsSignificantPrefixesThenRecounts) {
  auto program = CreateTreeHist({{"bits_per_level", "8"}, {"k", "2"}});
  ASSERT_OK(program);
  ASSERT_OK((*program)->Next({}));
  HistogramEstimate h1 = Flat(257, 1e-4);  // standard error 0.01
  h1.frequencies[1 + 0xa7] = 0.3;
  h1.frequencies[1 + 0x13] = 0.02;  // 2 SE: dropped
  h1.frequencies[1 + 0xff] = 0.05;
  const RoundAnswers round1{.answers = {{.estimate = h1}}};
  absl::StatusOr<ProgramStep> second = (*program)->Next({round1});
  ASSERT_OK(second);
  ASSERT_TRUE(second->round.has_value());
  const auto& q2 =
      std::get<HistogramQuestion>(second->round->questions[0].kind);
  EXPECT_EQ(std::get<PrefixEncoding>(q2.encoding.spec()).candidates,
            (std::vector<std::vector<bool>>{PlantedBits(0xa7, 8),
                                            PlantedBits(0xff, 8)}));

  HistogramEstimate h2 = Flat(1 + 2 * 256, 1e-4);
  h2.frequencies[1 + 256 + 0x42] = 0.01;  // 1 SE, but the largest
  const RoundAnswers round2{.answers = {{.estimate = h2}}};
  absl::StatusOr<ProgramStep> third = (*program)->Next({round1, round2});
  ASSERT_OK(third);
  ASSERT_TRUE(third->round.has_value());
  const Question& recount = third->round->questions[0];
  EXPECT_EQ(recount.id, "recount");
  const auto& q3 = std::get<HistogramQuestion>(recount.kind);
  const auto& p3 = std::get<PrefixEncoding>(q3.encoding.spec());
  EXPECT_EQ(p3.candidates,
            std::vector<std::vector<bool>>{PlantedBits(0xff42, 16)});
  EXPECT_EQ(p3.extension_bits, 0u);
  EXPECT_EQ(q3.encoding.domain_size(), 2u);

  HistogramEstimate h3 = Flat(2, 4e-6);
  h3.frequencies = {0.9, 0.1};
  const RoundAnswers round3{.answers = {{.estimate = h3}}};
  absl::StatusOr<ProgramStep> done = (*program)->Next({round1, round2, round3});
  ASSERT_OK(done);
  EXPECT_FALSE(done->round.has_value());
  const std::vector<testing::FoundValue> found =
      testing::ReadFound(done->result);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].value, 0xff42u);
  EXPECT_EQ(found[0].share, 0.1);
  EXPECT_NEAR(found[0].se, 2e-3, 1e-9);

  const RoundAnswers wrong{.answers = {{.estimate = Flat(3, 1e-4)}}};
  EXPECT_THAT((*program)->Next({wrong}), StatusIs(absl::StatusCode::kInternal));
}

// Planted values with shares 24%, 16%, 10%, 5% over 45% uniform noise on
// 2^16 values; 170,000 agents at ε = 4, 10,000 per level.
//
// Why the bounds hold: a level's estimate of a share f has standard error
// at most √(f(1 − f)/10⁴ + (31 + e⁴)/((e⁴ − 1)²·10⁴)) ≤ 0.005 (sampling
// plus GRR over ≤ 33 items), so a planted prefix (≥ 5%) clears the 3 SE
// threshold by far at every level. The noise spreads 0.45/2^ℓ over each
// node of level ℓ: from level 5 on (32 nodes) that is ≤ 1.4%, 7 SE under
// the smallest planted prefix, so the planted prefixes are always inside
// the 16 kept. The recount's shares are 5 points apart, ≥ 7 SE of a
// difference: the ranking is the planted order, each share within 5 SE.
TEST(TreeHistTest, FindsPlantedValuesInOrder) {
  const std::vector<std::pair<uint32_t, double>> planted = {
      {0x3c5a, 0.24}, {0x3c81, 0.16}, {0x975a, 0.10}, {0xe081, 0.05}};
  const testing::PlantedPopulation population =
      testing::DrawPlanted(planted, 16, 170'000, 11);
  const StudySpec study{
      .schema = testing::SixteenBitSchema(),
      .epsilon_cap_nanos = 4 * kEps,
      .mode = StudyMode::kInteractive,
      .program = ProgramSpec{.name = "treehist", .parameters = {{"k", "4"}}}};
  std::mt19937_64 coins(5);
  absl::StatusOr<SimulationResult> run =
      SimulateStudy(study, 170'000, population.Records(), coins);
  ASSERT_OK(run);
  EXPECT_EQ(run->rounds.size(), 17u);
  EXPECT_LE(run->max_spent_nanos, study.epsilon_cap_nanos);
  const std::vector<testing::FoundValue> found =
      testing::ReadFound(run->result);
  ASSERT_EQ(found.size(), 4u);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(found[i].value, planted[i].first) << i;
    EXPECT_LE(std::abs(found[i].share - population.Share(found[i].value)),
              5 * found[i].se)
        << i;
  }
}

}  // namespace
}  // namespace ldp
