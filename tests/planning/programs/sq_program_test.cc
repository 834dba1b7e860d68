// The SQ oracle program: agents and slices follow each query's needs, the
// schedule fits the cap, answers carry honest intervals at 1 − β (coverage
// over seeded runs), and adaptive algorithms become interactive rounds.
#include "planning/programs/sq_program.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/estimation/confidence_interval.h"
#include "common/estimation/sample_size.h"
#include "common/mechanisms/real/real_mechanism_factory.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planning/program_simulator.h"
#include "planning/programs/program_schedule.h"
#include "tests/testing/epsilon_nanos.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/test_values.h"

namespace ldp {
namespace {

using namespace ::ldp::expr;  // NOLINT: expression builders
using ::ldp::testing::StatusIs;
using ::testing::HasSubstr;

using ::ldp::testing::kEps;

RecordSchema Schema() {
  return *RecordSchema::Create(
      {FieldSpec::Int("x", 0, 15), FieldSpec::Bool("y")});
}

ProgramContext Context(int64_t cap = kEps) {
  return {.schema = Schema(), .epsilon_cap_nanos = cap, .confidence = 0.95};
}

StudySpec Study(int64_t cap = kEps) {
  return {.schema = Schema(),
          .epsilon_cap_nanos = cap,
          .mode = StudyMode::kInteractive};
}

SqRequest Request(std::string id, QueryNode phi, QueryRange range, double tau,
                  double beta) {
  return {.id = std::move(id),
          .query = *Query::Create(std::move(phi), range, Schema()),
          .tolerance = tau,
          .failure_probability = beta};
}

// φ_c = [x < c]: mean c/16 under uniform x.
SqRequest Below(int c, double tau, double beta) {
  return Request(absl::StrCat("x<", c), Lt(Field("x"), Constant(c)),
                 {.lower = 0, .upper = 1}, tau, beta);
}

// Asks its plan's batches verbatim, stopping after `stop_after` of them.
class ScriptedSq final : public SqAlgorithm {
 public:
  explicit ScriptedSq(std::vector<std::vector<SqRequest>> plan,
                      size_t stop_after = SIZE_MAX)
      : plan_(std::move(plan)), stop_after_(stop_after) {}

  std::vector<std::vector<SqRequest>> Plan() const override { return plan_; }

  absl::StatusOr<std::vector<SqRequest>> NextBatch(
      absl::Span<const std::vector<SqAnswer>> answers) const override {
    if (answers.size() >= stop_after_) return std::vector<SqRequest>{};
    return plan_[answers.size()];
  }

  absl::StatusOr<ProgramResult> Result(
      absl::Span<const std::vector<SqAnswer>> answers) const override {
    ProgramResult result{.summary = "scripted"};
    for (const auto& batch : answers) {
      for (const SqAnswer& a : batch) {
        result.values.push_back(
            {.name = a.id, .value = a.value, .interval = a.interval});
      }
    }
    return result;
  }

