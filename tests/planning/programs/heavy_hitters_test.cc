// heavy_hitters: parameter checks, the budget schedule, the prefix rounds it
// asks from hand-made answers, and a small Zipf population run through the
// in-process simulator.
#include "planning/programs/heavy_hitters.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planning/program_simulator.h"
#include "planning/programs/program_registry.h"
#include "tests/testing/epsilon_nanos.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using ::ldp::testing::StatusIs;
using ::testing::HasSubstr;

using ::ldp::testing::kEps;

RecordSchema Schema(uint32_t bits = 16) {
  return *RecordSchema::Create(
      {FieldSpec::BitVector("value", bits), FieldSpec::Int("n", 0, 3)});
}

ProgramContext HeavyHittersContext(uint32_t bits = 16, int64_t cap = 4 * kEps) {
  return ProgramContext{.schema = Schema(bits), .epsilon_cap_nanos = cap};
}

absl::StatusOr<std::unique_ptr<AnalystProgram>> Create(
    std::map<std::string, std::string> parameters,
    const ProgramContext& context = HeavyHittersContext()) {
  return CreateAnalystProgram(
      ProgramSpec{.name = "heavy_hitters", .parameters = std::move(parameters)},
      context);
}

// `v`'s low `bits` bits, most significant first.
std::vector<bool> BitsOf(uint64_t v, int bits) {
  std::vector<bool> out(bits);
  for (int j = 0; j < bits; ++j) out[j] = (v >> (bits - 1 - j)) & 1;
  return out;
}

TEST(HeavyHittersTest, RejectsBadParameters) {
  const std::vector<std::pair<std::map<std::string, std::string>, std::string>>
      cases = {
          {{{"field", "n"}}, "bit-vector field \"n\""},
          {{{"field", "missing"}}, "bit-vector field \"missing\""},
          {{{"bits", "0"}}, "bits"},
          {{{"bits", "17"}}, "bits"},
          {{{"k", "0"}}, "k"},
          {{{"k", "5"}, {"candidates", "4"}}, "candidates"},
          {{{"bits_per_round", "0"}}, "bits_per_round"},
          {{{"bits_per_round", "21"}}, "bits_per_round"},
          {{{"candidates", "65536"}, {"bits_per_round", "16"}, {"bits", "32"}},
           "lower bits_per_round or candidates"},
          {{{"bit", "8"}}, "bit"},
      };
  for (const auto& [parameters, message] : cases) {
    const ProgramContext context = HeavyHittersContext(
        parameters.contains("bits") && parameters.at("bits") == "32" ? 32 : 16);
    absl::StatusOr<std::unique_ptr<AnalystProgram>> program =
        Create(parameters, context);
    EXPECT_THAT(program, StatusIs(absl::StatusCode::kInvalidArgument))
        << message;
    EXPECT_THAT(program.status().message(), HasSubstr(message));
  }
}

// ⌈bits / s⌉ rounds on disjoint slices, each at the whole cap, with the
// bits split as evenly as possible.
TEST(HeavyHittersTest, ScheduleIsSampleSplittingWithinTheCap) {
  const ProgramContext context = HeavyHittersContext(32);
  for (const auto& [s, names] :
       std::vector<std::pair<std::string, std::vector<std::string>>>{
           {"8", {"bits 0-7", "bits 8-15", "bits 16-23", "bits 24-31"}},
           {"10", {"bits 0-7", "bits 8-15", "bits 16-23", "bits 24-31"}},
           {"12", {"bits 0-10", "bits 11-21", "bits 22-31"}},
           {"20", {"bits 0-15", "bits 16-31"}},
       }) {
    auto program = Create({{"bits_per_round", s}}, context);
    ASSERT_OK(program);
    const std::vector<ScheduledRound> schedule = (*program)->Schedule();
    ASSERT_EQ(schedule.size(), names.size()) << s;
    for (size_t t = 0; t < schedule.size(); ++t) {
      EXPECT_EQ(schedule[t].name, names[t]);
      EXPECT_EQ(schedule[t].slice, EqualSlice(static_cast<int>(t),
                                              static_cast<int>(names.size())));
    }
    EXPECT_OK(CheckSchedule(schedule, context.epsilon_cap_nanos));
    EXPECT_EQ(MaxScheduledSpend(schedule), context.epsilon_cap_nanos);
  }
}

