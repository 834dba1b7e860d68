// A real ldp-server process on loopback, real agents through the client
// library: a study asking for the CDF of an int field (N = 32) as one
// workload question, answered through the strategy the server's planner
// picks. Every released answer's simultaneous band must cover the true CDF
// of the simulated population, every answer must lie within 5 of its own
// standard errors, and a restarted server must release the very same
// answers from its stored plan and reports.
#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/base/sanitizer_build.h"
#include "common/workload/specs/workload_answer.h"  // kAnswerRoundingError
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "tests/integration/agent_runner.h"
#include "tests/integration/server_process.h"
#include "tests/testing/status_matchers.h"

namespace ldp::testing {
namespace {

constexpr int kDomain = 32;
// 12,000 agent sessions (enroll, fetch, upload over gRPC) take ~15 s on a
// quiet 2-core machine; 20,000 took ~27 s, too close to the 30 s budget.
// The sanitizer builds run 5× slower and look for memory and UB errors,
// which 3,000 agents exercise just as well (the bands widen with them).
#if LDP_UNDER_SANITIZER
constexpr int kAgents = 3'000;
#else
constexpr int kAgents = 12'000;
#endif

constexpr char kCdfStudy[] = R"pb(
  display_name: "age CDF"
  epsilon_cap_nanos: 1000000000
  mode: NONINTERACTIVE
  confidence: 0.999
  round_duration_seconds: 3600
  schema { fields { name: "age" int_field { lower: 0 upper: 31 } } }
  questions {
    question_id: "age_cdf"
    workload {
      encoding { field { field: "age" } }
      workload { kind: PREFIX }
    }
    randomizer { epsilon_nanos: 1000000000 }
  }
)pb";

struct Population {
  std::vector<Record> records;
  std::vector<double> cdf = std::vector<double>(kDomain, 0.0);
};

// A skewed, deterministic population: a bump around 10 over a flat floor.
Population MakePopulation() {
  Population p;
  std::vector<double> weights(kDomain);
  for (int t = 0; t < kDomain; ++t) {
    weights[t] = 1 + 8 * std::exp(-(t - 10.0) * (t - 10.0) / 18);
  }
  std::mt19937_64 gen(2024);
  std::discrete_distribution<int> age(weights.begin(), weights.end());
  std::vector<double> counts(kDomain, 0.0);
  for (int i = 0; i < kAgents; ++i) {
    const int a = age(gen);
    Record r;
    r.values["age"] = int64_t{a};
    p.records.push_back(std::move(r));
    counts[a] += 1;
  }
  double cumulative = 0;
  for (int t = 0; t < kDomain; ++t) {
    cumulative += counts[t] / kAgents;
    p.cdf[t] = cumulative;
  }
  return p;
}

// A study spec from text format (the test fails on a parse error).
v1::StudySpec StudyFromText(const char* text) {
  v1::StudySpec spec;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &spec));
  return spec;
}

// Runs one agent per record through the real server; the number accepted.
// Sessions that fell short are counted and the first one's reason printed.
int AcceptedReports(ServerProcess& server, const std::vector<Record>& records) {
  int accepted = 0, failed = 0;
  absl::Status first_error;
  for (const auto& o : RunAgents(server, records, /*threads=*/8)) {
    accepted += o.accepted;
    if (!o.error.ok() && failed++ == 0) first_error = o.error;
  }
  if (failed > 0) {
    ADD_FAILURE() << failed
                  << " agent sessions failed; the first: " << first_error;
  }
  return accepted;
}

// Every answer within 5 of its standard errors of the truth, and inside its
// simultaneous band.
void ExpectAnswersCover(const v1::WorkloadEstimate& w,
                        const std::vector<double>& truth) {
  ASSERT_EQ(w.answers_size(), static_cast<int>(truth.size()));
  for (int q = 0; q < w.answers_size(); ++q) {
    SCOPED_TRACE(absl::StrCat("query ", q, " ", w.labels(q)));
    EXPECT_NEAR(w.answers(q), truth[q], 5 * w.standard_errors(q));
    EXPECT_LE(w.band_lower(q), truth[q]);
    EXPECT_GE(w.band_upper(q), truth[q]);
  }
}