 private:
  std::vector<std::vector<SqRequest>> plan_;
  size_t stop_after_;
};

// Two batches: E[y], then [x ≥ 8] if E[y] > 1/2 and [x < 8] otherwise.
class AdaptiveSq final : public SqAlgorithm {
 public:
  std::vector<std::vector<SqRequest>> Plan() const override {
    return {{Request("y", Field("y"), {0, 1}, 0.05, 0.01)},
            {Request("placeholder", Constant(0), {0, 1}, 0.05, 0.01)}};
  }
  absl::StatusOr<std::vector<SqRequest>> NextBatch(
      absl::Span<const std::vector<SqAnswer>> answers) const override {
    if (answers.empty()) return Plan()[0];
    if (answers.size() > 1) return std::vector<SqRequest>{};
    if (answers[0][0].value > 0.5) {
      return std::vector<SqRequest>{
          Request("x>=8", Ge(Field("x"), Constant(8)), {0, 1}, 0.05, 0.01)};
    }
    return std::vector<SqRequest>{Below(8, 0.05, 0.01)};
  }
  absl::StatusOr<ProgramResult> Result(
      absl::Span<const std::vector<SqAnswer>> answers) const override {
    return ProgramResult{.summary = absl::StrCat(answers.size(), " batches")};
  }
};

using ::ldp::testing::SplitMix64;

// Records as a pure function of (seed, agent): x uniform on [0, 15] and y
// true with probability p_y, independently.
RecordSource Population(uint64_t seed, double p_y = 0.5) {
  return [seed, p_y](uint64_t agent) {
    const uint64_t h = SplitMix64(seed * 0xD1B54A32D192ED03ULL + agent);
    Record r;
    r.values["x"] = static_cast<int64_t>(h & 15);
    r.values["y"] = static_cast<double>(h >> 11) * 0x1.0p-53 < p_y;
    return r;
  };
}

std::unique_ptr<SqProgram> MakeProgram(std::unique_ptr<const SqAlgorithm> alg,
                                       int64_t cap = kEps) {
  auto program = SqProgram::Create(std::move(alg), Context(cap));
  EXPECT_OK(program);
  return program.ok() ? std::move(*program) : nullptr;
}

// E[Decode(R(x))²] at x = ±b: where a kind's second moment peaks.
double EndpointSecondMoment(RealMechanismKind kind, double eps, double b) {
  auto m = CreateRealMechanism({.kind = kind, .epsilon = eps, .bound = b});
  return std::max((*m)->Variance(b), (*m)->Variance(-b)) + b * b;
}

TEST(ChooseSqMechanismTest, PicksTheKindWithTheSmallestBound) {
  for (double eps : {0.5, 1.0, 2.0, 4.0}) {
    auto choice = ChooseSqMechanism(eps, 0.5);
    ASSERT_OK(choice);
    // Its bound covers its own endpoints and is no worse than any kind's.
    EXPECT_GE(choice->report_variance,
              EndpointSecondMoment(choice->kind, eps, 0.5) * (1 - 1e-12));
    for (RealMechanismKind kind :
         {RealMechanismKind::kDiscreteLaplace, RealMechanismKind::kDuchi,
          RealMechanismKind::kPiecewise, RealMechanismKind::kHybrid}) {
      EXPECT_LE(choice->report_variance,
                EndpointSecondMoment(kind, eps, 0.5) * (1 + 1e-12))
          << RealMechanismKindName(kind) << " at ε = " << eps;
    }
  }
  EXPECT_THAT(ChooseSqMechanism(0, 1),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(ChooseSqMechanism(1, 0),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(SqReportsNeededTest, IsTheNormalFormulaForTheChosenMechanism) {
  const SqRequest r = Below(4, 0.05, 0.01);
  auto choice = ChooseSqMechanism(1.0, 0.5);
  ASSERT_OK(choice);
  const double z = NormalQuantile(1 - 0.01 / 2);
  auto n = SqReportsNeeded(r, 1.0);
  ASSERT_OK(n);
  EXPECT_EQ(*n, static_cast<int64_t>(std::ceil(z * z * choice->report_variance /
                                               (0.05 * 0.05))));
  // Half the tolerance, four times the reports (up to rounding up).
  auto n_half = SqReportsNeeded(Below(4, 0.025, 0.01), 1.0);
  ASSERT_OK(n_half);
  EXPECT_NEAR(static_cast<double>(*n_half), 4.0 * *n, 4);
  EXPECT_THAT(SqReportsNeeded(Below(4, 0, 0.01), 1.0),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(SqReportsNeeded(Below(4, 0.05, 1), 1.0),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(SqReportsNeeded(Below(4, 1e-9, 0.01), 1.0),
              StatusIs(absl::StatusCode::kOutOfRange));
}

TEST(SqProgramTest, SlicesAndTargetsAreProportionalToNeeds) {
  std::vector<std::vector<SqRequest>> plan = {
      {Below(4, 0.05, 0.05), Below(8, 0.1, 0.05)},
      {Request("wide", Sub(Mul(Constant(2), Field("y")), Constant(1)),
               {.lower = -1, .upper = 1}, 0.05, 0.01)},
      {Below(12, 0.1, 0.2)}};
  const ScriptedSq algorithm(plan);
  auto program = MakeProgram(std::make_unique<ScriptedSq>(plan));
  ASSERT_NE(program, nullptr);
  const auto& batches = program->batches();
  ASSERT_EQ(batches.size(), 3u);
  int64_t total = 0;
  for (size_t k = 0; k < plan.size(); ++k) {
    int64_t batch_total = 0;
    for (size_t i = 0; i < plan[k].size(); ++i) {
      auto n = SqReportsNeeded(plan[k][i], 1.0);
      ASSERT_OK(n);
      EXPECT_EQ(batches[k].reports_needed[i], *n);
      batch_total += *n;
    }
    EXPECT_EQ(batches[k].total_reports_needed, batch_total);
    total += batch_total;
  }
  EXPECT_EQ(program->predicted_agents(), total);
  auto predicted = PredictedAgents(algorithm, 1.0);
  ASSERT_OK(predicted);
  EXPECT_EQ(*predicted, total);
  // τ = 0.05 needs 4× the reports of τ = 0.1 at the same β and range.
  EXPECT_NEAR(static_cast<double>(batches[0].reports_needed[0]),
              4.0 * batches[0].reports_needed[1], 4);
  // Adjacent, disjoint slices covering [0, 1), widths ∝ needs.
  EXPECT_EQ(batches[0].slice.begin, 0.0);
  EXPECT_EQ(batches[2].slice.end, 1.0);
  for (size_t k = 0; k < batches.size(); ++k) {
    if (k > 0) {
      EXPECT_EQ(batches[k].slice.begin, batches[k - 1].slice.end);
    }
    EXPECT_NEAR(batches[k].slice.width(),
                static_cast<double>(batches[k].total_reports_needed) / total,
                1e-12);
  }
  // Every agent answers at most once, at the full cap.
  const std::vector<ScheduledRound> schedule = program->Schedule();
  ASSERT_EQ(schedule.size(), 3u);
  EXPECT_OK(CheckSchedule(schedule, kEps));
  EXPECT_EQ(MaxScheduledSpend(schedule), kEps);
  // The first round's questions carry the per-query needs as targets.
  auto step = program->Next({});
  ASSERT_OK(step);
  ASSERT_TRUE(step->round.has_value());
  ASSERT_EQ(step->round->questions.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    const Question& q = step->round->questions[i];
    EXPECT_EQ(q.id, plan[0][i].id);
    EXPECT_EQ(q.epsilon_nanos, kEps);
    EXPECT_EQ(q.target_reports, batches[0].reports_needed[i]);
    EXPECT_EQ(std::get<StatisticalQueryQuestion>(q.kind).mechanism,
              batches[0].mechanisms[i].kind);
  }
}

TEST(SqProgramTest, RejectsPlansNoPopulationCanServe) {
  auto create = [](std::vector<std::vector<SqRequest>> plan,
                   int64_t cap = kEps) {
    return SqProgram::Create(std::make_unique<ScriptedSq>(std::move(plan)),
                             Context(cap))
        .status();
  };
  EXPECT_THAT(create({}), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(create({{}}), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(create({{Below(4, 0.1, 0.1), Below(4, 0.1, 0.1)}}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(create({{Below(4, -1, 0.1)}}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(create({{Below(4, 0.1, 0)}}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(create({{Below(4, 0.1, 0.1)}}, 0),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(SqProgram::Create(nullptr, Context()).status(),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

// An algorithm whose batch strays from its plan would get agents sized for
// another (τ, β): the program refuses to ask it.
TEST(SqProgramTest, RefusesABatchThatStraysFromThePlan) {
  class Stray final : public SqAlgorithm {
   public:
    std::vector<std::vector<SqRequest>> Plan() const override {
      return {{Below(4, 0.1, 0.05)}};
    }
    absl::StatusOr<std::vector<SqRequest>> NextBatch(
        absl::Span<const std::vector<SqAnswer>>) const override {
      return std::vector<SqRequest>{Below(4, 0.05, 0.05)};
    }
    absl::StatusOr<ProgramResult> Result(
        absl::Span<const std::vector<SqAnswer>>) const override {
      return ProgramResult{};
    }
  };
  auto program = MakeProgram(std::make_unique<Stray>());
  ASSERT_NE(program, nullptr);
  EXPECT_THAT(program->Next({}).status(),
              StatusIs(absl::StatusCode::kInternal));
}

TEST(ToSqAnswerTest, IntervalIsAtOneMinusBetaAndWithinTheRange) {
  const SqRequest r = Below(4, 0.03, 0.01);
  const ScalarEstimate e{.value = 0.3,
                         .standard_error = 0.01,
                         .interval = {0.28, 0.32},  // the study's 95%
                         .confidence = 0.95,
                         .num_reports = 5000};
  const SqAnswer a = ToSqAnswer(r, e);
  const double z = NormalQuantile(1 - 0.01 / 2);  // 2.5758
  EXPECT_EQ(a.id, "x<4");
  EXPECT_DOUBLE_EQ(a.value, 0.3);
  EXPECT_NEAR(a.interval.lower, 0.3 - z * 0.01, 1e-12);
  EXPECT_NEAR(a.interval.upper, 0.3 + z * 0.01, 1e-12);
  EXPECT_NEAR(a.achieved_tolerance, z * 0.01, 1e-12);
  EXPECT_TRUE(a.meets_tolerance);  // 0.0258 ≤ 0.03
  EXPECT_EQ(a.num_reports, 5000);
  EXPECT_FALSE(ToSqAnswer(Below(4, 0.02, 0.01), e).meets_tolerance);

  // An estimate outside the range is clamped; the interval stays inside.
  const SqAnswer low = ToSqAnswer(r, {.value = -0.01,
                                      .standard_error = 0.01,
                                      .interval = {-1, 1},
                                      .num_reports = 100});
  EXPECT_EQ(low.value, 0.0);
  EXPECT_EQ(low.interval.lower, 0.0);
  EXPECT_NEAR(low.interval.upper, -0.01 + z * 0.01, 1e-12);

  // No reports: nothing is known but the range.
  const SqAnswer none = ToSqAnswer(r, {.value = 0,
                                       .standard_error = INFINITY,
                                       .interval = {-1, 1},
                                       .num_reports = 0});
  EXPECT_EQ(none.interval.lower, 0.0);
  EXPECT_EQ(none.interval.upper, 1.0);
  EXPECT_FALSE(none.meets_tolerance);
}

// At β = 0.3 each interval should miss E[φ] about 30% of the time; the
// study's own 95% intervals would miss about 5%. Over kRuns·8 answers the
// misses are Binomial(400, 0.3): mean 120, σ ≈ 9.2, and we accept 120 ± 5σ.
TEST(SqProgramTest, AnswerIntervalsCoverAtOneMinusBeta) {
  constexpr int kRuns = 50;
  constexpr double kBeta = 0.3;
  std::vector<SqRequest> batch;
  for (int j = 0; j < 8; ++j) batch.push_back(Below(2 * j + 1, 0.05, kBeta));
  auto program = MakeProgram(
      std::make_unique<ScriptedSq>(std::vector<std::vector<SqRequest>>{batch}));
  ASSERT_NE(program, nullptr);
  int answers = 0, misses = 0;
  for (int seed = 1; seed <= kRuns; ++seed) {
    std::mt19937_64 coins(seed);
    auto run = SimulateProgram(*program, Study(), program->predicted_agents(),
                               Population(seed), coins);
    ASSERT_OK(run);
    ASSERT_EQ(run->result.values.size(), 8u + 2);  // + the program's two
    for (int j = 0; j < 8; ++j) {
      const ProgramValue& v = run->result.values[j];
      ASSERT_TRUE(v.interval.has_value());
      ++answers;
      misses += !v.interval->Contains((2 * j + 1) / 16.0);
    }
  }
  const double mean = answers * kBeta;
  const double sigma = std::sqrt(answers * kBeta * (1 - kBeta));
  EXPECT_GE(misses, mean - 5 * sigma);
  EXPECT_LE(misses, mean + 5 * sigma);
}

// With the predicted population (plus 20%) every answer meets its τ: the
// planner's bound covers the estimate's actual standard error. With 30% of
// it none can (the shortfall is reported, not hidden).
TEST(SqProgramTest, PredictedAgentsMeetEveryTolerance) {
  const std::vector<std::vector<SqRequest>> plan = {
      {Below(4, 0.05, 0.05), Below(8, 0.1, 0.05)}, {Below(12, 0.04, 0.1)}};
  auto program = MakeProgram(std::make_unique<ScriptedSq>(plan));
  ASSERT_NE(program, nullptr);
  const int64_t n = program->predicted_agents();
  std::mt19937_64 coins(7);
  auto run =
      SimulateProgram(*program, Study(), n * 6 / 5, Population(3), coins);
  ASSERT_OK(run);
  ASSERT_EQ(run->rounds.size(), 2u);
  EXPECT_EQ(run->max_spent_nanos, kEps);
  EXPECT_EQ(run->refused_over_cap, 0);
  for (size_t k = 0; k < 2; ++k) {
    for (size_t i = 0; i < plan[k].size(); ++i) {
      const double wanted = 1.2 * program->batches()[k].reports_needed[i];
      EXPECT_NEAR(run->rounds[k].num_reports[i], wanted, 0.01 * wanted + 5);
    }
  }
  const ProgramValue& missing = run->result.values.back();
  EXPECT_EQ(missing.name, "answers_missing_tolerance");
  EXPECT_EQ(missing.value, 0);
  EXPECT_EQ(run->result.values[run->result.values.size() - 2].value, n);

  std::mt19937_64 coins2(8);
  auto small =
      SimulateProgram(*program, Study(), n * 3 / 10, Population(3), coins2);
  ASSERT_OK(small);
  EXPECT_EQ(small->result.values.back().value, 3);
  EXPECT_THAT(small->result.summary, HasSubstr("missed their tolerance"));
}

TEST(SqProgramTest, AdaptiveAlgorithmBecomesInteractiveRounds) {
  for (const auto& [p_y, second] :
       {std::pair<double, std::string>{0.8, "x>=8"}, {0.2, "x<8"}}) {
    auto program = MakeProgram(std::make_unique<AdaptiveSq>());
    ASSERT_NE(program, nullptr);
    std::mt19937_64 coins(11);
    auto run = SimulateProgram(*program, Study(), program->predicted_agents(),
                               Population(5, p_y), coins);
    ASSERT_OK(run);
    ASSERT_EQ(run->rounds.size(), 2u);
    EXPECT_EQ(run->rounds[1].question_ids, std::vector<std::string>{second});
    EXPECT_EQ(run->max_spent_nanos, kEps);  // disjoint slices: once each
  }
}

TEST(SqProgramTest, StopsEarlyWhenTheAlgorithmDoes) {
  const std::vector<std::vector<SqRequest>> plan = {
      {Below(4, 0.1, 0.05)}, {Below(8, 0.1, 0.05)}, {Below(12, 0.1, 0.05)}};
  auto program = MakeProgram(std::make_unique<ScriptedSq>(plan, 1));
  ASSERT_NE(program, nullptr);
  std::mt19937_64 coins(1);
  auto run = SimulateProgram(*program, Study(), 3000, Population(1), coins);
  ASSERT_OK(run);
  EXPECT_EQ(run->rounds.size(), 1u);
  EXPECT_EQ(run->result.values.front().name, "x<4");
}

}  // namespace
}  // namespace ldp
