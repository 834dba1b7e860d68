// The agent protects itself with its default options (DESIGN invariant
// 4): caps no server can raise, a memo keyed by what a question
// is rather than what the server calls it, one permanent response per
// longitudinal value, and a state that stays bounded.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "client/core/agent.h"
#include "client/core/agent_state_store.h"
#include "client/core/state_lines.h"
#include "common/base/clock.h"
#include "common/mechanisms/frequency/count_mean_sketch.h"
#include "gtest/gtest.h"
#include "tests/testing/epsilon_nanos.h"
#include "tests/testing/fake_clock.h"
#include "tests/testing/statistics.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using testing::SeededGenerator;
using testing::StatusIs;

using ::ldp::testing::kEps;

RecordSchema ProtectionSchema(bool extra_field = false) {
  std::vector<FieldSpec> fields = {
      FieldSpec::Real("x", -1, 1),
      FieldSpec::Categorical("color", {"r", "g", "b", "y"})};
  // An unused field, listed first: it must not change what a question is.
  if (extra_field)
    fields.insert(fields.begin(), FieldSpec::Int("unused", 0, 9));
  auto schema = RecordSchema::Create(fields);
  EXPECT_OK(schema);
  return *schema;
}

Record SomeRecord(const std::string& color = "g") {
  Record record;
  record.values["x"] = 0.25;
  record.values["color"] = color;
  return record;
}

AgentTask Histogram(uint64_t study, uint64_t task_id,
                    FrequencyOracleSpec oracle, int64_t charge,
                    const RecordSchema& schema = ProtectionSchema()) {
  auto encoding =
      DomainEncoding::Create(FieldEncoding{.field = "color"}, schema);
  EXPECT_OK(encoding);
  return AgentTask{.task = {.study_id = study,
                            .round_id = task_id,
                            .task_id = task_id,
                            .epsilon_nanos = charge,
                            .question = HistogramTask{.encoding = *encoding,
                                                      .oracle = oracle}},
                   .schema = schema};
}

AgentTask Mean(uint64_t study, uint64_t task_id, RealMechanismSpec mechanism,
               int64_t charge, double upper = 1) {
  auto query = Query::Create(expr::Field("x"), {-1, upper}, ProtectionSchema());
  EXPECT_OK(query);
  return AgentTask{
      .task = {.study_id = study,
               .round_id = task_id,
               .task_id = task_id,
               .epsilon_nanos = charge,
               .question = StatisticalQueryTask{.query = *query,
                                                .mechanism = mechanism}},
      .schema = ProtectionSchema()};
}

FrequencyOracleSpec Grr(double epsilon) {
  return {.kind = FrequencyOracleKind::kGeneralizedRandomizedResponse,
          .epsilon = epsilon};
}

std::unique_ptr<Agent> MakeAgent(SeededGenerator& gen, const Clock& clock,
                                 AgentOptions options = {},
                                 AgentStateStore* shared = nullptr) {
  if (!options.record.has_value()) options.record = SomeRecord();
  options.clock = &clock;
  std::unique_ptr<AgentStateStore> store;
  if (shared == nullptr) {
    store = std::make_unique<MemoryAgentStateStore>();
  } else {
    // A second agent over the same saved state (a restart).
    struct Borrowed : AgentStateStore {
      explicit Borrowed(AgentStateStore* s) : s(s) {}
      absl::StatusOr<AgentState> Load() override { return s->Load(); }
      absl::Status Save(const AgentState& st) override { return s->Save(st); }
      AgentStateStore* s;
    };
    store = std::make_unique<Borrowed>(shared);
  }
  auto agent = Agent::Create(options, std::move(store), gen);
  EXPECT_OK(agent);
  return std::move(*agent);
}