TEST(WorkloadStudy, CdfAnswersLandInTheirBandThroughTheRealServer) {
  ServerProcess server;
  ASSERT_OK(server.Start());
  AnalystClient analyst(server);
  v1::StudySpec spec = StudyFromText(kCdfStudy);
  auto study = analyst.CreateStudy(spec);
  ASSERT_OK(study);

  const Population population = MakePopulation();
  ASSERT_EQ(AcceptedReports(server, population.records), kAgents);

  auto estimates = analyst.GetEstimates(study->study_id());
  ASSERT_OK(estimates);
  ASSERT_EQ(estimates->estimates_size(), 1);
  ASSERT_TRUE(estimates->estimates(0).has_workload());
  const v1::WorkloadEstimate& w = estimates->estimates(0).workload();
  EXPECT_EQ(w.num_reports(), kAgents);
  EXPECT_EQ(w.epsilon_nanos(), 1'000'000'000u);
  EXPECT_LE(w.implemented_epsilon(), 1.0);
  EXPECT_EQ(w.confidence(), 0.999);
  EXPECT_FALSE(w.strategy().empty());
  EXPECT_EQ(w.workload(), "prefix N=32");
  EXPECT_GT(w.predicted_v_max(), 0);
  EXPECT_GT(w.band_z(), 3);  // Bonferroni over 32 queries at 0.999
  ASSERT_EQ(w.answers_size(), kDomain);
  ASSERT_EQ(w.labels_size(), kDomain);
  EXPECT_EQ(w.labels(17), "x ≤ 17");
  // Pr[x ≤ 31] = 1 for everyone: the last answer has no sampling variance,
  // and its standard error is the estimator's rounding bound.
  int covered = 0;
  for (int t = 0; t < kDomain; ++t) {
    SCOPED_TRACE(absl::StrCat("t = ", t, ", strategy ", w.strategy()));
    const double se = w.standard_errors(t);
    EXPECT_GE(se, kAnswerRoundingError);
    if (t < kDomain - 1) {
      EXPECT_GT(se, 1e-4);
    }
    EXPECT_NEAR(w.answers(t), population.cdf[t], 5 * se);
    EXPECT_LE(w.band_lower(t), population.cdf[t]);
    EXPECT_GE(w.band_upper(t), population.cdf[t]);
    covered += w.band_lower(t) <= population.cdf[t] &&
               population.cdf[t] <= w.band_upper(t);
  }
  EXPECT_EQ(covered, kDomain);

  // After a crash the server rebuilds the plan (without planning again) and
  // the accumulators from its store: the same answers, bit for bit.
  server.Kill();
  ASSERT_OK(server.Start());
  AnalystClient restarted(server);
  auto again = restarted.GetEstimates(study->study_id());
  ASSERT_OK(again);
  ASSERT_TRUE(again->estimates(0).has_workload());
  const v1::WorkloadEstimate& w2 = again->estimates(0).workload();
  EXPECT_EQ(w2.num_reports(), kAgents);
  EXPECT_EQ(w2.strategy(), w.strategy());
  for (int t = 0; t < kDomain; ++t) {
    EXPECT_EQ(w2.answers(t), w.answers(t)) << t;
    EXPECT_EQ(w2.standard_errors(t), w.standard_errors(t)) << t;
  }
}

// RS+FD named by the analyst for the 1-way marginals of five bool fields:
// every agent reports all five (one real through GRR, four fakes), the
// answers land within 5 standard errors of the true marginals, and a
// restarted server rebuilds the strategy, attribute sizes included, from
// its stored plan.
TEST(WorkloadStudy, SamplingFakeDataAnswersMarginalsThroughTheRealServer) {
#if LDP_UNDER_SANITIZER
  constexpr int kFakeDataAgents = 1'000;
#else
  constexpr int kFakeDataAgents = 4'000;
#endif
  constexpr int kFields = 5;
  ServerProcess server;
  ASSERT_OK(server.Start());
  AnalystClient analyst(server);
  v1::StudySpec spec = StudyFromText(
      R"pb(
        display_name: "habits"
        epsilon_cap_nanos: 2000000000
        mode: NONINTERACTIVE
        confidence: 0.999
        round_duration_seconds: 3600
        questions {
          question_id: "habits"
          workload {
            workload { kind: MARGINALS order: 1 }
            strategy { kind: SAMPLING_FAKE_DATA }
          }
          randomizer { epsilon_nanos: 2000000000 }
        }
      )pb");
  v1::ProductEncoding* product = spec.mutable_questions(0)
                                     ->mutable_workload()
                                     ->mutable_encoding()
                                     ->mutable_product();
  for (int j = 0; j < kFields; ++j) {
    v1::FieldSpec* field = spec.mutable_schema()->add_fields();
    field->set_name(absl::StrCat("b", j));
    field->mutable_bool_field();
    product->add_fields()->set_field(absl::StrCat("b", j));
  }
  auto study = analyst.CreateStudy(spec);
  ASSERT_OK(study);

  // Field j is true for agents i with i % (j + 2) == 0.
  std::vector<Record> records(kFakeDataAgents);
  std::vector<double> ones(kFields, 0);
  for (int i = 0; i < kFakeDataAgents; ++i) {
    for (int j = 0; j < kFields; ++j) {
      const bool bit = i % (j + 2) == 0;
      records[i].values[absl::StrCat("b", j)] = bit;
      ones[j] += bit ? 1.0 / kFakeDataAgents : 0;
    }
  }
  ASSERT_EQ(AcceptedReports(server, records), kFakeDataAgents);

  auto estimates = analyst.GetEstimates(study->study_id());
  ASSERT_OK(estimates);
  ASSERT_TRUE(estimates->estimates(0).has_workload());
  const v1::WorkloadEstimate& w = estimates->estimates(0).workload();
  EXPECT_EQ(w.num_reports(), kFakeDataAgents);
  EXPECT_NE(w.strategy().find("sampling_fake_data d=5"), std::string::npos)
      << w.strategy();
  // Query (j, v): Pr[b_j = v], v = 0 first.
  std::vector<double> truth;
  for (int j = 0; j < kFields; ++j) {
    truth.push_back(1 - ones[j]);
    truth.push_back(ones[j]);
  }
  ExpectAnswersCover(w, truth);

  server.Kill();
  ASSERT_OK(server.Start());
  AnalystClient restarted(server);
  auto again = restarted.GetEstimates(study->study_id());
  ASSERT_OK(again);
  const v1::WorkloadEstimate& w2 = again->estimates(0).workload();
  EXPECT_EQ(w2.strategy(), w.strategy());
  for (int q = 0; q < 2 * kFields; ++q) EXPECT_EQ(w2.answers(q), w.answers(q));
}

// ATTRIBUTE_MARGINALS of a categorical and an int field (sizes 4 and 3),
// RS+FD named (the planner's form, or OUE-z or OUE-r fakes): the answers
// are labelled with the fields' values and land within 5 standard errors
// of the population's marginals.
struct FakeDataCase {
  v1::StrategySpec::Kind kind;
  const char* described;  // in the estimate's strategy
};

class FakeDataForms : public ::testing::TestWithParam<FakeDataCase> {};

INSTANTIATE_TEST_SUITE_P(
    Forms, FakeDataForms,
    ::testing::Values(FakeDataCase{v1::StrategySpec::SAMPLING_FAKE_DATA,
                                   "sampling_fake_data d=2 (4×3)"},
                      FakeDataCase{v1::StrategySpec::SAMPLING_FAKE_DATA_OUE_Z,
                                   "sampling_fake_data d=2 (4×3), OUE-z"},
                      FakeDataCase{v1::StrategySpec::SAMPLING_FAKE_DATA_OUE_R,
                                   "sampling_fake_data d=2 (4×3), OUE-r"}),
    [](const auto& info) {
      return v1::StrategySpec::Kind_Name(info.param.kind);
    });

TEST_P(FakeDataForms, CategoricalAttributeMarginalsThroughTheRealServer) {
#if LDP_UNDER_SANITIZER
  constexpr int kCategoricalAgents = 1'000;
#else
  constexpr int kCategoricalAgents = 3'000;
#endif
  ServerProcess server;
  ASSERT_OK(server.Start());
  AnalystClient analyst(server);
  v1::StudySpec spec = StudyFromText(
      R"pb(
        display_name: "where and how old"
        epsilon_cap_nanos: 2000000000
        mode: NONINTERACTIVE
        confidence: 0.999
        round_duration_seconds: 3600
        schema {
          fields {
            name: "country"
            categorical_field {
              categories: "fr"
              categories: "de"
              categories: "it"
              categories: "es"
            }
          }
          fields {
            name: "band"
            int_field { lower: 0 upper: 2 }
          }
        }
        questions {
          question_id: "marginals"
          workload {
            encoding {
              product {
                fields { field: "country" }
                fields { field: "band" }
              }
            }
            workload { kind: ATTRIBUTE_MARGINALS }
            strategy { kind: SAMPLING_FAKE_DATA }
          }
          randomizer { epsilon_nanos: 2000000000 }
        }
      )pb");
  spec.mutable_questions(0)->mutable_workload()->mutable_strategy()->set_kind(
      GetParam().kind);
  auto study = analyst.CreateStudy(spec);
  ASSERT_OK(study);

  const char* countries[] = {"fr", "de", "it", "es"};
  std::vector<Record> records(kCategoricalAgents);
  std::vector<double> truth(7, 0);
  for (int i = 0; i < kCategoricalAgents; ++i) {
    const int c = (i % 10) < 5 ? 0 : (i % 10) < 8 ? 1 : (i % 10) < 9 ? 2 : 3;
    const int band = i % 3 == 0 ? 2 : (i % 7 == 0 ? 1 : 0);
    records[i].values["country"] = std::string(countries[c]);
    records[i].values["band"] = int64_t{band};
    truth[c] += 1.0 / kCategoricalAgents;
    truth[4 + band] += 1.0 / kCategoricalAgents;
  }
  ASSERT_EQ(AcceptedReports(server, records), kCategoricalAgents);

  auto estimates = analyst.GetEstimates(study->study_id());
  ASSERT_OK(estimates);
  ASSERT_TRUE(estimates->estimates(0).has_workload());
  const v1::WorkloadEstimate& w = estimates->estimates(0).workload();
  EXPECT_NE(w.strategy().find(GetParam().described), std::string::npos)
      << w.strategy();
  ASSERT_EQ(w.labels_size(), 7);
  EXPECT_NE(w.labels(1).find("de"), std::string::npos) << w.labels(1);
  ExpectAnswersCover(w, truth);
}

// A workload the server cannot plan is refused at CreateStudy, naming the
// question.
TEST(WorkloadStudy, RefusesAnUnplannableWorkloadAtCreation) {
  ServerProcess server;
  ASSERT_OK(server.Start());
  AnalystClient analyst(server);
  v1::StudySpec spec = StudyFromText(kCdfStudy);
  spec.mutable_questions(0)->mutable_workload()->mutable_workload()->set_kind(
      v1::Workload::MARGINALS);
  auto study = analyst.CreateStudy(spec);
  EXPECT_EQ(study.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(study.status().message().find("age_cdf"), std::string::npos)
      << study.status();
}

}  // namespace
}  // namespace ldp::testing
