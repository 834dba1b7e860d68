#include "tools/loadtest_core/population_source.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "common/estimation/population.h"
#include "gtest/gtest.h"
#include "tests/testing/statistics.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using testing::ChiSquare;
using ::testing::HasSubstr;
using testing::StatusIs;

constexpr int64_t kAgents = 200'000;
constexpr uint32_t kDomain = 16;

std::unique_ptr<PopulationSource> Make(PopulationOptions options) {
  auto source = PopulationSource::Create(options);
  EXPECT_OK(source);
  return std::move(*source);
}

void ExpectFollows(const PopulationSource& source,
                   const std::vector<double>& p) {
  const std::vector<double> frequencies = source.Truth().Frequencies();
  std::vector<double> observed, expected;
  for (uint32_t i = 0; i < source.domain_size(); ++i) {
    observed.push_back(frequencies[i] * source.num_agents());
    expected.push_back(p[i] * source.num_agents());
  }
  const auto result = ChiSquare(observed, expected);
  EXPECT_TRUE(result.Passes())
      << "chi2 " << result.statistic << " df " << result.degrees_of_freedom;
}

double NormalCdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

// round(mean + sd Z) clamped into [0, domain − 1].
std::vector<double> DiscretizedGaussian(uint32_t domain, double mean,
                                        double sd) {
  std::vector<double> p(domain);
  for (uint32_t k = 0; k < domain; ++k) {
    const double upper =
        k + 1 == domain ? 1.0 : NormalCdf((k + 0.5 - mean) / sd);
    const double lower = k == 0 ? 0.0 : NormalCdf((k - 0.5 - mean) / sd);
    p[k] = upper - lower;
  }
  return p;
}

// |observed − p| ≤ 5 standard errors of a proportion over n draws.
void ExpectProportion(double observed, double p, int64_t n,
                      const std::string& what) {
  const double sigma = std::sqrt(p * (1 - p) / n);
  EXPECT_LE(std::abs(observed - p), 5 * sigma + 1e-12)
      << what << ": observed " << observed << ", expected " << p;
}

// The field bitK of the loadtest's bit workloads: bit0 is the item's MSB.
int Field(uint32_t item, int k, int d) { return (item >> (d - 1 - k)) & 1; }

TEST(PopulationSource, UniformZipfAndGaussianFollowTheirDistributions) {
  ExpectFollows(*Make({.kind = PopulationKind::kUniform,
                       .num_agents = kAgents,
                       .domain_size = kDomain}),
                std::vector<double>(kDomain, 1.0 / kDomain));
  auto zipf = ZipfDistribution(kDomain, 1.3);
  ASSERT_OK(zipf);
  ExpectFollows(*Make({.kind = PopulationKind::kZipf,
                       .num_agents = kAgents,
                       .domain_size = kDomain,
                       .zipf_exponent = 1.3}),
                *zipf);
  // round(6 + 3 Z) clamped into [0, 15].
  ExpectFollows(*Make({.kind = PopulationKind::kGaussian,
                       .num_agents = kAgents,
                       .domain_size = kDomain,
                       .gaussian_mean = 6,
                       .gaussian_stddev = 3}),
                DiscretizedGaussian(kDomain, 6, 3));
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
  auto source = Make(
      {.kind = PopulationKind::kUniform, .num_agents = 100, .domain_size = 5});
  ASSERT_EQ(source->schema().fields().size(), 2u);
  for (int64_t i = 0; i < 100; ++i) {
    const Record record = source->RecordOf(i);
    EXPECT_EQ(Sanitize(record, source->schema()), record);
    const auto item = std::get<int64_t>(record.values.at("item"));
    EXPECT_EQ(std::get<double>(record.values.at("value")), item / 4.0);
  }
}

TEST(PopulationSource, ReadsACsvAndCyclesThroughItsRows) {
  auto source = Make({.kind = PopulationKind::kCsv,
                      .num_agents = 7,
                      .domain_size = 4,
                      .csv_text = "item\n3\n0\r\n 1 \n\n"});
  const uint32_t expected[] = {3, 0, 1, 3, 0, 1, 3};
  for (int64_t i = 0; i < 7; ++i) EXPECT_EQ(source->ItemOf(i), expected[i]);
  const PopulationTruth truth = source->Truth();
  EXPECT_EQ(truth.item_counts, (std::vector<int64_t>{2, 2, 0, 3}));
  EXPECT_NEAR(truth.MeanValue(), (3 * 1.0 + 2 * 0 + 2 * (1 / 3.0)) / 7, 1e-12);
  for (const char* bad : {"", "item\n", "4\n", "x\n", "1\nitem\n", "-1\n"}) {
    EXPECT_THAT(PopulationSource::Create({.kind = PopulationKind::kCsv,
                                          .num_agents = 1,
                                          .domain_size = 4,
                                          .csv_text = bad}),
                StatusIs(absl::StatusCode::kInvalidArgument))
        << bad;
  }
}

