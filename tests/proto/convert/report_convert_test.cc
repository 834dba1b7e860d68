#include "proto/convert/report_convert.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/mechanisms/frequency_oracle_factory.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/proto/convert/convert_testing.h"
#include "tests/testing/statistics.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using ::ldp::testing::kInvalid;
using ::ldp::testing::ParseText;
using ::ldp::testing::ProtoEquals;
using ::ldp::testing::SeededGenerator;
using ::ldp::testing::StatusIs;
using ::testing::HasSubstr;

ReportId TestId() {
  ReportId id;
  for (size_t i = 0; i < id.size(); ++i) id[i] = static_cast<uint8_t>(i * 17);
  return id;
}

// An OUE oracle at ε = 1 over `domain_size` items.
absl::StatusOr<std::unique_ptr<FrequencyOracle>> Oue(uint32_t domain_size) {
  return CreateFrequencyOracle(
      {.kind = FrequencyOracleKind::kOptimizedUnaryEncoding,
       .epsilon = 1,
       .domain_size = domain_size});
}

std::vector<ReportPayload> EveryPayloadKind() {
  return {
      FrequencyReport(ItemReport{.item = 4}),
      FrequencyReport(BitVectorReport{.words = {0x5, 0x8000000000000000u},
                                      .num_bits = 128}),
      FrequencyReport(BitVectorReport{.words = {0x5, 0x1}, .num_bits = 70}),
      FrequencyReport(HashedReport{.seed = 0xdeadbeefcafef00du, .bucket = 3}),
      FrequencyReport(SubsetReport{.items = {1, 5, 9}}),
      FrequencyReport(
          SketchReport{.row = 2, .column = 0, .bits = {0x3}, .num_bits = 10}),
      FrequencyReport(
          SketchReport{.row = 1, .column = 7, .bits = {1}, .num_bits = 1}),
      ScalarReport{.level = -12345},
      WorkloadReport{.group = 3, .inner = ItemReport{.item = 17}},
      WorkloadReport{
          .group = 0,
          .inner = BitVectorReport{.words = {0x9, 0x1}, .num_bits = 65}},
      WorkloadReport{.group = 7,
                     .inner = HashedReport{.seed = 0x1234u, .bucket = 1}},
  };
}

TEST(ReportConvert, EveryPayloadKindRoundTrips) {
  for (const ReportPayload& payload : EveryPayloadKind()) {
    const TaskReport report{
        .task_id = 99, .report_id = TestId(), .payload = payload};
    v1::Report proto;
    ReportToProto(report, 1234, &proto);
    EXPECT_EQ(proto.protocol_version(), kWireProtocolVersion);
    EXPECT_EQ(proto.agent_id(), 1234u);
    EXPECT_EQ(proto.report_id().size(), 16u);
    absl::StatusOr<TaskReport> back = ReportFromProto(proto);
    ASSERT_OK(back);
    EXPECT_EQ(back->task_id, 99u);
    EXPECT_EQ(back->report_id, report.report_id);
    EXPECT_EQ(back->payload, payload);
  }
}

TEST(ReportConvert, GoldenRoundTrip) {
  const auto proto = ParseText<v1::Report>(R"pb(
    protocol_version: 1
    task_id: 5
    agent_id: 6
    report_id: "0123456789abcdef"
    sketch {
      row: 3
      bits { packed: "\x01\x00\x00\x00\x00\x00\x00\x80" bit_length: 64 }
    }
  )pb");
  absl::StatusOr<TaskReport> report = ReportFromProto(proto);
  ASSERT_OK(report);
  v1::Report back;
  ReportToProto(*report, 6, &back);
  EXPECT_TRUE(ProtoEquals(back, proto));
}

