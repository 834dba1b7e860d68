// A survey of 20 categorical fields of 8 values each (8^20 joint cells)
// asks for its 190 two-way marginals as one MARGINALS question, through a
// real ldp-server process and real agent sessions. The server expands it
// into 190 histogram questions of 64 cells, splits the agents between them
// and releases each marginal with a per-cell interval. Checked: every
// marginal is released with 64 cells, and the intervals cover the
// population's true cells as often as their confidence says.
//
// The coverage bound. At confidence 1 − α each of the 12,160 intervals
// misses with probability at most α (about, for the normal approximation
// the intervals use). The marginals are answered by disjoint agents, so
// their miss counts m_j are independent; within one marginal the cells
// may miss together. So the total M = Σ m_j is held to α·12,160 plus 5
// standard deviations of a sum of 190 independent counts, that deviation
// taken from the m_j's own sample variance.
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "common/base/sanitizer_build.h"
#include "gtest/gtest.h"
#include "tests/integration/agent_runner.h"
#include "tests/integration/server_process.h"
#include "tests/testing/status_matchers.h"

namespace ldp::testing {
namespace {

constexpr int kFields = 20, kValues = 8, kMarginals = 190, kCells = 64;
constexpr double kConfidence = 0.95;
// About 125 agents per marginal outside sanitizers (24,000 sessions take
// ~30 s on a quiet 2-core machine), 32 in the 5× slower sanitizer builds.
#if LDP_UNDER_SANITIZER
constexpr int kAgents = 6'000;
#else
constexpr int kAgents = 24'000;
#endif

v1::StudySpec SurveyStudy() {
  v1::StudySpec spec;
  spec.set_display_name("twenty questions, pairwise");
  spec.set_epsilon_cap_nanos(1'000'000'000);
  spec.set_mode(v1::NONINTERACTIVE);
  spec.set_confidence(kConfidence);
  spec.set_round_duration_seconds(3600);
  v1::Question* q = spec.add_questions();
  q->set_question_id("survey");
  q->mutable_marginals()->set_order(2);
  for (int f = 0; f < kFields; ++f) {
    v1::FieldSpec* field = spec.mutable_schema()->add_fields();
    field->set_name(absl::StrCat("a", f));
    for (int v = 0; v < kValues; ++v) {
      field->mutable_categorical_field()->add_categories(absl::StrCat("v", v));
    }
    q->mutable_marginals()->add_fields()->set_field(absl::StrCat("a", f));
  }
  return spec;
}

// Fields that agree through a shared latent value half of the time, so the
// two-way marginals are far from products of uniform ones.
std::vector<std::vector<int>> MakeValues() {
  std::mt19937_64 gen(49);
  std::uniform_int_distribution<int> value(0, kValues - 1);
  std::bernoulli_distribution follow(0.5);
  std::vector<std::vector<int>> values(kAgents, std::vector<int>(kFields));
  for (auto& agent : values) {
    const int latent = value(gen);
    for (int& v : agent) v = follow(gen) ? latent : value(gen);
  }
  return values;
}

TEST(MarginalsStudy, TwoWayMarginalsOfTwentyFieldsCoverTheTruth) {
  ServerProcess server;
  ASSERT_OK(server.Start());
  AnalystClient analyst(server);
  auto study = analyst.CreateStudy(SurveyStudy());
  ASSERT_OK(study);
  const std::vector<std::vector<int>> values = MakeValues();
  std::vector<Record> records(kAgents);
  for (int i = 0; i < kAgents; ++i) {
    for (int f = 0; f < kFields; ++f) {
      records[i].values[absl::StrCat("a", f)] = absl::StrCat("v", values[i][f]);
    }
  }
  int accepted = 0;
  for (const AgentOutcome& o : RunAgents(server, records, /*threads=*/8)) {
    ASSERT_OK(o.error) << "agent " << o.agent_id;
    accepted += o.accepted;
  }
  EXPECT_EQ(accepted, kAgents);  // one marginal per agent (sample splitting)

  auto estimates = analyst.GetEstimates(study->study_id());
  ASSERT_OK(estimates);
  ASSERT_EQ(estimates->estimates_size(), kMarginals);
  int64_t reports = 0, misses = 0;
  std::vector<double> per_marginal;
  int first = 0, second = 1;  // the pair, in the expansion's order
  for (const v1::QuestionEstimate& e : estimates->estimates()) {
    ASSERT_EQ(e.question_id(), absl::StrCat("survey:a", first, ",a", second));
    ASSERT_TRUE(e.has_histogram());
    const v1::HistogramEstimate& h = e.histogram();
    ASSERT_EQ(h.frequencies_size(), kCells) << e.question_id();
    reports += h.num_reports();
    std::vector<double> truth(kCells, 0);
    for (const auto& agent : values) {
      truth[agent[first] * kValues + agent[second]] += 1.0 / kAgents;
    }
    int missed = 0;
    for (int c = 0; c < kCells; ++c) {
      if (truth[c] < h.interval_lower(c) || truth[c] > h.interval_upper(c)) {
        ++missed;
      }
    }
    misses += missed;
    per_marginal.push_back(missed);
    if (++second == kFields) second = ++first + 1;
  }
  EXPECT_EQ(reports, kAgents);
  double mean = 0, variance = 0;
  for (double m : per_marginal) mean += m / kMarginals;
  for (double m : per_marginal) {
    variance += (m - mean) * (m - mean) / (kMarginals - 1);
  }
  const double expected = (1 - kConfidence) * kMarginals * kCells;
  const double bound = expected + 5 * std::sqrt(kMarginals * variance);
  EXPECT_LE(misses, bound) << "coverage "
                           << 1 - double(misses) / (kMarginals * kCells);
  std::printf(
      "marginals: %lld of %d intervals miss (%.4f coverage; bound "
      "%.0f), %d reports per marginal on average\n",
      static_cast<long long>(misses), kMarginals * kCells,
      1 - double(misses) / (kMarginals * kCells), bound, kAgents / kMarginals);
}

}  // namespace
}  // namespace ldp::testing
