// A real ldp-server process on loopback, real agents through the client
// library: a noninteractive study with two statistical queries and a
// 64-cell histogram. Every estimate must land within 5 standard errors of
// the simulated population's truth.
#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "tests/integration/agent_runner.h"
#include "tests/integration/server_process.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/survey_study.h"

namespace ldp::testing {
namespace {

struct Population {
  std::vector<Record> records;
  double mean_income = 0;
  double smoker_share = 0;
  std::vector<double> cells = std::vector<double>(64, 0.0);
};

// A skewed, deterministic population: regions ~ 1/(r+1), age uniform.
Population MakePopulation(int n) {
  Population p;
  std::mt19937_64 gen(77);
  const char* regions = "abcdefgh";
  std::discrete_distribution<int> region({8, 4, 2.7, 2, 1.6, 1.3, 1.1, 1});
  for (int i = 0; i < n; ++i) {
    Record r;
    const int reg = region(gen);
    const int64_t age = 18 + static_cast<int64_t>(gen() % 72);
    const bool smoker = gen() % 10 < 3;
    const double income =
        std::min(200.0, 20.0 + age + static_cast<double>(gen() % 60));
    r.values["region"] = std::string(1, regions[reg]);
    r.values["age"] = age;
    r.values["smoker"] = smoker;
    r.values["income"] = income;
    p.records.push_back(r);
    p.mean_income += income / n;
    p.smoker_share += (smoker ? 1.0 : 0.0) / n;
    p.cells[reg * 8 + (age - 18) / 9] += 1.0 / n;  // 72 ages in 8 buckets of 9
  }
  return p;
}

TEST(NoninteractiveStudy, EstimatesLandWithinFiveStandardErrors) {
  ServerProcess server;
  ASSERT_OK(server.Start());
  AnalystClient analyst(server);
  v1::StudySpec spec;
  ASSERT_TRUE(
      google::protobuf::TextFormat::ParseFromString(kSurveyStudyText, &spec));
  auto study = analyst.CreateStudy(spec);
  ASSERT_OK(study);

  constexpr int kAgents = 3000;
  const Population population = MakePopulation(kAgents);
  const auto outcomes = RunAgents(server, population.records);
  int accepted = 0;
  for (const auto& o : outcomes) accepted += o.accepted;
  EXPECT_EQ(accepted, kAgents);  // sample splitting: one task per agent

  auto estimates = analyst.GetEstimates(study->study_id());
  ASSERT_OK(estimates);
  ASSERT_EQ(estimates->estimates_size(), 3);
  int64_t reports = 0;
  for (const auto& q : estimates->estimates()) {
    SCOPED_TRACE(q.question_id());
    if (q.question_id() == "mean_income" || q.question_id() == "smoker_share") {
      ASSERT_TRUE(q.has_scalar());
      const double truth = q.question_id() == "mean_income"
                               ? population.mean_income
                               : population.smoker_share;
      EXPECT_NEAR(q.scalar().value(), truth, 5 * q.scalar().standard_error());
      EXPECT_GT(q.scalar().standard_error(), 0);
      reports += q.scalar().num_reports();
    } else {
      ASSERT_TRUE(q.has_histogram());
      const auto& h = q.histogram();
      ASSERT_EQ(h.frequencies_size(), 64);
      for (int v = 0; v < 64; ++v) {
        EXPECT_NEAR(h.frequencies(v), population.cells[v],
                    5 * h.standard_errors(v))
            << "cell " << v << " (" << h.labels(v) << ")";
      }
      reports += h.num_reports();
    }
  }
  EXPECT_EQ(reports, kAgents);
}

// The general Hadamard response end to end: the survey's histogram alone,
// with t = 3 rows per item (the best t at ε = 2), stored and served back as
// asked, randomized by real agents, decoded by the server's transform.
TEST(NoninteractiveStudy,
     GeneralHadamardResponseLandsWithinFiveStandardErrors) {
  ServerProcess server;
  ASSERT_OK(server.Start());
  AnalystClient analyst(server);
  v1::StudySpec spec;
  ASSERT_TRUE(
      google::protobuf::TextFormat::ParseFromString(kSurveyStudyText, &spec));
  spec.mutable_questions()->DeleteSubrange(0, 2);
  spec.mutable_questions(0)
      ->mutable_randomizer()
      ->mutable_hadamard_response()
      ->set_rows_per_item(3);
  auto study = analyst.CreateStudy(spec);
  ASSERT_OK(study);
  EXPECT_EQ(study->spec()
                .questions(0)
                .randomizer()
                .hadamard_response()
                .rows_per_item(),
            3u);

  constexpr int kAgents = 2000;
  const Population population = MakePopulation(kAgents);
  int accepted = 0;
  for (const auto& o : RunAgents(server, population.records))
    accepted += o.accepted;
  EXPECT_EQ(accepted, kAgents);

  auto estimates = analyst.GetEstimates(study->study_id());
  ASSERT_OK(estimates);
  ASSERT_EQ(estimates->estimates_size(), 1);
  const auto& h = estimates->estimates(0).histogram();
  ASSERT_EQ(h.frequencies_size(), 64);
  EXPECT_EQ(h.num_reports(), kAgents);
  for (int v = 0; v < 64; ++v) {
    EXPECT_GT(h.standard_errors(v), 0);
    EXPECT_NEAR(h.frequencies(v), population.cells[v], 5 * h.standard_errors(v))
        << "cell " << v << " (" << h.labels(v) << ")";
  }
}

// The longitudinal oracles end to end, three studies on one server: a
// repeated question that leaves the choice to the planner (8 regions at
// ε = 2, where one GRR report beats every other, so L-GRR with its item
// memo), dBitFlipPM on the 64 cells sampling 8 of them per report, and
// RAPPOR on the 64 cells (8 cohorts of 16 bits, decoded by regression).
// Real agents memoize and report; each estimate lands within 5 standard
// errors, and the estimate names the mechanism the agents ran.
TEST(NoninteractiveStudy, LongitudinalOraclesLandWithinFiveStandardErrors) {
  ServerProcess server;
  ASSERT_OK(server.Start());
  AnalystClient analyst(server);
  v1::StudySpec planned;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(kSurveyStudyText,
                                                            &planned));
  planned.mutable_questions()->DeleteSubrange(0, 2);
  v1::StudySpec dbit = planned;
  v1::StudySpec rappor = planned;
  v1::RapporSpec& filters =
      *rappor.mutable_questions(0)->mutable_randomizer()->mutable_rappor();
  filters.set_epsilon_permanent_nanos(4'000'000'000);
  filters.set_num_bits(16);
  filters.set_num_cohorts(8);
  filters.set_hash_seed(42);
  v1::Question& repeated = *planned.mutable_questions(0);
  repeated.clear_randomizer();
  repeated.mutable_histogram()->mutable_encoding()->mutable_field()->set_field(
      "region");
  repeated.mutable_histogram()->set_longitudinal_epsilon_permanent_nanos(
      4'000'000'000);
  dbit.mutable_questions(0)
      ->mutable_randomizer()
      ->mutable_dbit_flip()
      ->set_sampled_buckets(8);
  auto planned_study = analyst.CreateStudy(planned);
  ASSERT_OK(planned_study);
  auto dbit_study = analyst.CreateStudy(dbit);
  ASSERT_OK(dbit_study);
  auto rappor_study = analyst.CreateStudy(rappor);
  ASSERT_OK(rappor_study);

  constexpr int kAgents = 800;
  const Population population = MakePopulation(kAgents);
  int accepted = 0;
  for (const auto& o : RunAgents(server, population.records))
    accepted += o.accepted;
  EXPECT_EQ(accepted, 3 * kAgents);

  std::vector<double> regions(8, 0.0);
  for (int v = 0; v < 64; ++v) regions[v / 8] += population.cells[v];
  const struct {
    uint64_t study_id;
    const char* mechanism;
    const std::vector<double>* truth;
  } cases[] = {{planned_study->study_id(), "longitudinal_grr", &regions},
               {dbit_study->study_id(), "dbit_flip", &population.cells},
               {rappor_study->study_id(), "rappor", &population.cells}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.mechanism);
    auto estimates = analyst.GetEstimates(c.study_id);
    ASSERT_OK(estimates);
    ASSERT_EQ(estimates->estimates_size(), 1);
    const auto& h = estimates->estimates(0).histogram();
    EXPECT_EQ(h.mechanism(), c.mechanism);
    ASSERT_EQ(h.frequencies_size(), static_cast<int>(c.truth->size()));
    EXPECT_EQ(h.num_reports(), kAgents);
    for (int v = 0; v < h.frequencies_size(); ++v) {
      EXPECT_GT(h.standard_errors(v), 0);
      EXPECT_NEAR(h.frequencies(v), (*c.truth)[v], 5 * h.standard_errors(v))
          << "cell " << v << " (" << h.labels(v) << ")";
    }
  }
}

}  // namespace
}  // namespace ldp::testing