// Default caps: 1 per study, 2 per rolling 24 h, 10 in a lifetime. A server
// that opens a new study for every question gets two a day, and ten ever.
TEST(AgentProtection, DefaultCapsBoundEveryServer) {
  SeededGenerator gen(1);
  FakeClock clock(absl::FromUnixSeconds(1'800'000'000));
  auto agent = MakeAgent(gen, clock);
  uint64_t next = 1;
  int answered = 0;
  for (int day = 0; day < 8; ++day) {
    for (int i = 0; i < 5; ++i) {
      const uint64_t id = next++;
      // Each a different question (its output range differs), 0.9 ε.
      auto answer = agent->Answer(
          Mean(id, id, {.kind = RealMechanismKind::kDuchi, .epsilon = 0.9},
               9 * kEps / 10, /*upper=*/1 + static_cast<double>(id)));
      if (answer.ok()) ++answered;
      EXPECT_LE(agent->period_spent_nanos(), kDefaultPeriodCapNanos);
    }
    clock.Advance(absl::Hours(24));
  }
  // Two 0.9 charges fit in each day's 2; the lifetime cap of 10 stops the
  // twelfth (10.8 > 10) whatever the day.
  // Days 1-5: two a day (9.0); day 6: one more (9.9); then none.
  EXPECT_EQ(answered, 11);
  EXPECT_EQ(agent->total_spent_nanos(), 11 * 9 * kEps / 10);
  EXPECT_LE(agent->total_spent_nanos(), kDefaultLifetimeCapNanos);
}

// The rolling window holds across midnight: a charge 23 h after
// the first still counts against the same window; one 24 h after does not.
TEST(AgentProtection, ThePeriodCapIsARollingWindow) {
  SeededGenerator gen(2);
  FakeClock clock(absl::FromUnixSeconds(1'800'000'000));
  auto agent = MakeAgent(gen, clock);
  auto grr = [](uint64_t id) { return Histogram(id, id, Grr(1), kEps); };
  ASSERT_OK(agent->Answer(
      Mean(1, 1, {.kind = RealMechanismKind::kDuchi, .epsilon = 1}, kEps)));
  clock.Advance(absl::Hours(23));
  ASSERT_OK(agent->Answer(grr(2)));
  const auto refused = agent->Answer(
      Mean(3, 3, {.kind = RealMechanismKind::kDuchi, .epsilon = 1}, kEps, 2));
  EXPECT_THAT(refused, StatusIs(absl::StatusCode::kFailedPrecondition));
  EXPECT_NE(refused.status().message().find("charges 1 epsilon but only 0 of"),
            std::string::npos)
      << refused.status();
  clock.Advance(absl::Hours(1));
  EXPECT_OK(agent->Answer(
      Mean(4, 4, {.kind = RealMechanismKind::kDuchi, .epsilon = 1}, kEps, 2)));
}

// Refusals print amounts exactly: a nano-ε short is visible.
TEST(AgentProtection, RefusalsShowEveryNanoEpsilon) {
  SeededGenerator gen(8);
  FakeClock clock(absl::FromUnixSeconds(1'800'000'000));
  auto agent = MakeAgent(gen, clock, {.max_epsilon_per_study_nanos = 5 * kEps});
  ASSERT_OK(agent->Answer(
      Histogram(1, 1, Grr(1.000000001), kEps + 1, ProtectionSchema())));
  const auto refused = agent->Answer(
      Mean(2, 2, {.kind = RealMechanismKind::kDuchi, .epsilon = 1}, kEps));
  EXPECT_THAT(refused, StatusIs(absl::StatusCode::kFailedPrecondition));
  EXPECT_NE(refused.status().message().find(
                "charges 1 epsilon but only 0.999999999 of the agent's cap"),
            std::string::npos)
      << refused.status();
  EXPECT_EQ(EpsilonText(-1'500'000'000), "-1.5");
  EXPECT_EQ(EpsilonText(2 * kEps), "2");
}

// The same question under a thousand study ids: one fresh answer, one
// charge, and the very same payload every time.
TEST(AgentProtection, MemoIgnoresStudyRoundAndTaskIds) {
  SeededGenerator gen(3);
  FakeClock clock(absl::FromUnixSeconds(1'800'000'000));
  auto agent = MakeAgent(gen, clock);
  auto first = agent->Answer(Histogram(1, 1, Grr(0.9), 9 * kEps / 10));
  ASSERT_OK(first);
  EXPECT_EQ(first->source, AnswerSource::kFresh);
  std::vector<AgentTask> tasks;
  for (uint64_t i = 2; i <= 1001; ++i) {
    // Unused schema fields and another field order change nothing either.
    tasks.push_back(Histogram(1000 + i, 7 * i, Grr(0.9), 9 * kEps / 10,
                              ProtectionSchema(/*extra_field=*/i % 2 == 0)));
  }
  for (const auto& answer : agent->AnswerAll(tasks)) {
    ASSERT_OK(answer);
    EXPECT_EQ(answer->source, AnswerSource::kMemo);
    EXPECT_EQ(answer->report.payload, first->report.payload);
  }
  EXPECT_EQ(agent->total_spent_nanos(), 9 * kEps / 10);
}

// A default spelled as 0 and spelled as its value is one question.
TEST(AgentProtection, MemoIgnoresHowADefaultIsSpelled) {
  SeededGenerator gen(4);
  FakeClock clock(absl::FromUnixSeconds(1'800'000'000));
  auto agent = MakeAgent(gen, clock, {.caps = {.period_nanos = 100 * kEps}});
  const auto olh = [](uint32_t g) {
    return FrequencyOracleSpec{
        .kind = FrequencyOracleKind::kOptimizedLocalHashing,
        .epsilon = 0.5,
        .num_buckets = g};
  };
  const auto cms = [](uint64_t seed) {
    return FrequencyOracleSpec{.kind = FrequencyOracleKind::kCountMeanSketch,
                               .epsilon = 0.5,
                               .num_hashes = 4,
                               .num_columns = 16,
                               .hash_seed = seed};
  };
  const auto real = [](RealMechanismKind kind, int bits, int64_t cells) {
    return RealMechanismSpec{.kind = kind,
                             .epsilon = 0.5,
                             .resolution_bits = bits,
                             .num_cells = cells};
  };
  // OLH at ε 0.5 over 4 items uses g = round(e^0.5 + 1) = 3 buckets.
  const std::vector<std::pair<AgentTask, AgentTask>> pairs = {
      {Histogram(1, 1, olh(0), kEps / 2), Histogram(2, 2, olh(3), kEps / 2)},
      {Histogram(3, 3, cms(0), kEps / 2),
       Histogram(4, 4, cms(CountMeanSketchOptions::kDefaultHashSeed),
                 kEps / 2)},
      {Mean(5, 5, real(RealMechanismKind::kDiscreteLaplace, 0, 0), kEps / 2),
       Mean(6, 6, real(RealMechanismKind::kDiscreteLaplace, 10, 0), kEps / 2)},
      {Mean(7, 7, real(RealMechanismKind::kPiecewise, 0, 0), kEps / 2),
       Mean(8, 8, real(RealMechanismKind::kPiecewise, 0, 2048), kEps / 2)},
      // Parameters a mechanism ignores are no new question either.
      {Mean(9, 9, real(RealMechanismKind::kDuchi, 0, 0), kEps / 2),
       Mean(10, 10, real(RealMechanismKind::kDuchi, 7, 99), kEps / 2)},
  };
  for (const auto& [zero, spelled] : pairs) {
    auto a = agent->Answer(zero);
    auto b = agent->Answer(spelled);
    ASSERT_OK(a);
    ASSERT_OK(b);
    EXPECT_EQ(a->source, AnswerSource::kFresh);
    EXPECT_EQ(b->source, AnswerSource::kMemo)
        << "study " << spelled.task.study_id;
    EXPECT_EQ(a->report.payload, b->report.payload);
  }
  EXPECT_EQ(agent->total_spent_nanos(), 5 * kEps / 2);
}

AgentTask Longitudinal(uint64_t round,
                       FrequencyOracleKind kind =
                           FrequencyOracleKind::kLongitudinalUnaryEncoding) {
  return Histogram(1, round,
                   {.kind = kind, .epsilon = 0.5, .epsilon_permanent = 2},
                   kEps / 2);
}

// Two rounds of one longitudinal question with the same value draw from one
// permanent response; another value gets a permanent response of its own.
// Charges stop once the response's ε∞ is paid. Each longitudinal oracle's
// memo has its own shape (bits, an item, a seed and a bucket, a cohort and
// its filter).
TEST(AgentProtection, KeepsOnePermanentResponsePerLongitudinalValue) {
  for (FrequencyOracleKind kind :
       {FrequencyOracleKind::kLongitudinalUnaryEncoding,
        FrequencyOracleKind::kLongitudinalGrr,
        FrequencyOracleKind::kLongitudinalLocalHashing,
        FrequencyOracleKind::kRappor}) {
    SCOPED_TRACE(FrequencyOracleKindName(kind));
    SeededGenerator gen(5);
    FakeClock clock(absl::FromUnixSeconds(1'800'000'000));
    MemoryAgentStateStore store;
    const AgentOptions options{.max_epsilon_per_study_nanos = 100 * kEps,
                               .caps = {.period_nanos = 100 * kEps}};
    auto agent = MakeAgent(gen, clock, options, &store);
    ASSERT_OK(agent->Answer(Longitudinal(1, kind)));
    ASSERT_EQ(agent->state().permanent.size(), 1u);
    const auto [key, prr] = *agent->state().permanent.begin();
    std::vector<ReportPayload> reports;
    for (uint64_t round = 2; round <= 8; ++round) {
      auto answer = agent->Answer(Longitudinal(round, kind));
      ASSERT_OK(answer);
      reports.push_back(answer->report.payload);
      ASSERT_EQ(agent->state().permanent.size(), 1u);
      EXPECT_TRUE(agent->state().permanent.at(key).payload == prr.payload);
      EXPECT_EQ(answer->source,
                round <= 4 ? AnswerSource::kFresh : AnswerSource::kMemo);
    }
    // ε∞ = 2 is paid after four reports of 0.5 (the implemented ε∞, which
    // coin rounding may put a few nano-ε lower); the reports stay fresh
    // draws.
    EXPECT_NEAR(agent->total_spent_nanos(), 2 * kEps, 10);
    EXPECT_LE(agent->total_spent_nanos(), 2 * kEps);
    EXPECT_EQ(agent->state().permanent.at(key).charged_nanos,
              agent->total_spent_nanos());
    EXPECT_NE(std::count(reports.begin(), reports.end(), reports[0]),
              static_cast<std::ptrdiff_t>(reports.size()));

    // The device's value changes (a restart with a new record).
    AgentOptions moved = options;
    moved.record = SomeRecord("y");
    agent = MakeAgent(gen, clock, moved, &store);
    auto answer = agent->Answer(Longitudinal(9, kind));
    ASSERT_OK(answer);
    EXPECT_EQ(answer->source, AnswerSource::kFresh);
    ASSERT_EQ(agent->state().permanent.size(), 2u);
    for (const auto& [k, response] : agent->state().permanent) {
      if (k == key) continue;
      EXPECT_EQ(response.charged_nanos, kEps / 2);
    }
    EXPECT_TRUE(agent->state().permanent.at(key).payload == prr.payload);
  }
}

// dBitFlipPM's permanent output: every report of one value is the memo
// itself, charged ε once; a new value pays ε again.
TEST(AgentProtection, DBitFlipRepeatsItsPermanentOutput) {
  SeededGenerator gen(7);
  FakeClock clock(absl::FromUnixSeconds(1'800'000'000));
  MemoryAgentStateStore store;
  const AgentOptions options{.max_epsilon_per_study_nanos = 100 * kEps,
                             .caps = {.period_nanos = 100 * kEps}};
  const auto task = [](uint64_t round) {
    return Histogram(1, round,
                     {.kind = FrequencyOracleKind::kDBitFlip, .epsilon = 0.5},
                     kEps / 2);
  };
  auto agent = MakeAgent(gen, clock, options, &store);
  auto first = agent->Answer(task(1));
  ASSERT_OK(first);
  EXPECT_EQ(first->source, AnswerSource::kFresh);
  for (uint64_t round = 2; round <= 5; ++round) {
    auto answer = agent->Answer(task(round));
    ASSERT_OK(answer);
    EXPECT_EQ(answer->source, AnswerSource::kMemo);
    EXPECT_EQ(answer->report.payload, first->report.payload);
  }
  // ε once (the implemented ε, rounded up to whole nano-ε).
  const int64_t once = agent->total_spent_nanos();
  EXPECT_NEAR(once, kEps / 2, 10);
  EXPECT_LE(once, kEps / 2);
  AgentOptions moved = options;
  moved.record = SomeRecord("y");
  agent = MakeAgent(gen, clock, moved, &store);
  auto other = agent->Answer(task(6));
  ASSERT_OK(other);
  EXPECT_EQ(other->source, AnswerSource::kFresh);
  EXPECT_EQ(agent->total_spent_nanos(), 2 * once);
}

// A stored permanent response of the wrong shape (a corrupted or foreign
// state file) is never used: a new one is drawn and charged in full.
TEST(AgentProtection, AMalformedPermanentResponseIsReplacedAndCharged) {
  SeededGenerator gen(8);
  FakeClock clock(absl::FromUnixSeconds(1'800'000'000));
  MemoryAgentStateStore store;
  const AgentOptions options{.max_epsilon_per_study_nanos = 100 * kEps,
                             .caps = {.period_nanos = 100 * kEps}};
  const FrequencyOracleKind kind = FrequencyOracleKind::kLongitudinalGrr;
  auto agent = MakeAgent(gen, clock, options, &store);
  ASSERT_OK(agent->Answer(Longitudinal(1, kind)));
  AgentState state = agent->state();
  ASSERT_EQ(state.permanent.size(), 1u);
  PermanentResponse& stored = state.permanent.begin()->second;
  stored.payload =
      FrequencyReport{BitVectorReport{.words = {1}, .num_bits = 4}};
  stored.charged_nanos = 2 * kEps;  // claims ε∞ is paid
  ASSERT_OK(store.Save(state));
  agent = MakeAgent(gen, clock, options, &store);
  const int64_t before = agent->total_spent_nanos();
  auto answer = agent->Answer(Longitudinal(2, kind));
  ASSERT_OK(answer);
  EXPECT_EQ(answer->source, AnswerSource::kFresh);
  EXPECT_EQ(agent->total_spent_nanos() - before, kEps / 2);
  const PermanentResponse& now = agent->state().permanent.begin()->second;
  EXPECT_TRUE(std::holds_alternative<ItemReport>(
      std::get<FrequencyReport>(now.payload)));
  EXPECT_EQ(now.charged_nanos, kEps / 2);  // counting afresh toward ε∞
}

// The state forgets what protects nothing any more and never outgrows its
// cap: a task that would is refused, with why.
TEST(AgentProtection, StateIsPrunedAndCapped) {
  SeededGenerator gen(6);
  FakeClock clock(absl::FromUnixSeconds(1'800'000'000));
  MemoryAgentStateStore store;
  auto agent = MakeAgent(gen, clock,
                         {.caps = {.period_nanos = 100 * kEps},
                          .retention = absl::Hours(48),
                          .max_state_bytes = 8192},
                         &store);
  int refused_for_size = 0;
  for (uint64_t i = 1; i <= 200; ++i) {
    AgentTask task =
        Mean(i, i, {.kind = RealMechanismKind::kDuchi, .epsilon = 0.001},
             kEps / 1000, 1 + static_cast<double>(i));
    task.deadline = clock.Now() + absl::Hours(1);
    auto answer = agent->Answer(task);
    if (!answer.ok()) {
      EXPECT_THAT(answer, StatusIs(absl::StatusCode::kFailedPrecondition));
      EXPECT_NE(answer.status().message().find("exceed its cap of 8192 bytes"),
                std::string::npos);
      ++refused_for_size;
    }
    auto saved = store.Load();
    ASSERT_OK(saved);
    EXPECT_LE(SerializeAgentState(*saved).size(), 8192u);
  }
  EXPECT_GT(refused_for_size, 0);
  // Rounds close: their reports go; memo entries stay for the retention.
  clock.Advance(absl::Hours(2));
  auto next =
      Mean(999, 999, {.kind = RealMechanismKind::kDuchi, .epsilon = 0.001},
           kEps / 1000, 5000);
  ASSERT_OK(agent->Answer(next));
  EXPECT_EQ(agent->state().reports.size(), 1u);
  EXPECT_GT(agent->state().memo.size(), 1u);
  const int64_t spent = agent->total_spent_nanos();
  // Past the retention the memo and the studies go; the lifetime spend stays.
  clock.Advance(absl::Hours(72));
  next.task.task_id = next.task.round_id = 1000;
  ASSERT_OK(agent->Answer(next));
  EXPECT_EQ(agent->state().memo.size(), 1u);
  EXPECT_EQ(agent->state().studies.size(), 1u);
  EXPECT_EQ(agent->total_spent_nanos(), spent + kEps / 1000);
}

// The caps live in the state; a restart with the same flags keeps the
// spend, and a version-1 file's spend counts against the lifetime cap.
TEST(AgentProtection, SpendSurvivesRestartsAndOldFiles) {
  SeededGenerator gen(7);
  FakeClock clock(absl::FromUnixSeconds(1'800'000'000));
  MemoryAgentStateStore store;
  auto old =
      ParseAgentState("ldp-agent-state 1\nstudy 3 1000000000 900000000\nend\n");
  ASSERT_OK(old);
  ASSERT_OK(store.Save(*old));
  auto agent =
      MakeAgent(gen, clock, {.caps = {.lifetime_nanos = kEps}}, &store);
  EXPECT_EQ(agent->total_spent_nanos(), 9 * kEps / 10);
  EXPECT_THAT(agent->Answer(Histogram(4, 1, Grr(0.2), kEps / 5)),
              StatusIs(absl::StatusCode::kFailedPrecondition));
  ASSERT_OK(agent->Answer(Histogram(4, 2, Grr(0.1), kEps / 10)));
  agent = MakeAgent(gen, clock, {.caps = {.lifetime_nanos = kEps}}, &store);
  EXPECT_EQ(agent->total_spent_nanos(), kEps);
  EXPECT_EQ(agent->state().caps.lifetime_nanos, kEps);
}

}  // namespace
}  // namespace ldp
