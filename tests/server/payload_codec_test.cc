#include "server/payload_codec.h"

#include <vector>

#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using testing::StatusIs;

std::vector<ReportPayload> Examples() {
  return {
      ScalarReport{.level = 0},
      ScalarReport{.level = -123456789012},
      ScalarReport{.level = INT64_MAX},
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
      FrequencyReport(SubsetReport{.items = {1, 5, 1000000}}),
      FrequencyReport(SketchReport{.row = 2, .column = 9, .bits = {1}}),
      FrequencyReport(SketchReport{.row = 0, .column = 0, .bits = {3, 4, 5}}),
      FrequencyReport(
          SketchReport{.row = 2, .column = 9, .bits = {1}, .num_bits = 1}),
      FrequencyReport(SketchReport{
          .row = 0, .column = 0, .bits = {3, 4, 5}, .num_bits = 130}),
      WorkloadReport{.group = 0, .inner = ItemReport{.item = 5}},
      WorkloadReport{.group = 4, .inner = ItemReport{.item = 5}},
      WorkloadReport{.group = UINT32_MAX, .inner = BitVectorReport{.words = {9}}},
      WorkloadReport{.group = UINT32_MAX,
                     .inner = BitVectorReport{.words = {9}, .num_bits = 4}},
      WorkloadReport{.group = 1, .inner = HashedReport{.seed = 77, .bucket = 1}},
  };
}

TEST(PayloadCodec, RoundTripsEveryAlternative) {
  for (const ReportPayload& payload : Examples()) {
    absl::StatusOr<ReportPayload> decoded =
        DecodePayload(EncodePayload(payload));
    ASSERT_OK(decoded);
    EXPECT_TRUE(*decoded == payload);
  }
}

TEST(PayloadCodec, EqualPayloadsHaveEqualBytesAndOnlyThen) {
  const std::vector<ReportPayload> examples = Examples();
  for (size_t i = 0; i < examples.size(); ++i) {
    for (size_t j = 0; j < examples.size(); ++j) {
      EXPECT_EQ(EncodePayload(examples[i]) == EncodePayload(examples[j]),
                i == j)
          << i << " " << j;
    }
  }
}

// Little-endian bytes of one 64-bit word, as ByteWriter::Fixed64 writes.
std::string Word(uint64_t word) {
  std::string bytes;
  for (int i = 0; i < 8; ++i) bytes.push_back(static_cast<char>(word >> (8 * i)));
  return bytes;
}

// Rows written before lengths were kept (version 1) still decode, with
// num_bits = 0 (the legacy marker), and re-encode to the same bytes.
TEST(PayloadCodec, DecodesVersionOneBitVectorsWithoutALength) {
  const std::string bits = std::string("\x01\x01\x01", 3) + Word(0x5);
  absl::StatusOr<ReportPayload> decoded = DecodePayload(bits);
  ASSERT_OK(decoded);
  EXPECT_TRUE(*decoded ==
              ReportPayload(FrequencyReport(BitVectorReport{.words = {0x5}})));
  EXPECT_EQ(EncodePayload(*decoded), bits);

  const std::string sketch = std::string("\x01\x04\x02\x00\x01", 5) + Word(3);
  decoded = DecodePayload(sketch);
  ASSERT_OK(decoded);
  EXPECT_TRUE(*decoded == ReportPayload(FrequencyReport(SketchReport{
                              .row = 2, .column = 0, .bits = {3}})));
  EXPECT_EQ(EncodePayload(*decoded), sketch);

  const std::string workload =
      std::string("\x01\x06\x03\x01\x01", 5) + Word(9);
  decoded = DecodePayload(workload);
  ASSERT_OK(decoded);
  EXPECT_TRUE(*decoded == ReportPayload(WorkloadReport{
                              .group = 3,
                              .inner = BitVectorReport{.words = {9}}}));
}

// A report with a length is written as version 2, the length before the
// words; payloads without bits keep their version-1 bytes.
TEST(PayloadCodec, WritesTheLengthAsVersionTwo) {
  EXPECT_EQ(EncodePayload(FrequencyReport(
                BitVectorReport{.words = {0x5}, .num_bits = 8})),
            std::string("\x02\x01\x08\x01", 4) + Word(0x5));
  EXPECT_EQ(EncodePayload(FrequencyReport(ItemReport{.item = 5})),
            std::string("\x01\x00\x05", 3));
}

TEST(PayloadCodec, RejectsAnythingItCannotHaveWritten) {
  const std::string good =
      EncodePayload(FrequencyReport(ItemReport{.item = 5}));
  std::string wrong_version = good;
  wrong_version[0] = 2;
  const std::string bad[] = {
      "",
      wrong_version,
      std::string("\x01\x09\x00", 3),                  // unknown tag
      good + "x",                                      // trailing byte
      std::string("\x01\x00", 2),                      // item missing
      std::string("\x01\x00\x80\x80\x80\x80\x10", 7),  // item ≥ 2^32
      std::string("\x01\x01\x05", 3),                  // 5 words, no data
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
      std::string("\x02\x05\x03", 3),                  // v2 scalar
      std::string("\x02\x06\x02\x00\x05", 5),          // v2, no bits
  };
  for (const std::string& bytes : bad) {
    EXPECT_THAT(DecodePayload(bytes),
                StatusIs(absl::StatusCode::kInvalidArgument));
  }
}

}  // namespace
}  // namespace ldp
