// A RAPPOR question through a real ldp-server process and real agent
// sessions: agents hold strings in a bit-vector field, the study lists
// 2,000 candidate strings (past the dense decode's 1,024, so the server
// selects with its Lasso and refits), and the answer names which
// candidates are discovered at a false-discovery rate.
//
// The population: 30 strings, five at a share of 0.15 and 25 at 0.01;
// the candidates are those 30 and 1,970 decoys nobody holds. Checked:
// GetStudy shows the seed the server chose; the answer covers the
// candidates in order with their labels, p-values in [0, 1] and intervals;
// every strong string is discovered; unselected candidates have p = 1 and
// no interval; and the false discoveries stay within the rate's bound.
//
// The bounds. At n = 4,000 and ε = 4 one estimate's standard error is
// about 0.01, so a share of 0.15 is over 10 σ: each strong string misses
// with probability far below 1e-7. Benjamini–Hochberg at q keeps the
// expected number of false discoveries V at most q·R (R the discoveries,
// here at most 30); with nearly independent nulls V is close to Poisson,
// and at q = 0.01 and R ≤ 30, Pr[V ≥ 4] < 3e-4 for mean 0.3 and below
// 1e-6 for the mean q·R·m0/m the test sees. Seeds are per agent, so a run
// is reproducible.
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/queries/string_digest.h"
#include "gtest/gtest.h"
#include "tests/integration/agent_runner.h"
#include "tests/integration/server_process.h"
#include "tests/testing/status_matchers.h"

namespace ldp::testing {
namespace {

constexpr int kAgents = 4'000, kStrong = 5, kWeak = 25, kCandidates = 2'000;
// The weak strings share what the strong ones leave: 0.01 each.
constexpr double kStrongShare = 0.15, kFdr = 0.01;

std::string HeldString(int i) { return absl::StrCat("held-", i); }

v1::StudySpec StringStudy() {
  v1::StudySpec spec;
  spec.set_display_name("which strings");
  spec.set_epsilon_cap_nanos(4'000'000'000);
  spec.set_mode(v1::NONINTERACTIVE);
  spec.set_confidence(0.95);
  spec.set_round_duration_seconds(3600);
  v1::FieldSpec* field = spec.mutable_schema()->add_fields();
  field->set_name("text");
  field->mutable_bit_vector_field()->set_bit_length(128);
  v1::Question* q = spec.add_questions();
  q->set_question_id("strings");
  v1::RapporQuestion* r = q->mutable_rappor();
  r->set_field("text");
  r->set_false_discovery_rate(kFdr);
  for (int c = 0; c < kCandidates; ++c) {
    r->add_candidates(c < kStrong + kWeak ? HeldString(c)
                                          : absl::StrCat("decoy-", c));
  }
  return spec;
}

// Agent i's string: the first 75% hold the five strong ones in turn, the
// rest the weak ones.
std::vector<Record> StringRecords() {
  std::vector<Record> records(kAgents);
  const int strong_agents = static_cast<int>(kAgents * kStrong * kStrongShare);
  for (int i = 0; i < kAgents; ++i) {
    const int held =
        i < strong_agents ? i % kStrong : kStrong + (i - strong_agents) % kWeak;
    records[i].values["text"] = *StringBits(HeldString(held), 128);
  }
  return records;
}

TEST(RapporStudy, DiscoversTheHeldStringsAmongTwoThousandCandidates) {
  ServerProcess server;
  ASSERT_OK(server.Start());
  AnalystClient analyst(server);
  auto study = analyst.CreateStudy(StringStudy());
  ASSERT_OK(study);
  const v1::RapporQuestion& asked = study->spec().questions(0).rappor();
  EXPECT_NE(asked.rappor().hash_seed(), 0u);  // the server's choice
  EXPECT_EQ(asked.candidates_size(), kCandidates);

  int accepted = 0;
  for (const AgentOutcome& o : RunAgents(server, StringRecords(), 8)) {
    ASSERT_OK(o.error) << "agent " << o.agent_id;
    accepted += o.accepted;
  }
  EXPECT_EQ(accepted, kAgents);

  auto estimates = analyst.GetEstimates(study->study_id());
  ASSERT_OK(estimates);
  ASSERT_EQ(estimates->estimates_size(), 1);
  const v1::HistogramEstimate& h = estimates->estimates(0).histogram();
  ASSERT_EQ(h.frequencies_size(), kCandidates);
  ASSERT_EQ(h.p_values_size(), kCandidates);
  ASSERT_EQ(h.discovered_size(), kCandidates);
  EXPECT_EQ(h.num_reports(), kAgents);
  EXPECT_EQ(h.false_discovery_rate(), kFdr);
  EXPECT_EQ(h.mechanism(), "rappor");
  int discoveries = 0, false_discoveries = 0, selected = 0;
  for (int c = 0; c < kCandidates; ++c) {
    EXPECT_EQ(h.labels(c), asked.candidates(c));
    EXPECT_GE(h.p_values(c), 0);
    EXPECT_LE(h.p_values(c), 1);
    if (std::isfinite(h.standard_errors(c))) {
      ++selected;
      EXPECT_LE(h.interval_lower(c), h.frequencies(c));
      EXPECT_GE(h.interval_upper(c), h.frequencies(c));
    } else {
      EXPECT_EQ(h.p_values(c), 1) << h.labels(c);
      EXPECT_EQ(h.frequencies(c), 0) << h.labels(c);
      EXPECT_FALSE(h.discovered(c)) << h.labels(c);
    }
    discoveries += h.discovered(c);
    if (c < kStrong) {
      EXPECT_TRUE(h.discovered(c)) << h.labels(c);
      EXPECT_NEAR(h.frequencies(c), kStrongShare, 5 * h.standard_errors(c));
    }
    if (c >= kStrong + kWeak) false_discoveries += h.discovered(c);
  }
  EXPECT_LE(false_discoveries, 3);
  std::printf(
      "rappor: %d of %d candidates selected, %d discovered, %d false "
      "(q = %g)\n",
      selected, kCandidates, discoveries, false_discoveries, kFdr);
}

}  // namespace
}  // namespace ldp::testing
