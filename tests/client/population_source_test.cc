#include "client/population_source.h"

#include <cmath>
#include <vector>

#include "common/population.h"
#include "gtest/gtest.h"
#include "tests/testing/statistics.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using testing::ChiSquare;
using testing::StatusIs;

constexpr int64_t kAgents = 200'000;
constexpr uint32_t kDomain = 16;

std::unique_ptr<PopulationSource> Make(PopulationOptions options) {
  auto source = PopulationSource::Create(options);
  EXPECT_OK(source);
  return std::move(*source);
}

void ExpectFollows(const PopulationSource& source, const std::vector<double>& p) {
  const std::vector<double> frequencies = source.Truth().Frequencies();
  std::vector<double> observed, expected;
  for (uint32_t i = 0; i < source.domain_size(); ++i) {
    observed.push_back(frequencies[i] * source.num_agents());
    expected.push_back(p[i] * source.num_agents());
  }
  const auto result = ChiSquare(observed, expected);
  EXPECT_TRUE(result.Passes()) << "chi2 " << result.statistic << " df "
                               << result.degrees_of_freedom;
}

double NormalCdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

TEST(PopulationSource, UniformZipfAndGaussianFollowTheirDistributions) {
  ExpectFollows(*Make({.kind = PopulationKind::kUniform, .num_agents = kAgents,
                       .domain_size = kDomain}),
                std::vector<double>(kDomain, 1.0 / kDomain));
  auto zipf = ZipfDistribution(kDomain, 1.3);
  ASSERT_OK(zipf);
  ExpectFollows(*Make({.kind = PopulationKind::kZipf, .num_agents = kAgents,
                       .domain_size = kDomain, .zipf_exponent = 1.3}),
                *zipf);
  // round(6 + 3 Z) clamped into [0, 15].
  std::vector<double> gaussian(kDomain);
  for (uint32_t k = 0; k < kDomain; ++k) {
    const double upper = k + 1 == kDomain ? 1.0 : NormalCdf((k + 0.5 - 6) / 3);
    const double lower = k == 0 ? 0.0 : NormalCdf((k - 0.5 - 6) / 3);
    gaussian[k] = upper - lower;
  }
  ExpectFollows(*Make({.kind = PopulationKind::kGaussian, .num_agents = kAgents,
                       .domain_size = kDomain, .gaussian_mean = 6,
                       .gaussian_stddev = 3}),
                gaussian);
}

TEST(PopulationSource, IsDeterministicPerSeedAndAgent) {
  auto a = Make({.num_agents = 1000, .seed = 7});
  auto b = Make({.num_agents = 1000, .seed = 7});
  auto c = Make({.num_agents = 1000, .seed = 8});
  int differences = 0;
  for (int64_t i = 0; i < 1000; ++i) {
    EXPECT_EQ(a->ItemOf(i), b->ItemOf(i));
    EXPECT_EQ(a->RecordOf(i), b->RecordOf(i));
    differences += a->ItemOf(i) != c->ItemOf(i);
  }
  EXPECT_GT(differences, 300);
}

TEST(PopulationSource, RecordsFitTheSchema) {
  auto source = Make({.kind = PopulationKind::kUniform, .num_agents = 100,
                      .domain_size = 5});
  ASSERT_EQ(source->schema().fields().size(), 2u);
  for (int64_t i = 0; i < 100; ++i) {
    const Record record = source->RecordOf(i);
    EXPECT_EQ(Sanitize(record, source->schema()), record);
    const auto item = std::get<int64_t>(record.values.at("item"));
    EXPECT_EQ(std::get<double>(record.values.at("value")), item / 4.0);
  }
}

TEST(PopulationSource, ReadsACsvAndCyclesThroughItsRows) {
  auto source = Make({.kind = PopulationKind::kCsv, .num_agents = 7,
                      .domain_size = 4, .csv_text = "item\n3\n0\r\n 1 \n\n"});
  const uint32_t expected[] = {3, 0, 1, 3, 0, 1, 3};
  for (int64_t i = 0; i < 7; ++i) EXPECT_EQ(source->ItemOf(i), expected[i]);
  const PopulationTruth truth = source->Truth();
  EXPECT_EQ(truth.item_counts, (std::vector<int64_t>{2, 2, 0, 3}));
  EXPECT_NEAR(truth.MeanValue(), (3 * 1.0 + 2 * 0 + 2 * (1 / 3.0)) / 7, 1e-12);
  for (const char* bad : {"", "item\n", "4\n", "x\n", "1\nitem\n", "-1\n"}) {
    EXPECT_THAT(PopulationSource::Create({.kind = PopulationKind::kCsv,
                                          .num_agents = 1, .domain_size = 4,
                                          .csv_text = bad}),
                StatusIs(absl::StatusCode::kInvalidArgument))
        << bad;
  }
}

TEST(PopulationTruth, AddsMergesAndAverages) {
  PopulationTruth a(3), b(3);
  EXPECT_EQ(a.MeanValue(), 0);
  EXPECT_EQ(a.Frequencies(), (std::vector<double>{0, 0, 0}));
  a.Add(0, 0.0);
  a.Add(2, 1.0);
  b.Add(2, 1.0);
  b.Add(1, 0.5);
  a.Merge(b);
  EXPECT_EQ(a.num_agents, 4);
  EXPECT_EQ(a.Frequencies(), (std::vector<double>{0.25, 0.25, 0.5}));
  EXPECT_DOUBLE_EQ(a.MeanValue(), 2.5 / 4);
}

TEST(PopulationSource, ValidatesItsOptions) {
  EXPECT_THAT(PopulationSource::Create({.num_agents = 0}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(PopulationSource::Create({.num_agents = 1, .domain_size = 1}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(PopulationSource::Create({.num_agents = 1, .domain_size = (1u << 20) + 1}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(PopulationSource::Create({.kind = PopulationKind::kZipf,
                                        .num_agents = 1, .zipf_exponent = -1}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(PopulationSource::Create({.kind = PopulationKind::kGaussian,
                                        .num_agents = 1, .gaussian_stddev = 0}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(ParsePopulationKind("poisson"),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_EQ(*ParsePopulationKind("gaussian"), PopulationKind::kGaussian);
}

}  // namespace
}  // namespace ldp