// Round 1 asks for the first s bits from one empty candidate; round 2
// extends the `candidates` most frequent prefixes (item 0, "no candidate",
// never survives); the result reads the last round.
TEST(HeavyHittersTest, PrefixRoundsFollowTheAnswers) {
  auto program =
      Create({{"bits_per_round", "8"}, {"k", "2"}, {"candidates", "3"}});
  ASSERT_OK(program);
  absl::StatusOr<ProgramStep> first = (*program)->Next({});
  ASSERT_OK(first);
  ASSERT_TRUE(first->round.has_value());
  const auto& q1 = std::get<HistogramQuestion>(first->round->questions[0].kind);
  const auto& p1 = std::get<PrefixEncoding>(q1.encoding.spec());
  EXPECT_EQ(p1.prefix_bits, 8u);
  EXPECT_EQ(p1.extension_bits, 8u);
  EXPECT_EQ(p1.candidates, std::vector<std::vector<bool>>{{}});
  EXPECT_EQ(q1.encoding.domain_size(), 257u);
  EXPECT_EQ(first->round->questions[0].epsilon_nanos, 4 * kEps);

  // Prefixes 0xa7 > 0x13 > 0xff by estimate; item 0 is larger still.
  HistogramEstimate h1{.frequencies = std::vector<double>(257, 0.001),
                       .variances = std::vector<double>(257, 1e-6)};
  h1.frequencies[0] = 0.9;
  h1.frequencies[1 + 0xa7] = 0.3;
  h1.frequencies[1 + 0x13] = 0.2;
  h1.frequencies[1 + 0xff] = 0.1;
  const RoundAnswers round1{
      .answers = {{.question_id = "prefix_8", .estimate = h1}}};
  absl::StatusOr<ProgramStep> second = (*program)->Next({round1});
  ASSERT_OK(second);
  ASSERT_TRUE(second->round.has_value());
  const auto& q2 =
      std::get<HistogramQuestion>(second->round->questions[0].kind);
  const auto& p2 = std::get<PrefixEncoding>(q2.encoding.spec());
  EXPECT_EQ(p2.prefix_bits, 16u);
  EXPECT_EQ(p2.extension_bits, 8u);
  EXPECT_EQ(p2.candidates,
            (std::vector<std::vector<bool>>{BitsOf(0xa7, 8), BitsOf(0x13, 8),
                                            BitsOf(0xff, 8)}));
  ASSERT_EQ(q2.encoding.domain_size(), 1u + 3 * 256);
  // A record 0x13c4 is candidate 1 extended by 0xc4.
  Record r;
  r.values["value"] = BitsOf(0x13c4, 16);
  EXPECT_EQ(q2.encoding.Encode(r), 1u + 256 + 0xc4);
  EXPECT_EQ(q2.encoding.Describe(1 + 256 + 0xc4),
            "value[0:16]=0001001111000100");

  HistogramEstimate h2{.frequencies = std::vector<double>(1 + 3 * 256, 0),
                       .variances = std::vector<double>(1 + 3 * 256, 1e-6)};
  h2.frequencies[1 + 256 + 0xc4] = 0.25;  // 0x13c4
  h2.frequencies[1 + 0x01] = 0.125;       // 0xa701
  h2.variances[1 + 0x01] = 4e-6;
  const RoundAnswers round2{
      .answers = {{.question_id = "prefix_16", .estimate = h2}}};
  absl::StatusOr<ProgramStep> done = (*program)->Next({round1, round2});
  ASSERT_OK(done);
  EXPECT_FALSE(done->round.has_value());
  const std::vector<ProgramValue>& values = done->result.values;
  ASSERT_EQ(values.size(), 4u);
  EXPECT_EQ(values[0].name, "top[0].count_fraction");
  EXPECT_EQ(values[0].value, 0.25);
  EXPECT_EQ(values[1].name, "top[0].value");
  EXPECT_EQ(values[1].value, 0x13c4);
  EXPECT_EQ(values[2].value, 0.125);
  EXPECT_EQ(values[3].value, 0xa701);
  // 95% normal interval: ± 1.96 · √(4e-6).
  ASSERT_TRUE(values[2].interval.has_value());
  EXPECT_NEAR(values[2].interval->upper - 0.125, 1.959964 * 2e-3, 1e-6);
  EXPECT_THAT(done->result.summary, HasSubstr("0x13c4 0.25000"));
  EXPECT_THAT(done->result.summary, HasSubstr("0xa701 0.12500"));

  // An answer of the wrong size fails the round, not the process.
  const RoundAnswers wrong{.answers = {{.question_id = "prefix_8",
                                        .estimate = HistogramEstimate{}}}};
  EXPECT_THAT((*program)->Next({wrong}), StatusIs(absl::StatusCode::kInternal));
}

