// sequence_fragments: parameter checks, the two-round schedule, the agent's
// fragment item against the server's hash, the empty outcome, and planted
// heavy values found through the in-process simulator.
#include "planning/programs/sequence_fragments.h"

#include <algorithm>
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

absl::StatusOr<std::unique_ptr<AnalystProgram>> CreateSfp(
    std::map<std::string, std::string> parameters) {
  return testing::CreateSearch("sequence_fragments", std::move(parameters));
}

TEST(SequenceFragmentsTest, RejectsBadParameters) {
  testing::ExpectRefused("sequence_fragments",
                         {
                             {{{"field", "n"}}, "bit-vector field \"n\""},
                             {{{"bits", "0"}}, "bits"},
                             {{{"fragment_bits", "13"}}, "fragment_bits"},
                             {{{"hash_bits", "13"}}, "hash_bits"},
                             {{{"hash_bits", "12"}, {"fragment_bits", "12"}},
                              "lower hash_bits or fragment_bits"},
                             {{{"fragments", "0"}}, "fragments"},
                             {{{"max_candidates", "0"}}, "max_candidates"},
                             {{{"hash_seed", "-1"}}, "hash_seed"},
                         });
}

// P = 2 fragments: round 1 on the first 2/3 of the agents (one question per
// fragment), round 2 on the last third, both at the whole cap.
TEST(SequenceFragmentsTest, ScheduleIsFragmentsThenWords) {
  auto program = CreateSfp({});
  ASSERT_OK(program);
  const std::vector<ScheduledRound> schedule = (*program)->Schedule();
  ASSERT_EQ(schedule.size(), 2u);
  EXPECT_EQ(schedule[0].name, "fragments");
  EXPECT_DOUBLE_EQ(schedule[0].slice.end, 2.0 / 3);
  EXPECT_EQ(schedule[1].slice.begin, schedule[0].slice.end);
  EXPECT_EQ(schedule[1].slice.end, 1);
  EXPECT_OK(CheckSchedule(schedule, 4 * kEps));
  EXPECT_EQ(MaxScheduledSpend(schedule), 4 * kEps);
}

// What an agent evaluates from the question alone is the server's hash of
// its value followed by the fragment's bits.
TEST(SequenceFragmentsTest, AgentItemIsTheServersHashAndTheFragment) {
  auto program = CreateSfp({{"hash_bits", "5"}, {"fragment_bits", "6"}});
  ASSERT_OK(program);
  absl::StatusOr<ProgramStep> first = (*program)->Next({});
  ASSERT_OK(first);
  ASSERT_TRUE(first->round.has_value());
  ASSERT_EQ(first->round->questions.size(), 3u);  // widths 6, 5, 5
  const std::vector<int> begin = {0, 6, 11}, width = {6, 5, 5};
  std::mt19937_64 gen(3);
  std::vector<uint32_t> hashes;
  for (int trial = 0; trial < 50; ++trial) {
    const uint32_t v = gen() & 0xffff;
    Record r;
    r.values["value"] = PlantedBits(v, 16);
    const uint32_t hash = FragmentHash(PlantedBits(v, 16), 16, 5, 1);
    ASSERT_LT(hash, 32u);
    hashes.push_back(hash);
    for (int t = 0; t < 3; ++t) {
      const auto& q =
          std::get<HistogramQuestion>(first->round->questions[t].kind);
      ASSERT_EQ(q.encoding.domain_size(), 1u << (5 + width[t]));
      const uint32_t piece =
          (v >> (16 - begin[t] - width[t])) & ((1u << width[t]) - 1);
      EXPECT_EQ(q.encoding.Encode(r), (hash << width[t]) + piece) << v;
    }
  }
  // The hash is not constant (a broken mask would make it so).
  std::sort(hashes.begin(), hashes.end());
  EXPECT_GT(std::unique(hashes.begin(), hashes.end()) - hashes.begin(), 10);
}