// A bit vector shorter than a whole word reads into the same words; the
// oracle, which knows N, then validates it.
TEST(ReportConvert, ExactLengthBitVectorsValidateAgainstTheirOracle) {
  absl::StatusOr<std::unique_ptr<FrequencyOracle>> oracle = Oue(10);
  ASSERT_OK(oracle);
  SeededGenerator gen(1);
  for (int i = 0; i < 20; ++i) {
    const TaskReport report{.report_id = TestId(),
                            .payload = (*oracle)->Randomize(i % 10, gen)};
    absl::StatusOr<TaskReport> back = ReportFromBytes(ReportToBytes(report, 1));
    ASSERT_OK(back);
    EXPECT_OK((*oracle)->Validate(std::get<FrequencyReport>(back->payload)));
  }
  const auto exact = ParseText<v1::Report>(R"pb(
    protocol_version: 1
    report_id: "0123456789abcdef"
    bit_vector { packed: "\x05\x02" bit_length: 10 }
  )pb");
  absl::StatusOr<TaskReport> report = ReportFromProto(exact);
  ASSERT_OK(report);
  const auto& frequency = std::get<FrequencyReport>(report->payload);
  EXPECT_EQ(std::get<BitVectorReport>(frequency).words,
            std::vector<uint64_t>{0x205});
  EXPECT_OK((*oracle)->Validate(frequency));
}

// The wire length is kept as num_bits, so the oracle can require its own N.
TEST(ReportConvert, WrongLengthBitVectorsFailTheirOracle) {
  absl::StatusOr<std::unique_ptr<FrequencyOracle>> oracle = Oue(8);
  ASSERT_OK(oracle);
  for (const uint32_t bit_length : {1u, 7u, 9u, 64u}) {
    v1::Report proto = ParseText<v1::Report>(
        R"pb(protocol_version: 1 report_id: "0123456789abcdef")pb");
    proto.mutable_bit_vector()->set_bit_length(bit_length);
    proto.mutable_bit_vector()->set_packed(
        std::string((bit_length + 7) / 8, '\0'));
    proto.mutable_bit_vector()->mutable_packed()->front() = '\x01';
    absl::StatusOr<TaskReport> report = ReportFromProto(proto);
    ASSERT_OK(report);
    const auto& frequency = std::get<FrequencyReport>(report->payload);
    EXPECT_EQ(std::get<BitVectorReport>(frequency).num_bits, bit_length);
    EXPECT_THAT((*oracle)->Validate(frequency), StatusIs(kInvalid))
        << bit_length;
  }
}

// An 8-bit OUE report is one packed byte with bit_length 8, and reads back
// as the same report.
TEST(ReportConvert, OueReportSendsExactlyItsBits) {
  absl::StatusOr<std::unique_ptr<FrequencyOracle>> oracle = Oue(8);
  ASSERT_OK(oracle);
  SeededGenerator gen(2);
  const TaskReport report{.report_id = TestId(),
                          .payload = (*oracle)->Randomize(3, gen)};
  v1::Report proto;
  ReportToProto(report, 1, &proto);
  EXPECT_EQ(proto.bit_vector().bit_length(), 8u);
  EXPECT_EQ(proto.bit_vector().packed().size(), 1u);
  absl::StatusOr<TaskReport> back = ReportFromProto(proto);
  ASSERT_OK(back);
  EXPECT_EQ(back->payload, report.payload);
  EXPECT_OK((*oracle)->Validate(std::get<FrequencyReport>(back->payload)));
}

// A report that kept no length (read from an old store) goes out as whole
// words, as it did before lengths were kept.
TEST(ReportConvert, LegacyReportsGoOutAsWholeWords) {
  const TaskReport report{
      .report_id = TestId(),
      .payload = FrequencyReport(BitVectorReport{.words = {0x5}})};
  v1::Report proto;
  ReportToProto(report, 1, &proto);
  EXPECT_EQ(proto.bit_vector().bit_length(), 64u);
  EXPECT_EQ(proto.bit_vector().packed().size(), 8u);
}

TEST(ReportConvert, WorkloadGoldenRoundTrip) {
  const auto proto = ParseText<v1::Report>(R"pb(
    protocol_version: 1
    task_id: 5
    agent_id: 6
    report_id: "0123456789abcdef"
    workload {
      group: 2
      bit_vector { packed: "\x01\x00\x00\x00\x00\x00\x00\x80" bit_length: 64 }
    }
  )pb");
  absl::StatusOr<TaskReport> report = ReportFromProto(proto);
  ASSERT_OK(report);
  const auto& workload = std::get<WorkloadReport>(report->payload);
  EXPECT_EQ(workload.group, 2u);
  EXPECT_EQ(std::get<BitVectorReport>(workload.inner).words,
            std::vector<uint64_t>{0x8000000000000001u});
  v1::Report back;
  ReportToProto(*report, 6, &back);
  EXPECT_TRUE(ProtoEquals(back, proto));
}