// A CSV as a spreadsheet or R writes it: BOM, quoted header and items,
// CRLF, blank trailing lines; errors name the file, line and column.
TEST(PopulationSource, ReadsAQuotedCrlfCsvAndNamesLinesInErrors) {
  auto source = Make({.kind = PopulationKind::kCsv,
                      .num_agents = 4,
                      .domain_size = 4,
                      .csv_text = "\xEF\xBB\xBF\"item\"\r\n\"3\"\r\n0\r\n"
                                  "\"2\"\r\n\r\n",
                      .csv_source = "items.csv"});
  const uint32_t expected[] = {3, 0, 2, 3};
  for (int64_t i = 0; i < 4; ++i) EXPECT_EQ(source->ItemOf(i), expected[i]);
  const std::pair<const char*, const char*> bad[] = {
      {"item\r\n1\r\n\"x\"\r\n",
       "items.csv:3: column 1: expected an item in [0, 4), got 'x'"},
      {"\"item\r\n1\r\n", "items.csv:1: column 1: unterminated quoted"},
      {"item\n1\n2,3\n", "items.csv:3: 2 fields, the header has 1"},
      {"item,value\n1,0\n", "items.csv:1: 2 fields; a CSV population has one"},
  };
  for (const auto& [text, message] : bad) {
    EXPECT_THAT(
        PopulationSource::Create({.kind = PopulationKind::kCsv,
                                  .num_agents = 1,
                                  .domain_size = 4,
                                  .csv_text = text,
                                  .csv_source = "items.csv"}),
        StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(message)))
        << text;
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
  EXPECT_THAT(PopulationSource::Create(
                  {.num_agents = 1, .domain_size = (1u << 20) + 1}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(PopulationSource::Create({.kind = PopulationKind::kZipf,
                                        .num_agents = 1,
                                        .zipf_exponent = -1}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(PopulationSource::Create({.kind = PopulationKind::kGaussian,
                                        .num_agents = 1,
                                        .gaussian_stddev = 0}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  const auto unknown = ParsePopulationKind("poisson");
  EXPECT_THAT(unknown, StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(
      std::string(unknown.status().message()),
      HasSubstr("uniform, zipf, gaussian, csv, mixture or masked_parity"));
  for (PopulationKind kind :
       {PopulationKind::kUniform, PopulationKind::kZipf,
        PopulationKind::kGaussian, PopulationKind::kCsv,
        PopulationKind::kMixture, PopulationKind::kMaskedParity}) {
    EXPECT_EQ(*ParsePopulationKind(PopulationKindName(kind)), kind);
  }
  EXPECT_EQ(*ParsePopulationKind("masked_parity"),
            PopulationKind::kMaskedParity);
}

// A mixture's pmf is the weighted sum of its components' pmfs. The weights
// are deliberately unnormalized, and the components' parameters come from
// both the component (zipf s, gaussian mean/sd) and the options (the NaN
// gaussian sd takes gaussian_stddev).
TEST(PopulationSource, MixtureFollowsTheWeightedSumOfItsComponents) {
  auto zipf = ZipfDistribution(kDomain, 1.3);
  ASSERT_OK(zipf);
  const std::vector<double> gaussian = DiscretizedGaussian(kDomain, 11, 2);
  auto source = Make(
      {.kind = PopulationKind::kMixture,
       .num_agents = kAgents,
       .domain_size = kDomain,
       .gaussian_stddev = 2,
       .components = {
           {.kind = PopulationKind::kUniform, .weight = 2},
           {.kind = PopulationKind::kZipf, .weight = 5, .zipf_exponent = 1.3},
           {.kind = PopulationKind::kGaussian,
            .weight = 3,
            .gaussian_mean = 11}}});
  std::vector<double> p(kDomain);
  for (uint32_t k = 0; k < kDomain; ++k) {
    p[k] = 0.2 / kDomain + 0.5 * (*zipf)[k] + 0.3 * gaussian[k];
  }
  const std::vector<double> frequencies = source->Truth().Frequencies();
  for (uint32_t k = 0; k < kDomain; ++k) {
    ExpectProportion(frequencies[k], p[k], kAgents,
                     "item " + std::to_string(k));
  }
  ExpectFollows(*source, p);
}

// Point-mass components (tiny sd) make each agent's component visible, so
// this checks the choice of component alone against the normalized weights.
TEST(PopulationSource, MixturePicksComponentsByNormalizedWeight) {
  auto source = Make({.kind = PopulationKind::kMixture,
                      .num_agents = kAgents,
                      .domain_size = kDomain,
                      .components = {{.kind = PopulationKind::kGaussian,
                                      .weight = 0.5,
                                      .gaussian_mean = 2,
                                      .gaussian_stddev = 1e-3},
                                     {.kind = PopulationKind::kGaussian,
                                      .weight = 0.25,
                                      .gaussian_mean = 9,
                                      .gaussian_stddev = 1e-3},
                                     {.kind = PopulationKind::kGaussian,
                                      .weight = 1.25,
                                      .gaussian_mean = 14,
                                      .gaussian_stddev = 1e-3}}});
  const PopulationTruth truth = source->Truth();
  const std::vector<double> frequencies = truth.Frequencies();
  ExpectProportion(frequencies[2], 0.25, kAgents, "component 0");
  ExpectProportion(frequencies[9], 0.125, kAgents, "component 1");
  ExpectProportion(frequencies[14], 0.625, kAgents, "component 2");
  EXPECT_EQ(truth.item_counts[2] + truth.item_counts[9] + truth.item_counts[14],
            kAgents);
}

TEST(PopulationSource, MixtureIsDeterministicPerSeedAndAgent) {
  auto options = [](uint64_t seed) {
    return PopulationOptions{
        .kind = PopulationKind::kMixture,
        .num_agents = 1000,
        .seed = seed,
        .components = {{.kind = PopulationKind::kUniform, .weight = 1},
                       {.kind = PopulationKind::kZipf, .weight = 1}}};
  };
  auto a = Make(options(7)), b = Make(options(7)), c = Make(options(8));
  int differences = 0;
  for (int64_t i = 0; i < 1000; ++i) {
    EXPECT_EQ(a->ItemOf(i), b->ItemOf(i));
    differences += a->ItemOf(i) != c->ItemOf(i);
  }
  EXPECT_GT(differences, 300);
}

TEST(ParseMixture, ReadsKindsWeightsAndParameters) {
  auto plain = ParseMixture("zipf:0.6,gaussian:0.3,uniform:0.1");
  ASSERT_OK(plain);
  ASSERT_EQ(plain->size(), 3u);
  EXPECT_EQ((*plain)[0].kind, PopulationKind::kZipf);
  EXPECT_EQ((*plain)[1].kind, PopulationKind::kGaussian);
  EXPECT_EQ((*plain)[2].kind, PopulationKind::kUniform);
  EXPECT_EQ((*plain)[0].weight, 0.6);
  EXPECT_EQ((*plain)[2].weight, 0.1);
  EXPECT_TRUE(std::isnan((*plain)[0].zipf_exponent));
  EXPECT_TRUE(std::isnan((*plain)[1].gaussian_mean));

  auto with_params =
      ParseMixture(" zipf(s=1.3):0.5 , gaussian( mean=100, sd=8 ):2");
  ASSERT_OK(with_params);
  ASSERT_EQ(with_params->size(), 2u);
  EXPECT_EQ((*with_params)[0].zipf_exponent, 1.3);
  EXPECT_EQ((*with_params)[1].gaussian_mean, 100);
  EXPECT_EQ((*with_params)[1].gaussian_stddev, 8);
  EXPECT_TRUE(std::isnan((*with_params)[1].zipf_exponent));
  EXPECT_EQ((*with_params)[1].weight, 2);

  auto source = PopulationSource::Create({.kind = PopulationKind::kMixture,
                                          .num_agents = 10,
                                          .domain_size = 256,
                                          .components = *with_params});
  EXPECT_OK(source);
}

TEST(ParseMixture, RejectsBadInputNamingTheProblem) {
  const std::pair<const char*, const char*> cases[] = {
      {"", "empty"},
      {"  ", "empty"},
      {"zipf", "'zipf': expected kind[(params)]:weight"},
      {"zipf:", "'zipf:': the weight must be a finite number"},
      {"zipf:abc", "got 'abc'"},
      {"zipf:0", "'zipf:0': the weight must be finite and > 0"},
      {"zipf:-1", "> 0, got -1"},
      {"zipf:inf", "finite number"},
      {"poisson:1", "unknown kind 'poisson'"},
      {":1", "unknown kind ''"},
      {"csv:1",
       "'csv:1': only uniform, zipf and gaussian can be mixed, not csv"},
      {"mixture:1", "not mixture"},
      {"masked_parity:1", "not masked_parity"},
      {"zipf:0.5,,uniform:0.5", "empty component"},
      {"zipf:0.5,", "empty component"},
      {"zipf(s=1.3:0.5",
       "'zipf(s=1.3:0.5': parameters must be one parenthesized list"},
      {"zipf(s=1)(s=2):1", "one parenthesized list"},
      {"zipf s=1):1", "')' without '('"},
      {"zipf(t=1):1", "unknown parameter 't' for zipf (takes s)"},
      {"uniform(s=1):1", "unknown parameter 's' for uniform (takes none)"},
      {"gaussian(s=1):1", "takes mean and sd"},
      {"uniform():1", "expected name=value, got ''"},
      {"zipf(s):1", "expected name=value, got 's'"},
      {"zipf(s=1,s=2):1", "parameter 's' given twice"},
      {"zipf(s=x):1", "parameter 's' must be a finite number, got 'x'"},
      {"zipf(s=-1):1",
       "'zipf(s=-1):1': the zipf exponent s must be finite and >= 0"},
      {"gaussian(sd=0):1", "the gaussian sd must be finite and > 0, got 0"},
      {"uniform:1,gaussian(mean=nan):1", "'gaussian(mean=nan):1'"},
  };
  for (const auto& [text, expected] : cases) {
    const auto result = ParseMixture(text);
    EXPECT_THAT(result, StatusIs(absl::StatusCode::kInvalidArgument)) << text;
    EXPECT_THAT(std::string(result.status().message()), HasSubstr(expected))
        << text;
  }
}

TEST(PopulationSource, ValidatesMixtureOptions) {
  auto create = [](std::vector<MixtureComponent> components,
                   double zipf = 1.1) {
    return PopulationSource::Create({.kind = PopulationKind::kMixture,
                                     .num_agents = 1,
                                     .zipf_exponent = zipf,
                                     .components = std::move(components)});
  };
  const std::pair<absl::StatusOr<std::unique_ptr<PopulationSource>>,
                  const char*>
      cases[] = {
          {create({}), "at least one component"},
          {create({{.kind = PopulationKind::kUniform},
                   {.kind = PopulationKind::kCsv}}),
           "mixture component 1 (csv): only uniform, zipf and gaussian"},
          {create({{.kind = PopulationKind::kUniform, .weight = 0}}),
           "component 0 (uniform): the weight must be finite and > 0"},
          {create({{.kind = PopulationKind::kUniform,
                    .weight = std::numeric_limits<double>::quiet_NaN()}}),
           "the weight"},
          {create({{.kind = PopulationKind::kUniform, .weight = 1e308},
                   {.kind = PopulationKind::kUniform, .weight = 1e308}}),
           "sum to infinity"},
          {create({{.kind = PopulationKind::kZipf, .zipf_exponent = -2}}),
           "component 0 (zipf): the zipf exponent"},
          // A NaN exponent falls back to the options' one, which is checked
          // too.
          {create({{.kind = PopulationKind::kZipf}}, -1), "got -1"},
          {create({{.kind = PopulationKind::kGaussian, .gaussian_stddev = -1}}),
           "component 0 (gaussian): the gaussian sd"},
      };
  for (const auto& [result, expected] : cases) {
    EXPECT_THAT(result, StatusIs(absl::StatusCode::kInvalidArgument))
        << expected;
    EXPECT_THAT(std::string(result.status().message()), HasSubstr(expected));
  }
}

// d = 5: x = bit0..bit3 (item >> 1), label = bit4. Mask 0b1011 lines up with
// bit0..bit3 as {bit0, bit2, bit3}, so bit0 ⊕ bit2 ⊕ bit3 ⊕ bit4 is the noise.
TEST(PopulationSource, MaskedParityLabelsByTheMaskedParityWithNoise) {
  constexpr int d = 5;
  constexpr uint32_t kMask = 0b1011;
  constexpr double kNoise = 0.1;
  auto source = Make({.kind = PopulationKind::kMaskedParity,
                      .num_agents = kAgents,
                      .domain_size = 1u << d,
                      .seed = 3,
                      .parity_noise = kNoise,
                      .parity_mask = kMask});
  EXPECT_EQ(source->parity_mask(), kMask);
  int64_t agree = 0, unrelated_zero = 0;
  std::vector<int64_t> x_counts(1u << (d - 1));
  for (int64_t i = 0; i < kAgents; ++i) {
    const uint32_t item = source->ItemOf(i);
    ASSERT_LT(item, 1u << d);
    const uint32_t x = item >> 1;
    ++x_counts[x];
    agree += (std::popcount(x & kMask) & 1) == static_cast<int>(item & 1);
    // The same statement in the bit workloads' field names.
    EXPECT_EQ(Field(item, 0, d) ^ Field(item, 2, d) ^ Field(item, 3, d),
              (std::popcount(x & kMask) & 1));
    // A parity that misses a masked bit is unbiased.
    unrelated_zero +=
        (Field(item, 0, d) ^ Field(item, 1, d) ^ Field(item, 4, d)) == 0;
  }
  ExpectProportion(static_cast<double>(agree) / kAgents, 1 - kNoise, kAgents,
                   "label == parity(x & mask)");
  ExpectProportion(static_cast<double>(unrelated_zero) / kAgents, 0.5, kAgents,
                   "unrelated parity");
  for (uint32_t x = 0; x < x_counts.size(); ++x) {
    ExpectProportion(static_cast<double>(x_counts[x]) / kAgents,
                     1.0 / x_counts.size(), kAgents,
                     "x = " + std::to_string(x));
  }

  auto noiseless = Make({.kind = PopulationKind::kMaskedParity,
                         .num_agents = 1000,
                         .domain_size = 4,
                         .parity_noise = 0,
                         .parity_mask = 1});
  for (int64_t i = 0; i < 1000; ++i) {
    const uint32_t item = noiseless->ItemOf(i);
    EXPECT_EQ(item & 1, (item >> 1) & 1) << item;
  }
}

TEST(PopulationSource, MaskedParityDrawsItsMaskFromTheSeed) {
  std::vector<uint32_t> masks;
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    auto source = Make({.kind = PopulationKind::kMaskedParity,
                        .num_agents = 200,
                        .domain_size = 1024,
                        .seed = seed});
    const uint32_t mask = source->parity_mask();
    EXPECT_GT(mask, 0u);
    EXPECT_LT(mask, 512u);
    masks.push_back(mask);
    auto again = Make({.kind = PopulationKind::kMaskedParity,
                       .num_agents = 200,
                       .domain_size = 1024,
                       .seed = seed});
    EXPECT_EQ(again->parity_mask(), mask);
    for (int64_t i = 0; i < 200; ++i)
      EXPECT_EQ(again->ItemOf(i), source->ItemOf(i));
  }
  std::sort(masks.begin(), masks.end());
  EXPECT_GT(std::unique(masks.begin(), masks.end()) - masks.begin(), 4);
  // With d = 2 the only nonzero mask is 1.
  EXPECT_EQ(Make({.kind = PopulationKind::kMaskedParity,
                  .num_agents = 1,
                  .domain_size = 4,
                  .seed = 99})
                ->parity_mask(),
            1u);
  // Other kinds report no mask.
  EXPECT_EQ(
      Make(
          {.kind = PopulationKind::kUniform, .num_agents = 1, .parity_mask = 3})
          ->parity_mask(),
      0u);
}

TEST(PopulationSource, ValidatesMaskedParityOptions) {
  auto create = [](uint32_t domain, uint32_t mask, double noise) {
    return PopulationSource::Create({.kind = PopulationKind::kMaskedParity,
                                     .num_agents = 1,
                                     .domain_size = domain,
                                     .parity_noise = noise,
                                     .parity_mask = mask});
  };
  const std::pair<absl::StatusOr<std::unique_ptr<PopulationSource>>,
                  const char*>
      cases[] = {
          {create(12, 0, 0.1), "power of two 2^d with d >= 2, got 12"},
          {create(2, 0, 0.1), "power of two 2^d with d >= 2, got 2"},
          {create(16, 8, 0.1),
           "parity_mask 8 does not fit the d - 1 = 3 feature bits"},
          {create(16, 0, 0.5), "parity_noise must be in [0, 0.5), got 0.5"},
          {create(16, 0, -0.01), "parity_noise"},
          {create(16, 0, std::numeric_limits<double>::quiet_NaN()),
           "parity_noise"},
      };
  for (const auto& [result, expected] : cases) {
    EXPECT_THAT(result, StatusIs(absl::StatusCode::kInvalidArgument))
        << expected;
    EXPECT_THAT(std::string(result.status().message()), HasSubstr(expected));
  }
  EXPECT_OK(create(16, 7, 0.49));
  EXPECT_OK(create(1u << 20, (1u << 19) - 1, 0));
}

}  // namespace
}  // namespace ldp