// No significant fragment: no candidate, the study ends after round 1.
TEST(SequenceFragmentsTest, NoSignificantFragmentEndsEmpty) {
  auto program = CreateSfp({{"hash_bits", "4"}});
  ASSERT_OK(program);
  const HistogramEstimate flat{.frequencies = std::vector<double>(4096, 0.001),
                               .variances = std::vector<double>(4096, 1e-4)};
  const RoundAnswers round1{
      .answers = {{.estimate = flat}, {.estimate = flat}}};
  absl::StatusOr<ProgramStep> step = (*program)->Next({round1});
  ASSERT_OK(step);
  EXPECT_FALSE(step->round.has_value());
  EXPECT_THAT(step->result.summary, HasSubstr("none found"));
  EXPECT_TRUE(step->result.values.empty());
  const RoundAnswers short_round{.answers = {{.estimate = flat}}};
  EXPECT_THAT((*program)->Next({short_round}),
              StatusIs(absl::StatusCode::kInternal));
}

// Planted values 24%, 16%, 10%, 5% over 45% uniform noise on 2^16 values;
// 90,000 agents at ε = 4: 30,000 per fragment question (N = 2^12 items:
// a 4-bit hash and 8-bit fragments) and 30,000 for the words.
//
// Why the bounds hold: a fragment estimate's standard error is about
// √(f(1 − f)/n + 4e⁴/((e⁴ − 1)²·n)) ≤ 0.0033 at n = 30,000, so every
// planted (hash, fragment) pair (≥ 5%) clears 3 SE by far and is among the
// 16 kept; noise pairs hold 0.45/2^12 ≈ 0.01% each. A noise pair passes
// 3 SE with probability ≈ 0.0013, ≈ 5 per position, and a stitch of noise
// survives only if it shares a hash at both positions and its own hash
// agrees (1 in 16): the candidates are the planted values and rarely
// more, far fewer than the 16 hash-blind cross products of the planted
// bytes (0x3c, 0x97, 0xe0 by 0x5a, 0x81 give only 6 here, so the bound is
// 6 + a few). The words round ranks them as in the tree test (shares 5
// points apart, SE ≤ 0.003).
TEST(SequenceFragmentsTest, FindsPlantedValuesInOrder) {
  const std::vector<std::pair<uint32_t, double>> planted = {
      {0x3c5a, 0.24}, {0x3c81, 0.16}, {0x975a, 0.10}, {0xe081, 0.05}};
  const testing::PlantedPopulation population =
      testing::DrawPlanted(planted, 16, 90'000, 12);
  const StudySpec study{
      .schema = testing::SixteenBitSchema(),
      .epsilon_cap_nanos = 4 * kEps,
      .mode = StudyMode::kInteractive,
      .program = ProgramSpec{.name = "sequence_fragments",
                             .parameters = {{"k", "4"}, {"hash_bits", "4"}}}};
  std::mt19937_64 coins(6);
  absl::StatusOr<SimulationResult> run =
      SimulateStudy(study, 90'000, population.Records(), coins);
  ASSERT_OK(run);
  ASSERT_EQ(run->rounds.size(), 2u);
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
  // The stitched candidates the words round asked about.
  auto program = CreateAnalystProgram(
      *study.program, ProgramContext{.schema = testing::SixteenBitSchema(),
                                     .epsilon_cap_nanos = 4 * kEps});
  ASSERT_OK(program);
  absl::StatusOr<ProgramStep> words =
      (*program)->Next({run->rounds[0].answers});
  ASSERT_OK(words);
  ASSERT_TRUE(words->round.has_value());
  const auto& candidates =
      std::get<PrefixEncoding>(
          std::get<HistogramQuestion>(words->round->questions[0].kind)
              .encoding.spec())
          .candidates;
  for (const auto& [value, share] : planted) {
    EXPECT_THAT(candidates, ::testing::Contains(PlantedBits(value, 16)));
  }
  EXPECT_LE(candidates.size(), 10u);
}

}  // namespace
}  // namespace ldp
