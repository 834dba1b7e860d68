#include "server/store/storage_codec.h"

#include <cmath>
#include <limits>
#include <vector>

#include "gtest/gtest.h"
#include "proto/ldp/storage/v1/storage.pb.h"
#include "tests/server/core/example_plan.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

namespace pb = ::ldp::storage::v1;
using testing::StatusIs;

std::vector<ReportPayload> Examples() {
  return {
      ScalarReport{.level = 0},
      ScalarReport{.level = -123456789012},
      ScalarReport{.level = INT64_MAX},
      ScalarReport{.level = INT64_MIN},
      FrequencyReport(ItemReport{.item = 0}),
      FrequencyReport(ItemReport{.item = UINT32_MAX}),
      FrequencyReport(BitVectorReport{.words = {}}),
      FrequencyReport(BitVectorReport{.words = {0x8000000000000001, 7}}),
      FrequencyReport(
          BitVectorReport{.words = {0x8000000000000001, 7}, .num_bits = 67}),
      FrequencyReport(
          BitVectorReport{.words = {0x8000000000000001, 7}, .num_bits = 128}),
      FrequencyReport(BitVectorReport{.words = {0x5}, .num_bits = 8}),
      FrequencyReport(HashedReport{.seed = ~uint64_t{0}, .bucket = 3}),
      FrequencyReport(HashedReport{.seed = 0, .bucket = 0}),
      FrequencyReport(SubsetReport{.items = {1, 5, 1000000}}),
      FrequencyReport(SubsetReport{.items = {}}),
      FrequencyReport(SketchReport{.row = 2, .column = 9, .bits = {1}}),
      FrequencyReport(SketchReport{.row = 0, .column = 0, .bits = {3, 4, 5}}),
      FrequencyReport(
          SketchReport{.row = 2, .column = 9, .bits = {1}, .num_bits = 1}),
      FrequencyReport(SketchReport{
          .row = 0, .column = 0, .bits = {3, 4, 5}, .num_bits = 130}),
      WorkloadReport{.group = 0, .inner = ItemReport{.item = 5}},
      WorkloadReport{.group = 4, .inner = ItemReport{.item = 5}},
      WorkloadReport{.group = 0, .inner = ItemReport{.item = 0}},
      WorkloadReport{.group = UINT32_MAX,
                     .inner = BitVectorReport{.words = {9}}},
      WorkloadReport{.group = UINT32_MAX,
                     .inner = BitVectorReport{.words = {9}, .num_bits = 4}},
      WorkloadReport{.group = 1,
                     .inner = HashedReport{.seed = 77, .bucket = 1}},
  };
}

TEST(StorageCodecPayload, RoundTripsEveryAlternative) {
  for (const ReportPayload& payload : Examples()) {
    const std::string bytes = EncodePayload(payload);
    absl::StatusOr<ReportPayload> decoded = DecodePayload(bytes);
    ASSERT_OK(decoded);
    EXPECT_TRUE(*decoded == payload);
    EXPECT_EQ(EncodePayload(*decoded), bytes);
  }
}

TEST(StorageCodecPayload, EqualPayloadsHaveEqualBytesAndOnlyThen) {
  const std::vector<ReportPayload> examples = Examples();
  for (size_t i = 0; i < examples.size(); ++i) {
    for (size_t j = 0; j < examples.size(); ++j) {
      EXPECT_EQ(EncodePayload(examples[i]) == EncodePayload(examples[j]),
                i == j)
          << i << " " << j;
    }
  }
}

// The stored form is a storage.proto StoredPayload, serialized
// deterministically; a report without a length keeps num_bits 0 (rows
// migrated from payload version 1).
TEST(StorageCodecPayload, IsAStoredPayloadMessage) {
  pb::StoredPayload m;
  ASSERT_TRUE(m.ParseFromString(EncodePayload(
      FrequencyReport(BitVectorReport{.words = {0x5, 9}, .num_bits = 70}))));
  ASSERT_TRUE(m.has_bit_vector());
  EXPECT_EQ(m.bit_vector().num_bits(), 70u);
  ASSERT_EQ(m.bit_vector().words_size(), 2);
  EXPECT_EQ(m.bit_vector().words(1), 9u);
  // Item 5: field 1 (item), length 2, field 1 varint 5.
  EXPECT_EQ(EncodePayload(FrequencyReport(ItemReport{.item = 5})),
            std::string("\x0a\x02\x08\x05", 4));
}

std::string Serialized(const pb::StoredPayload& m) {
  std::string bytes;
  EXPECT_TRUE(m.SerializeToString(&bytes));
  return bytes;
}

