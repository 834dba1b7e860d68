#include "proto/convert/randomizer_convert.h"

#include <cmath>
#include <limits>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/proto/convert/convert_testing.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using ::ldp::testing::kInvalid;
using ::ldp::testing::ParseText;
using ::ldp::testing::ProtoEquals;
using ::ldp::testing::StatusIs;
using ::testing::HasSubstr;

TEST(RandomizerConvert, NanosAndEpsilonAreExactInverses) {
  for (int64_t nanos : {int64_t{1}, int64_t{7}, int64_t{999'999'999},
                        int64_t{1'000'000'000}, int64_t{1'234'567'891},
                        int64_t{123'456'789'012'345}, (int64_t{1} << 51) - 1}) {
    EXPECT_EQ(EpsilonToNanos(NanosToEpsilon(nanos)), nanos);
  }
  // A sweep of small values, where ledgers live.
  for (int64_t nanos = 1; nanos < 20'000'000'000; nanos = nanos * 3 + 1) {
    EXPECT_EQ(EpsilonToNanos(NanosToEpsilon(nanos)), nanos);
  }
  EXPECT_EQ(NanosToEpsilon(500'000'000), 0.5);
  EXPECT_EQ(EpsilonToNanos(1.0), 1'000'000'000);
}

TEST(RandomizerConvert, EpsilonToNanosSaturatesOddInputs) {
  EXPECT_EQ(EpsilonToNanos(-1), 0);
  EXPECT_EQ(EpsilonToNanos(std::nan("")), 0);
  EXPECT_EQ(EpsilonToNanos(std::numeric_limits<double>::infinity()), 0);
  EXPECT_EQ(EpsilonToNanos(1e300), std::numeric_limits<int64_t>::max());
}

TEST(RandomizerConvert, FrequencyOracleGoldens) {
  using K = FrequencyOracleKind;
  struct Golden {
    const char* text;
    FrequencyOracleSpec spec;
  };
  const Golden goldens[] = {
      {"grr {}", {.kind = K::kGeneralizedRandomizedResponse}},
      {"oue {}", {.kind = K::kOptimizedUnaryEncoding}},
      {"sue {}", {.kind = K::kSymmetricUnaryEncoding}},
      {"olh { num_buckets: 5 }",
       {.kind = K::kOptimizedLocalHashing, .num_buckets = 5}},
      {"subset_selection { subset_size: 3 }",
       {.kind = K::kSubsetSelection, .subset_size = 3}},
      {"hadamard_response {}", {.kind = K::kHadamardResponse}},
      {"hadamard_response { rows_per_item: 6 }",
       {.kind = K::kHadamardResponse, .rows_per_item = 6}},
      {"count_mean_sketch { num_hashes: 4 num_columns: 64 hash_seed: 77 }",
       {.kind = K::kCountMeanSketch,
        .num_hashes = 4,
        .num_columns = 64,
        .hash_seed = 77}},
      {"hadamard_count_mean_sketch { num_hashes: 2 num_columns: 32 "
       "hash_seed: 9 }",
       {.kind = K::kHadamardCountMeanSketch,
        .num_hashes = 2,
        .num_columns = 32,
        .hash_seed = 9}},
      {"longitudinal_unary_encoding { epsilon_permanent_nanos: 4000000000 }",
       {.kind = K::kLongitudinalUnaryEncoding, .epsilon_permanent = 4}},
      {"longitudinal_grr { epsilon_permanent_nanos: 3000000000 }",
       {.kind = K::kLongitudinalGrr, .epsilon_permanent = 3}},
      {"longitudinal_local_hashing { epsilon_permanent_nanos: 3000000000 "
       "num_buckets: 5 }",
       {.kind = K::kLongitudinalLocalHashing,
        .num_buckets = 5,
        .epsilon_permanent = 3}},
      {"dbit_flip { sampled_buckets: 4 }",
       {.kind = K::kDBitFlip, .sampled_buckets = 4}},
      {"rappor { epsilon_permanent_nanos: 3000000000 num_bits: 32 "
       "num_hashes: 2 num_cohorts: 8 hash_seed: 5 }",
       {.kind = K::kRappor,
        .num_hashes = 2,
        .num_columns = 32,
        .hash_seed = 5,
        .epsilon_permanent = 3,
        .num_cohorts = 8}},
  };
  for (const Golden& g : goldens) {
    const auto proto = ParseText<v1::RandomizerSpec>(
        std::string("epsilon_nanos: 1500000000 domain_size: 16 ") + g.text);
    absl::StatusOr<RandomizerConfig> config = RandomizerFromProto(proto);
    ASSERT_OK(config) << g.text;
    EXPECT_EQ(config->epsilon_nanos, 1'500'000'000);
    const auto* spec = std::get_if<FrequencyOracleSpec>(&config->mechanism);
    ASSERT_NE(spec, nullptr) << g.text;
    FrequencyOracleSpec want = g.spec;
    want.epsilon = 1.5;
    want.domain_size = 16;
    EXPECT_EQ(spec->kind, want.kind) << g.text;
    EXPECT_EQ(spec->epsilon, want.epsilon) << g.text;
    EXPECT_EQ(spec->domain_size, want.domain_size) << g.text;
    EXPECT_EQ(spec->num_buckets, want.num_buckets) << g.text;
    EXPECT_EQ(spec->subset_size, want.subset_size) << g.text;
    EXPECT_EQ(spec->num_hashes, want.num_hashes) << g.text;
    EXPECT_EQ(spec->num_columns, want.num_columns) << g.text;
    EXPECT_EQ(spec->hash_seed, want.hash_seed) << g.text;
    EXPECT_EQ(spec->epsilon_permanent, want.epsilon_permanent) << g.text;
    EXPECT_EQ(spec->rows_per_item, want.rows_per_item) << g.text;
    EXPECT_EQ(spec->sampled_buckets, want.sampled_buckets) << g.text;
    EXPECT_EQ(spec->num_cohorts, want.num_cohorts) << g.text;
    EXPECT_TRUE(*spec == want) << g.text;
    v1::RandomizerSpec back;
    ToProto(*config, &back);
    EXPECT_TRUE(ProtoEquals(back, proto));
  }
}

TEST(RandomizerConvert, RealMechanismGoldens) {
  using K = RealMechanismKind;
  struct Golden {
    const char* text;
    RealMechanismSpec spec;
  };
  const Golden goldens[] = {
      {"discrete_laplace { resolution_bits: 12 }",
       {.kind = K::kDiscreteLaplace, .resolution_bits = 12}},
      {"duchi {}", {.kind = K::kDuchi}},
      {"piecewise { num_cells: 64 }", {.kind = K::kPiecewise, .num_cells = 64}},
      {"hybrid { num_cells: 0 }", {.kind = K::kHybrid}},
  };
  for (const Golden& g : goldens) {
    const auto proto = ParseText<v1::RandomizerSpec>(
        std::string("epsilon_nanos: 250000000 ") + g.text);
    absl::StatusOr<RandomizerConfig> config = RandomizerFromProto(proto);
    ASSERT_OK(config) << g.text;
    const auto* spec = std::get_if<RealMechanismSpec>(&config->mechanism);
    ASSERT_NE(spec, nullptr) << g.text;
    EXPECT_EQ(spec->kind, g.spec.kind) << g.text;
    EXPECT_EQ(spec->epsilon, 0.25) << g.text;
    EXPECT_EQ(spec->bound, 1) << g.text;
    EXPECT_EQ(spec->resolution_bits, g.spec.resolution_bits) << g.text;
    EXPECT_EQ(spec->num_cells, g.spec.num_cells) << g.text;
    v1::RandomizerSpec back;
    ToProto(*config, &back);
    EXPECT_TRUE(ProtoEquals(back, proto));
  }
}

TEST(RandomizerConvert, StrategyGoldens) {
  const char* goldens[] = {
      "domain_size: 16 strategy { kind: IDENTITY }",
      "domain_size: 16 strategy { kind: HIERARCHICAL branching: 4 }",
      "domain_size: 16 strategy { kind: HAAR }",
      "domain_size: 8 strategy { kind: FOURIER num_bits: 3 order: 2 "
      "level_weights: [ 1, 0.5 ] }",
      "domain_size: 2 strategy { kind: MATRIX rows: 2 matrix: [ 0.7, 0.3, "
      "0.3, 0.7 ] }",
      "domain_size: 2 strategy { kind: FACTORIZATION rows: 1 matrix: [ 1, "
      "-1 ] }",
  };
  for (const char* text : goldens) {
    const auto proto = ParseText<v1::RandomizerSpec>(
        std::string("epsilon_nanos: 250000000 ") + text);
    absl::StatusOr<RandomizerConfig> config = RandomizerFromProto(proto);
    ASSERT_OK(config) << text;
    const auto* spec = std::get_if<StrategySpec>(&config->mechanism);
    ASSERT_NE(spec, nullptr) << text;
    EXPECT_EQ(spec->epsilon, 0.25) << text;
    EXPECT_EQ(spec->domain_size, proto.domain_size()) << text;
    EXPECT_EQ(spec->matrix.size(),
              static_cast<size_t>(proto.strategy().matrix_size()));
    v1::RandomizerSpec back;
    ToProto(*config, &back);
    EXPECT_TRUE(ProtoEquals(back, proto)) << text;
  }
  for (StrategyKind kind :
       {StrategyKind::kIdentity, StrategyKind::kHierarchical,
        StrategyKind::kHaar, StrategyKind::kFourier, StrategyKind::kMatrix,
        StrategyKind::kFactorization}) {
    absl::StatusOr<StrategyKind> back =
        StrategyKindFromProto(StrategyKindToProto(kind));
    ASSERT_OK(back);
    EXPECT_EQ(*back, kind);
  }
}

TEST(RandomizerConvert, RefusesOversizedStrategies) {
  v1::RandomizerSpec proto = ParseText<v1::RandomizerSpec>(
      "epsilon_nanos: 1 domain_size: 2 strategy { kind: MATRIX }");
  proto.mutable_strategy()->mutable_matrix()->Resize(
      static_cast<int>(kMaxStrategyMatrixEntries) + 1, 0.5);
  EXPECT_THAT(RandomizerFromProto(proto).status().message(),
              HasSubstr("at most 262144"));
  proto.mutable_strategy()->clear_matrix();
  proto.mutable_strategy()->mutable_level_weights()->Resize(65, 1.0);
  EXPECT_THAT(RandomizerFromProto(proto).status().message(),
              HasSubstr("level_weights has 65 values"));
}

TEST(RandomizerConvert, ConvertedSpecsBuildTheirMechanisms) {
  absl::StatusOr<RandomizerConfig> oue = RandomizerFromProto(
      ParseText<v1::RandomizerSpec>("epsilon_nanos: 1000000000 domain_size: 8 "
                                    "oue {}"));
  ASSERT_OK(oue);
  absl::StatusOr<std::unique_ptr<FrequencyOracle>> oracle =
      CreateFrequencyOracle(std::get<FrequencyOracleSpec>(oue->mechanism));
  ASSERT_OK(oracle);
  EXPECT_EQ((*oracle)->domain_size(), 8u);
  EXPECT_LE((*oracle)->epsilon(), 1.0);
  absl::StatusOr<RandomizerConfig> duchi = RandomizerFromProto(
      ParseText<v1::RandomizerSpec>("epsilon_nanos: 1000000000 duchi {}"));
  ASSERT_OK(duchi);
  EXPECT_OK(CreateRealMechanism(std::get<RealMechanismSpec>(duchi->mechanism)));
}

TEST(RandomizerConvert, RejectsMalformedSpecs) {
  struct Case {
    const char* name;
    const char* text;
    const char* message;
  };
  const Case cases[] = {
      {"zero epsilon", "oue {}", "epsilon_nanos must be in [1, 2^63 - 1]"},
      {"epsilon beyond int64", "epsilon_nanos: 9223372036854775808 oue {}",
       "epsilon_nanos must be in"},
      {"no mechanism", "epsilon_nanos: 1", "no mechanism set"},
      {"real with domain", "epsilon_nanos: 1 domain_size: 4 duchi {}",
       "domain_size must be 0"},
      {"resolution too fine",
       "epsilon_nanos: 1 discrete_laplace { resolution_bits: 31 }",
       "resolution_bits must be 0 to 30"},
      {"olh one bucket", "epsilon_nanos: 1 olh { num_buckets: 1 }",
       "num_buckets must be 0"},
      {"hadamard response with too many rows",
       "epsilon_nanos: 1 hadamard_response { rows_per_item: 13 }",
       "rows_per_item must be in [0, 12]"},
      {"longitudinal without permanent",
       "epsilon_nanos: 1 longitudinal_unary_encoding {}",
       "epsilon_permanent_nanos"},
      {"longitudinal GRR without permanent",
       "epsilon_nanos: 1 longitudinal_grr {}",
       "longitudinal_grr.epsilon_permanent_nanos"},
      {"longitudinal local hashing without permanent",
       "epsilon_nanos: 1 longitudinal_local_hashing { num_buckets: 4 }",
       "longitudinal_local_hashing.epsilon_permanent_nanos"},
      {"rappor without permanent", "epsilon_nanos: 1 rappor { num_bits: 8 }",
       "rappor.epsilon_permanent_nanos"},
      {"strategy without kind", "epsilon_nanos: 1 strategy {}",
       "strategy kind must be"},
      {"strategy with an unknown kind",
       "epsilon_nanos: 1 strategy { kind: 11 }", "got 11"},
      {"infinite matrix entry",
       "epsilon_nanos: 1 strategy { kind: MATRIX rows: 1 matrix: inf }",
       "strategy.matrix must be finite"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<RandomizerConfig> config =
        RandomizerFromProto(ParseText<v1::RandomizerSpec>(c.text));
    EXPECT_THAT(config, StatusIs(kInvalid)) << c.name;
    EXPECT_THAT(config.status().message(), HasSubstr(c.message)) << c.name;
  }
}

}  // namespace
}  // namespace ldp
