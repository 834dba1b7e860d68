// The readers of the byte formats stored before storage.proto (kept for the
// schema migration; legacy_codec.h). The cases are those the old codecs'
// tests (payload_codec_test, plan_codec_test, byte_io_test) had for
// decoding; legacy bytes come from LegacyWriter below, a copy of the old
// encoders kept here as the tests' oracle.
#include "server/store/legacy_codec.h"

#include <bit>

#include "gtest/gtest.h"
#include "server/store/storage_codec.h"
#include "tests/server/core/example_plan.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using testing::StatusIs;

// The old ByteWriter and plan encoder (version 2; version 1 is version 2
// without the trailer).
class LegacyWriter {
 public:
  void Varint(uint64_t value) {
    while (value >= 0x80) {
      out_.push_back(static_cast<char>((value & 0x7f) | 0x80));
      value >>= 7;
    }
    out_.push_back(static_cast<char>(value));
  }
  void SignedVarint(int64_t value) {
    const uint64_t bits = static_cast<uint64_t>(value);
    Varint((bits << 1) ^ (value < 0 ? ~uint64_t{0} : 0));
  }
  void Fixed64(uint64_t value) {
    for (int i = 0; i < 8; ++i)
      out_.push_back(static_cast<char>(value >> (8 * i)));
  }
  void Double(double value) { Fixed64(std::bit_cast<uint64_t>(value)); }
  void Bytes(std::string_view bytes) {
    Varint(bytes.size());
    out_.append(bytes);
  }
  void Doubles(const std::vector<double>& values) {
    Varint(values.size());
    for (double v : values) Double(v);
  }

  void Question(const QuestionDecision& q) {
    SignedVarint(q.epsilon_nanos);
    Varint(q.weight);
    if (const auto* s = std::get_if<StrategyDecision>(&q.randomizer)) {
      Varint(3);
      Varint(static_cast<uint64_t>(s->spec.kind));
      Double(s->spec.epsilon);
      for (uint32_t v : {s->spec.domain_size, s->spec.branching,
                         s->spec.num_bits, s->spec.order, s->spec.rows}) {
        Varint(v);
      }
      Doubles(s->spec.level_weights);
      Doubles(s->spec.matrix);
      Bytes(s->description);
      Double(s->v_max);
      Double(s->v_avg);
      Bytes(s->best_fixed);
      Double(s->best_fixed_v_max);
      Double(s->gamma2_lower);
      Double(s->gamma2_upper);
    } else if (const auto* r = std::get_if<RealMechanismSpec>(&q.randomizer)) {
      Varint(0);
      Varint(static_cast<uint64_t>(r->kind));
      Double(r->epsilon);
      Double(r->bound);
      SignedVarint(r->resolution_bits);
      SignedVarint(r->num_cells);
    } else {
      const auto& o = std::get<FrequencyOracleSpec>(q.randomizer);
      Varint(1);
      Varint(static_cast<uint64_t>(o.kind));
      Double(o.epsilon);
      for (uint32_t v : {o.domain_size, o.num_buckets, o.subset_size,
                         o.num_hashes, o.num_columns}) {
        Varint(v);
      }
      Fixed64(o.hash_seed);
      Double(o.epsilon_permanent);
    }
  }

  static std::string Plan(const PlanDecisions& plan) {
    LegacyWriter out;
    out.out_.push_back(2);
    out.Varint(static_cast<uint64_t>(plan.strategy));
    out.Bytes(plan.explanation);
    out.Varint(plan.questions.size());
    for (const QuestionDecision& q : plan.questions) out.Question(q);
    out.Varint(plan.from_program ? 1 : 0);
    if (plan.from_program) {
      out.Bytes(plan.round_name);
      out.Double(plan.slice.begin);
      out.Double(plan.slice.end);
      out.Bytes(plan.questions_bytes);
    }
    return out.out_;
  }

 private:
  std::string out_;
};

// Little-endian bytes of one 64-bit word, as the old writer wrote.
std::string Word(uint64_t word) {
  std::string bytes;
  for (int i = 0; i < 8; ++i)
    bytes.push_back(static_cast<char>(word >> (8 * i)));
  return bytes;
}