TEST(ReportConvert, BytesAreDeterministicAndRoundTrip) {
  for (const ReportPayload& payload : EveryPayloadKind()) {
    const TaskReport report{
        .task_id = 3, .report_id = TestId(), .payload = payload};
    const std::string bytes = ReportToBytes(report, 8);
    EXPECT_EQ(bytes, ReportToBytes(report, 8));
    absl::StatusOr<TaskReport> back = ReportFromBytes(bytes);
    ASSERT_OK(back);
    EXPECT_EQ(ReportToBytes(*back, 8), bytes);
  }
  EXPECT_THAT(ReportFromBytes("\x0a\xff"), StatusIs(kInvalid));
}

TEST(ReportConvert, RejectsMalformedReports) {
  struct Case {
    const char* name;
    std::string text;
    const char* message;
  };
  const std::string header = absl::StrCat(
      R"pb(protocol_version: 1 report_id: "0123456789abcdef")pb", " ");
  const Case cases[] = {
      {"version 0", R"pb(report_id: "0123456789abcdef"
                         item {})pb",
       "protocol_version must be 1, got 0"},
      {"version 2", R"pb(protocol_version: 2
                         report_id: "0123456789abcdef"
                         item {})pb",
       "protocol_version must be 1, got 2"},
      {"short id", R"pb(protocol_version: 1
                        report_id: "0123456789abcde"
                        item {})pb",
       "exactly 16 bytes, got 15"},
      {"long id", R"pb(protocol_version: 1
                       report_id: "0123456789abcdef0"
                       item {})pb",
       "exactly 16 bytes, got 17"},
      {"no id", R"pb(protocol_version: 1
                     item {})pb",
       "got 0"},
      {"no payload", header, "no payload set"},
      {"bits short", absl::StrCat(header, R"pb(bit_vector {
                                                 packed: "\x01"
                                                 bit_length: 9
                                               })pb"),
       "bit_vector: bit_length 9 needs exactly 2"},
      {"bits padding", absl::StrCat(header, R"pb(bit_vector {
                                                   packed: "\x01\x02"
                                                   bit_length: 9
                                                 })pb"),
       "must be zero"},
      {"sketch padding",
       absl::StrCat(header,
                    R"pb(sketch { bits { packed: "\x02" bit_length: 1 } })pb"),
       "sketch.bits"},
      {"subset unsorted", absl::StrCat(header, "subset { items: 3 items: 1 }"),
       "strictly ascending"},
      {"subset duplicate",
       absl::StrCat(header, "subset { items: 1 items: 1 items: 4 }"),
       "items[0] = 1, items[1] = 1"},
      {"workload without inner", absl::StrCat(header, "workload { group: 2 }"),
       "no inner report"},
      {"bits empty", absl::StrCat(header, "bit_vector {}"),
       "bit_vector: bit_length is 0"},
      {"sketch bits empty", absl::StrCat(header, "sketch { row: 1 }"),
       "sketch.bits: bit_length is 0"},
      {"workload bits empty",
       absl::StrCat(header, "workload { group: 1 bit_vector {} }"),
       "workload.bit_vector: bit_length is 0"},
      {"workload bits padding", absl::StrCat(header, R"pb(workload {
                                   bit_vector { packed: "\x04" bit_length: 2 }
                                 })pb"),
       "workload.bit_vector"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<TaskReport> report =
        ReportFromProto(ParseText<v1::Report>(c.text));
    EXPECT_THAT(report, StatusIs(kInvalid)) << c.name;
    EXPECT_THAT(report.status().message(), HasSubstr(c.message)) << c.name;
  }
}

TEST(ReportConvert, RejectsOversizedSubsets) {
  v1::Report proto = ParseText<v1::Report>(R"pb(protocol_version: 1
                                 report_id: "0123456789abcdef")pb");
  for (int i = 0; i <= kMaxSubsetItems; ++i)
    proto.mutable_subset()->add_items(i);
  EXPECT_THAT(ReportFromProto(proto), StatusIs(kInvalid));
}

}  // namespace
}  // namespace ldp