TEST(StorageCodecPayload, RejectsAnythingItCannotHaveWritten) {
  const std::string good =
      EncodePayload(FrequencyReport(ItemReport{.item = 5}));
  std::vector<std::string> bad = {
      "",                                  // no kind
      std::string("\x01\x00\x05", 3),      // legacy version 1
      std::string("\x02\x01\x08\x01", 4),  // legacy version 2
      good + "x",                          // trailing byte
      good.substr(0, good.size() - 1),     // truncated
      std::string("\x0a\x00\x0a\x00", 4),  // item twice
      std::string("\x0a\x02\x08\x00", 4),  // default written out
      std::string("\x0a\x06\x08\x80\x80\x80\x80\x10", 8),  // item ≥ 2^32
      std::string("\x0a\x03\x08\x85\x00", 5),              // overlong varint
      std::string("\x42\x00", 2),                          // unknown kind 8
      std::string("\x0a\x02\x18\x01", 4),                  // unknown field
      std::string("\x3a\x02\x08\x02", 4),                  // workload, no inner
  };
  // Bits written unpacked (protobuf would accept them).
  bad.push_back(std::string("\x12\x09\x09", 3) + std::string("\x05", 1) +
                std::string(7, '\0'));
  for (size_t i = 0; i < bad.size(); ++i) {
    EXPECT_THAT(DecodePayload(bad[i]),
                StatusIs(absl::StatusCode::kInvalidArgument))
        << i;
  }
  // Every prefix of every example is refused.
  for (const ReportPayload& payload : Examples()) {
    const std::string bytes = EncodePayload(payload);
    for (size_t length = 0; length < bytes.size(); ++length) {
      EXPECT_THAT(DecodePayload(bytes.substr(0, length)),
                  StatusIs(absl::StatusCode::kInvalidArgument))
          << length;
    }
  }
  // A workload's inner report is one a strategy outputs: a subset or a
  // sketch has no field there, and a nested workload none either.
  pb::StoredPayload nested;
  nested.mutable_workload()->set_group(2);
  EXPECT_THAT(DecodePayload(Serialized(nested)),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(StorageCodecPlan, RoundTripsEveryField) {
  PlanDecisions plan = testing::ExamplePlan();
  // Not in the legacy format's example: the general Hadamard response's t.
  std::get<FrequencyOracleSpec>(plan.questions[1].randomizer).rows_per_item = 7;
  // ... nor dBitFlipPM's d.
  std::get<FrequencyOracleSpec>(plan.questions[1].randomizer).sampled_buckets =
      9;
  std::get<FrequencyOracleSpec>(plan.questions[1].randomizer).num_cohorts = 33;
  absl::StatusOr<PlanDecisions> decoded = DecodePlan(EncodePlan(plan));
  ASSERT_OK(decoded);
  EXPECT_EQ(decoded->strategy, plan.strategy);
  EXPECT_EQ(decoded->explanation, plan.explanation);
  EXPECT_FALSE(decoded->from_program);
  ASSERT_EQ(decoded->questions.size(), 2u);
  const auto& real =
      std::get<RealMechanismSpec>(decoded->questions[0].randomizer);
  EXPECT_EQ(real.kind, RealMechanismKind::kDiscreteLaplace);
  EXPECT_EQ(real.epsilon, 0.5);
  EXPECT_EQ(real.bound, 2.5);
  EXPECT_EQ(real.resolution_bits, 7);
  const auto& oracle =
      std::get<FrequencyOracleSpec>(decoded->questions[1].randomizer);
  EXPECT_EQ(decoded->questions[1].epsilon_nanos, 250'000'000);
  EXPECT_EQ(decoded->questions[1].weight, 1'000'000u);
  EXPECT_EQ(oracle.kind, FrequencyOracleKind::kHadamardCountMeanSketch);
  EXPECT_EQ(oracle.domain_size, 1u << 30);
  EXPECT_EQ(oracle.num_hashes, 16u);
  EXPECT_EQ(oracle.num_columns, 1024u);
  EXPECT_EQ(oracle.subset_size, 2u);
  EXPECT_EQ(oracle.num_buckets, 1u);
  EXPECT_EQ(oracle.hash_seed, 0xfeedfacecafebeefu);
  EXPECT_EQ(oracle.epsilon_permanent, 3.5);
  EXPECT_EQ(oracle.rows_per_item, 7u);
  EXPECT_EQ(oracle.sampled_buckets, 9u);
  EXPECT_EQ(oracle.num_cohorts, 33u);
  EXPECT_EQ(EncodePlan(*decoded), EncodePlan(plan));
}

// The kinds are stored by ordinal; the last one round-trips and the next
// is refused (the check above).
TEST(StorageCodecPlan, RoundTripsTheLastOracleKind) {
  PlanDecisions plan = testing::ExamplePlan();
  std::get<FrequencyOracleSpec>(plan.questions[1].randomizer).kind =
      FrequencyOracleKind::kRappor;
  absl::StatusOr<PlanDecisions> decoded = DecodePlan(EncodePlan(plan));
  ASSERT_OK(decoded);
  EXPECT_EQ(
      std::get<FrequencyOracleSpec>(decoded->questions[1].randomizer).kind,
      FrequencyOracleKind::kRappor);
}

// Doubles keep their exact bits, negative zero and NaN included.
TEST(StorageCodecPlan, KeepsDoublesBitForBit) {
  PlanDecisions plan = testing::ExamplePlan();
  auto& real = std::get<RealMechanismSpec>(plan.questions[0].randomizer);
  real.bound = -0.0;
  real.epsilon = std::numeric_limits<double>::quiet_NaN();
  real.num_cells = -3;
  real.resolution_bits = -7;
  const std::string bytes = EncodePlan(plan);
  absl::StatusOr<PlanDecisions> decoded = DecodePlan(bytes);
  ASSERT_OK(decoded);
  const auto& back =
      std::get<RealMechanismSpec>(decoded->questions[0].randomizer);
  EXPECT_TRUE(std::signbit(back.bound));
  EXPECT_TRUE(std::isnan(back.epsilon));
  EXPECT_EQ(back.num_cells, -3);
  EXPECT_EQ(back.resolution_bits, -7);
  EXPECT_EQ(EncodePlan(*decoded), bytes);
  EXPECT_NE(bytes, EncodePlan(testing::ExamplePlan()));
}

pb::StoredPlan AsMessage(const PlanDecisions& plan) {
  pb::StoredPlan m;
  EXPECT_TRUE(m.ParseFromString(EncodePlan(plan)));
  return m;
}

std::string Serialized(const pb::StoredPlan& m) {
  std::string bytes;
  EXPECT_TRUE(m.SerializeToString(&bytes));
  return bytes;
}

TEST(StorageCodecPlan, RejectsCorruptPlans) {
  const std::string good = EncodePlan(testing::ExamplePlan());
  EXPECT_THAT(DecodePlan(""), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(DecodePlan(good + "x"),
              StatusIs(absl::StatusCode::kInvalidArgument));
  for (size_t length = 1; length < good.size(); ++length) {
    EXPECT_THAT(DecodePlan(good.substr(0, length)),
                StatusIs(absl::StatusCode::kInvalidArgument))
        << length;
  }
  // Anything out of range, field by field.
  std::vector<pb::StoredPlan> bad;
  bad.push_back(AsMessage(testing::ExamplePlan()));
  bad.back().mutable_decisions()->set_strategy(2);
  bad.push_back(AsMessage(testing::ExamplePlan()));
  bad.back().mutable_decisions()->set_explanation(
      std::string((1 << 16) + 1, 'x'));
  bad.push_back(AsMessage(testing::ExamplePlan()));
  bad.back()
      .mutable_decisions()
      ->mutable_questions(0)
      ->mutable_real()
      ->set_kind(static_cast<uint32_t>(RealMechanismKind::kHybrid) + 1);
  bad.push_back(AsMessage(testing::ExamplePlan()));
  bad.back()
      .mutable_decisions()
      ->mutable_questions(1)
      ->mutable_oracle()
      ->set_kind(static_cast<uint32_t>(FrequencyOracleKind::kRappor) + 1);
  bad.push_back(AsMessage(testing::ExamplePlan()));
  bad.back().mutable_decisions()->mutable_questions(1)->clear_randomizer();
  bad.push_back(AsMessage(testing::ExamplePlan()));
  bad.back()
      .mutable_decisions()
      ->mutable_questions(1)
      ->mutable_strategy()
      ->set_kind(static_cast<uint32_t>(StrategyKind::kFakeDataUnaryRandom) + 1);
  bad.push_back(AsMessage(testing::ExamplePlan()));
  for (int i = 0; i < 13; ++i) {
    bad.back()
        .mutable_decisions()
        ->mutable_questions(1)
        ->mutable_strategy()
        ->add_attribute_sizes(2);
  }
  bad.push_back(AsMessage(testing::ExamplePlan()));
  for (int i = 0; i < 65; ++i) {
    bad.back()
        .mutable_decisions()
        ->mutable_questions(1)
        ->mutable_strategy()
        ->add_level_weights(1);
  }
  bad.push_back(AsMessage(testing::ExamplePlan()));
  for (int i = 0; i < kMaxQuestionsPerRound; ++i) {
    *bad.back().mutable_decisions()->add_questions() =
        bad.back().decisions().questions(0);
  }
  bad.push_back(pb::StoredPlan());  // no decisions
  for (size_t i = 0; i < bad.size(); ++i) {
    EXPECT_THAT(DecodePlan(Serialized(bad[i])),
                StatusIs(absl::StatusCode::kInvalidArgument))
        << i;
  }
}

TEST(StorageCodecPlan, RoundTripsProgramRounds) {
  PlanDecisions plan = testing::ExamplePlan();
  plan.strategy = SplitStrategy::kSampleSplitting;
  plan.from_program = true;
  plan.round_name = "learn a";
  plan.slice = {.begin = 0.5, .end = 0.75};
  plan.questions_bytes = std::string("\0\1questions", 11);
  absl::StatusOr<PlanDecisions> decoded = DecodePlan(EncodePlan(plan));
  ASSERT_OK(decoded);
  EXPECT_TRUE(decoded->from_program);
  EXPECT_EQ(decoded->round_name, "learn a");
  EXPECT_EQ(decoded->slice, plan.slice);
  EXPECT_EQ(decoded->questions_bytes, plan.questions_bytes);
  EXPECT_EQ(EncodePlan(*decoded), EncodePlan(plan));
  // A program round at [0, 0.5) writes the slice's 0 as a default: it still
  // reads back as a program round.
  plan.slice = {.begin = 0, .end = 0.5};
  plan.round_name = "";
  plan.questions_bytes = "";
  decoded = DecodePlan(EncodePlan(plan));
  ASSERT_OK(decoded);
  EXPECT_TRUE(decoded->from_program);
  EXPECT_EQ(decoded->slice, plan.slice);
  // A slice outside [0, 1) is corrupt.
  plan.slice = {.begin = 0.5, .end = 1.5};
  EXPECT_THAT(DecodePlan(EncodePlan(plan)),
              StatusIs(absl::StatusCode::kInvalidArgument));
  plan.slice = {.begin = 0.5, .end = 0.5};
  EXPECT_THAT(DecodePlan(EncodePlan(plan)),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

// A workload question's strategy is stored whole (an optimized matrix with
// it), so a restart never plans again.
TEST(StorageCodecPlan, RoundTripsWorkloadStrategies) {
  PlanDecisions plan = testing::ExamplePlan();
  plan.questions.push_back(testing::MatrixStrategyQuestion());
  plan.questions.push_back(
      {.epsilon_nanos = 7,
       .randomizer = StrategyDecision{.spec = {.kind = StrategyKind::kFourier,
                                               .epsilon = 7e-9,
                                               .domain_size = 256,
                                               .num_bits = 8,
                                               .order = 2,
                                               .level_weights = {0.25, 1.5},
                                               .rows = 0,
                                               .matrix = {}},
                                      .description = "fourier d=8 k=2"}});
  plan.questions.push_back(
      {.epsilon_nanos = 9,
       .randomizer = StrategyDecision{
           .spec = {.kind = StrategyKind::kRandomSamplingFakeData,
                    .epsilon = 9e-9,
                    .domain_size = 24,
                    .attribute_sizes = {2, 3, 4}},
           .description = "sampling_fake_data d=3"}});
  const std::string bytes = EncodePlan(plan);
  absl::StatusOr<PlanDecisions> decoded = DecodePlan(bytes);
  ASSERT_OK(decoded);
  ASSERT_EQ(decoded->questions.size(), 5u);
  for (int q = 2; q < 5; ++q) {
    EXPECT_EQ(std::get<StrategyDecision>(decoded->questions[q].randomizer),
              std::get<StrategyDecision>(plan.questions[q].randomizer));
    EXPECT_EQ(decoded->questions[q].epsilon_nanos,
              plan.questions[q].epsilon_nanos);
  }
  EXPECT_EQ(EncodePlan(*decoded), bytes);
  for (size_t length = 1; length < bytes.size(); length += 7) {
    EXPECT_THAT(DecodePlan(bytes.substr(0, length)),
                StatusIs(absl::StatusCode::kInvalidArgument))
        << length;
  }
}

}  // namespace
}  // namespace ldp