// Rows written before lengths were kept (version 1) decode with num_bits = 0
// (the legacy marker).
TEST(LegacyPayload, DecodesVersionOneBitVectorsWithoutALength) {
  const std::string bits = std::string("\x01\x01\x01", 3) + Word(0x5);
  absl::StatusOr<ReportPayload> decoded = DecodeLegacyPayload(bits);
  ASSERT_OK(decoded);
  EXPECT_TRUE(*decoded ==
              ReportPayload(FrequencyReport(BitVectorReport{.words = {0x5}})));

  const std::string sketch = std::string("\x01\x04\x02\x00\x01", 5) + Word(3);
  decoded = DecodeLegacyPayload(sketch);
  ASSERT_OK(decoded);
  EXPECT_TRUE(*decoded == ReportPayload(FrequencyReport(SketchReport{
                              .row = 2, .column = 0, .bits = {3}})));

  const std::string workload = std::string("\x01\x06\x03\x01\x01", 5) + Word(9);
  decoded = DecodeLegacyPayload(workload);
  ASSERT_OK(decoded);
  EXPECT_TRUE(*decoded ==
              ReportPayload(WorkloadReport{
                  .group = 3, .inner = BitVectorReport{.words = {9}}}));
}

// Every alternative, as the old encoder wrote it, upgrades to the payload's
// current bytes.
TEST(LegacyPayload, UpgradesEveryAlternative) {
  const std::pair<std::string, ReportPayload> cases[] = {
      {std::string("\x02\x01\x08\x01", 4) + Word(0x5),
       FrequencyReport(BitVectorReport{.words = {0x5}, .num_bits = 8})},
      {std::string("\x01\x00\x05", 3), FrequencyReport(ItemReport{.item = 5})},
      {std::string("\x01\x02", 2) + Word(77) + "\x03",
       FrequencyReport(HashedReport{.seed = 77, .bucket = 3})},
      {std::string("\x01\x03\x02\x01\x05", 5),
       FrequencyReport(SubsetReport{.items = {1, 5}})},
      {std::string("\x02\x04\x02\x09\x01\x01", 6) + Word(1),
       FrequencyReport(
           SketchReport{.row = 2, .column = 9, .bits = {1}, .num_bits = 1})},
      {std::string("\x01\x05\x03", 3), ScalarReport{.level = -2}},
      {std::string("\x01\x06\x04\x00\x05", 5),
       WorkloadReport{.group = 4, .inner = ItemReport{.item = 5}}},
      {std::string("\x02\x06\x01\x01\x04\x01", 6) + Word(9),
       WorkloadReport{.group = 1,
                      .inner = BitVectorReport{.words = {9}, .num_bits = 4}}},
  };
  for (const auto& [bytes, payload] : cases) {
    absl::StatusOr<ReportPayload> decoded = DecodeLegacyPayload(bytes);
    ASSERT_OK(decoded);
    EXPECT_TRUE(*decoded == payload);
    EXPECT_EQ(UpgradeLegacyPayload(bytes), EncodePayload(payload));
  }
}

TEST(LegacyPayload, RejectsAnythingTheOldCodeCannotHaveWritten) {
  const std::string good = std::string("\x01\x00\x05", 3);
  std::string wrong_version = good;
  wrong_version[0] = 2;
  const std::string bad[] = {
      "",
      wrong_version,
      std::string("\x01\x09\x00", 3),                  // unknown tag
      good + "x",                                      // trailing byte
      std::string("\x01\x00", 2),                      // item missing
      std::string("\x01\x00\x80\x80\x80\x80\x10", 7),  // item ≥ 2^32
      std::string("\x01\x00\x80", 3),                  // truncated varint
      std::string("\x01\x00\x85\x00", 4),              // overlong varint
      std::string("\x01\x05", 2) + std::string(10, '\xff') +
          "\x01",                                                    // 11 bytes
      std::string("\x01\x05", 2) + std::string(9, '\xff') + "\x02",  // > 2^64
      std::string("\x01\x01\x05", 3),                  // 5 words, no data
      std::string("\x01\x01\x02", 3) + Word(1),        // 2 words, 1 given
      std::string("\x01\x02\x01\x02", 4),              // seed truncated
      std::string("\x01\x05", 2),                      // level missing
      std::string("\x01\x06\x02", 3),                  // workload, no inner
      std::string("\x01\x06\x02\x05\x00", 5),          // inner is a scalar
      std::string("\x01\x06\x02\x03\x00", 5),          // inner is a subset
      std::string("\x01\x06\x02\x06\x00\x00\x00", 7),  // nested workload
      std::string("\x03\x00\x05", 3),                  // unknown version
      std::string("\x02\x01\x00\x01", 4) + Word(5),    // v2, num_bits 0
      std::string("\x02\x01", 2),                      // v2, no length
      std::string("\x02\x04\x00\x00\x00\x01", 6) + Word(1),  // sketch 0
      std::string("\x02\x05\x03", 3),                        // v2 scalar
      std::string("\x02\x06\x02\x00\x05", 5),                // v2, no bits
  };
  for (const std::string& bytes : bad) {
    EXPECT_THAT(DecodeLegacyPayload(bytes),
                StatusIs(absl::StatusCode::kInvalidArgument));
    EXPECT_EQ(UpgradeLegacyPayload(bytes), std::nullopt);
  }
}