// Zipf(1.1) over all 2^16 values (ranks mapped to values by a bijection so
// heavy values are not small numbers), 2·10^5 agents, ε = 4, two rounds of
// 8 bits on 10^5 agents each.
//
// Why the bounds hold: with H = Σ_{r ≤ 2^16} r^−1.1 ≈ 7.3, the shares are
// 13.7%, 6.4%, 4.1%, 3.0%, 2.3% for ranks 1–5 and ≤ 1.9% from rank 6 on.
// Each estimate's standard error at n = 10^5, ε = 4 is about
// √(4e^ε/(e^ε − 1)^2 / n + f(1 − f)/n) ≈ 10^−3, so ranks 1–4 beat every
// value of rank ≥ 6 by ≥ 1.1 points ≈ 8 SE of a difference: all four must
// be found, and at most the 5th can swap with the 6th (≈ 3 SE apart). In
// round 1, a rank ≤ 5 value's 8-bit prefix holds ≥ 2.3% against ≈ 0.2% of
// spread-out tail mass in a typical prefix, far inside the top 20 of 256.
// Every reported share lies within 5 of its own SE of the truth.
TEST(HeavyHittersTest, RecoversTheTopOfAZipfPopulation) {
  constexpr int kBits = 16;
  constexpr int64_t kAgents = 200'000;
  constexpr uint32_t kValues = 1u << kBits;
  std::vector<double> cdf(kValues);
  double total = 0;
  for (uint32_t r = 0; r < kValues; ++r) {
    total += std::pow(r + 1.0, -1.1);
    cdf[r] = total;
  }
  // rank → value: an odd multiplier and an xor are bijections mod 2^16.
  const auto value_of = [](uint32_t rank) {
    return ((rank * 40503u) ^ 0x5a5au) & 0xffffu;
  };
  std::mt19937_64 population_gen(2024);
  std::uniform_real_distribution<double> uniform(0, total);
  std::vector<uint32_t> values(kAgents + 1);
  std::vector<int64_t> counts(kValues, 0);
  for (int64_t a = 1; a <= kAgents; ++a) {
    const uint32_t rank = static_cast<uint32_t>(
        std::upper_bound(cdf.begin(), cdf.end(), uniform(population_gen)) -
        cdf.begin());
    values[a] = value_of(std::min(rank, kValues - 1));
    ++counts[values[a]];
  }
  const RecordSource records = [&values](uint64_t agent) {
    Record r;
    r.values["value"] = BitsOf(values[agent], kBits);
    return r;
  };
  const StudySpec study{
      .schema = Schema(kBits),
      .epsilon_cap_nanos = 4 * kEps,
      .mode = StudyMode::kInteractive,
      .program = ProgramSpec{
          .name = "heavy_hitters",
          .parameters = {
              {"k", "5"}, {"bits_per_round", "8"}, {"candidates", "20"}}}};
  std::mt19937_64 coins(7);
  absl::StatusOr<SimulationResult> run =
      SimulateStudy(study, kAgents, records, coins);
  ASSERT_OK(run);
  EXPECT_EQ(run->rounds.size(), 2u);
  EXPECT_LE(run->max_spent_nanos, study.epsilon_cap_nanos);
  EXPECT_EQ(run->refused_over_cap, 0);

  std::vector<uint32_t> found;
  for (int i = 0; i < 5; ++i) {
    const std::string name = absl::StrCat("top[", i, "]");
    const ProgramValue* share = nullptr;
    const ProgramValue* value = nullptr;
    for (const ProgramValue& v : run->result.values) {
      if (v.name == name + ".count_fraction") share = &v;
      if (v.name == name + ".value") value = &v;
    }
    ASSERT_NE(share, nullptr);
    ASSERT_NE(value, nullptr);
    ASSERT_TRUE(share->interval.has_value());
    const auto v = static_cast<uint32_t>(value->value);
    found.push_back(v);
    const double truth = static_cast<double>(counts[v]) / kAgents;
    // The 95% interval's half-width is 1.96 SE.
    const double se =
        (share->interval->upper - share->interval->lower) / (2 * 1.959964);
    EXPECT_LE(std::abs(share->value - truth), 5 * se) << name;
  }
  for (uint32_t rank = 0; rank < 4; ++rank) {
    EXPECT_THAT(found, ::testing::Contains(value_of(rank))) << rank;
  }
  int recall = 0;
  for (uint32_t rank = 0; rank < 5; ++rank) {
    recall += std::count(found.begin(), found.end(), value_of(rank));
  }
  EXPECT_GE(recall, 4);
  EXPECT_EQ(found[0], value_of(0));
}

}  // namespace
}  // namespace ldp