TEST(LegacyPlan, UpgradesEveryField) {
  PlanDecisions plan = testing::ExamplePlan();
  plan.questions.push_back(testing::MatrixStrategyQuestion());
  const std::string bytes = LegacyWriter::Plan(plan);
  absl::StatusOr<PlanDecisions> decoded = DecodeLegacyPlan(bytes);
  ASSERT_OK(decoded);
  EXPECT_EQ(EncodePlan(*decoded), EncodePlan(plan));
  EXPECT_EQ(UpgradeLegacyPlan(bytes), EncodePlan(plan));
  EXPECT_EQ(std::get<StrategyDecision>(decoded->questions[2].randomizer),
            std::get<StrategyDecision>(plan.questions[2].randomizer));

  plan.from_program = true;
  plan.round_name = "learn a";
  plan.slice = {.begin = 0.5, .end = 0.75};
  plan.questions_bytes = std::string("\0\1questions", 11);
  decoded = DecodeLegacyPlan(LegacyWriter::Plan(plan));
  ASSERT_OK(decoded);
  EXPECT_TRUE(decoded->from_program);
  EXPECT_EQ(decoded->round_name, "learn a");
  EXPECT_EQ(decoded->slice, plan.slice);
  EXPECT_EQ(decoded->questions_bytes, plan.questions_bytes);
  EXPECT_EQ(UpgradeLegacyPlan(LegacyWriter::Plan(plan)), EncodePlan(plan));
  // A slice outside [0, 1) is corrupt.
  plan.slice = {.begin = 0.5, .end = 1.5};
  EXPECT_THAT(DecodeLegacyPlan(LegacyWriter::Plan(plan)),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(LegacyPlan, RejectsCorruptPlans) {
  const std::string good = LegacyWriter::Plan(testing::ExamplePlan());
  EXPECT_THAT(DecodeLegacyPlan(""),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(DecodeLegacyPlan(good + "x"),
              StatusIs(absl::StatusCode::kInvalidArgument));
  for (size_t length = 1; length < good.size(); ++length) {
    EXPECT_THAT(DecodeLegacyPlan(good.substr(0, length)),
                StatusIs(absl::StatusCode::kInvalidArgument))
        << length;
    EXPECT_EQ(UpgradeLegacyPlan(good.substr(0, length)), std::nullopt);
  }
  std::string bad_strategy = good;
  bad_strategy[1] = 2;
  EXPECT_THAT(DecodeLegacyPlan(bad_strategy),
              StatusIs(absl::StatusCode::kInvalidArgument));
  std::string bad_version = good;
  bad_version[0] = 3;
  EXPECT_THAT(DecodeLegacyPlan(bad_version),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

// Databases written before program rounds existed hold version-1 plans: the
// same bytes without the trailer.
TEST(LegacyPlan, ReadsVersionOnePlans) {
  std::string v1 = LegacyWriter::Plan(testing::ExamplePlan());
  ASSERT_EQ(v1.back(), 0);  // "not a program round"
  v1.pop_back();
  v1[0] = 1;
  absl::StatusOr<PlanDecisions> decoded = DecodeLegacyPlan(v1);
  ASSERT_OK(decoded);
  EXPECT_FALSE(decoded->from_program);
  EXPECT_EQ(decoded->questions.size(), 2u);
  EXPECT_EQ(UpgradeLegacyPlan(v1), EncodePlan(testing::ExamplePlan()));
}

// The current format is never mistaken for a legacy one: its first byte is
// a protobuf tag, never 1 or 2.
TEST(LegacyCodec, CurrentBytesAreNotLegacy) {
  EXPECT_EQ(UpgradeLegacyPlan(EncodePlan(testing::ExamplePlan())),
            std::nullopt);
  EXPECT_EQ(UpgradeLegacyPayload(EncodePayload(ScalarReport{.level = 1})),
            std::nullopt);
  EXPECT_EQ(UpgradeLegacyPayload(
                EncodePayload(FrequencyReport(ItemReport{.item = 0}))),
            std::nullopt);
}

}  // namespace
}  // namespace ldp
