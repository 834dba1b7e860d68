#include "client/core/payload_text.h"

#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using testing::StatusIs;

TEST(PayloadText, RoundTripsEveryPayloadKindExactly) {
  const std::vector<ReportPayload> payloads = {
      FrequencyReport{ItemReport{0}},
      FrequencyReport{ItemReport{std::numeric_limits<uint32_t>::max()}},
      FrequencyReport{BitVectorReport{{0xa1, 0, ~uint64_t{0}}}},
      FrequencyReport{BitVectorReport{}},
      FrequencyReport{BitVectorReport{{0xa1, 0, 0x3}, 130}},
      FrequencyReport{BitVectorReport{{0x5}, 8}},
      FrequencyReport{HashedReport{~uint64_t{0}, 17}},
      FrequencyReport{SubsetReport{{1, 4, 9}}},
      FrequencyReport{SubsetReport{}},
      FrequencyReport{SketchReport{3, 0, {0x5, 0x8000000000000000}}},
      FrequencyReport{SketchReport{2, 511, {1}}},
      FrequencyReport{SketchReport{3, 0, {0x5, 0x8000000000000000}, 128}},
      FrequencyReport{SketchReport{2, 511, {1}, 1}},
      ScalarReport{-17},
      ScalarReport{std::numeric_limits<int64_t>::min()},
      ScalarReport{std::numeric_limits<int64_t>::max()},
      WorkloadReport{.group = 0, .inner = ItemReport{3}},
      WorkloadReport{.group = std::numeric_limits<uint32_t>::max(),
                     .inner = BitVectorReport{{0xa1, 7}}},
      WorkloadReport{.group = 2, .inner = BitVectorReport{}},
      WorkloadReport{.group = 2, .inner = BitVectorReport{{0x6}, 3}},
      WorkloadReport{.group = 5, .inner = HashedReport{~uint64_t{0}, 1}},
  };
  for (const ReportPayload& payload : payloads) {
    const std::string text = PayloadToText(payload);
    EXPECT_EQ(text.find_first_of(" \n\t"), std::string::npos) << text;
    auto decoded = PayloadFromText(text);
    ASSERT_OK(decoded) << text;
    EXPECT_EQ(*decoded, payload) << text;
  }
}

TEST(PayloadText, UsesTheDocumentedForm) {
  EXPECT_EQ(PayloadToText(FrequencyReport{ItemReport{5}}), "item:5");
  EXPECT_EQ(PayloadToText(FrequencyReport{BitVectorReport{{0xa1, 3}, 66}}),
            "bits:66:00000000000000a1.0000000000000003");
  EXPECT_EQ(PayloadToText(FrequencyReport{SketchReport{3, 0, {0x5}, 10}}),
            "sketch:3:0:10:0000000000000005");
  EXPECT_EQ(PayloadToText(
                WorkloadReport{.group = 1, .inner = BitVectorReport{{0x6}, 3}}),
            "workload:1:bits:3:0000000000000006");
  EXPECT_EQ(PayloadToText(FrequencyReport{SubsetReport{{1, 4, 9}}}),
            "subset:1.4.9");
  EXPECT_EQ(PayloadToText(ScalarReport{-17}), "scalar:-17");
  EXPECT_EQ(PayloadToText(WorkloadReport{.group = 2, .inner = ItemReport{5}}),
            "workload:2:item:5");
  EXPECT_EQ(
      PayloadToText(WorkloadReport{.group = 0, .inner = HashedReport{9, 1}}),
      "workload:0:hashed:9:1");
}

// State files written before lengths were kept have no length; they read
// back as legacy reports (num_bits = 0) and are written back unchanged.
TEST(PayloadText, ReadsTheFormWithoutALength) {
  const std::pair<const char*, ReportPayload> old_forms[] = {
      {"bits:00000000000000a1.0000000000000003",
       FrequencyReport{BitVectorReport{{0xa1, 3}}}},
      {"sketch:3:0:0000000000000005",
       FrequencyReport{SketchReport{3, 0, {0x5}}}},
      {"workload:1:bits:0000000000000006",
       WorkloadReport{.group = 1, .inner = BitVectorReport{{0x6}}}},
  };
  for (const auto& [text, payload] : old_forms) {
    auto decoded = PayloadFromText(text);
    ASSERT_OK(decoded) << text;
    EXPECT_EQ(*decoded, payload) << text;
    EXPECT_EQ(PayloadToText(*decoded), text);
  }
}

TEST(PayloadText, RejectsAnythingMalformed) {
  for (const char* text :
       {"", "item", "item:", "item:-1", "item:4294967296", "item: 5", "item:+5",
        "item:5:6", "bits:a1", "bits:00000000000000A1",
        "bits:00000000000000a1.", "hashed:1", "hashed:1:2:3", "subset:1..2",
        "sketch:1:2", "scalar:", "scalar:1.5", "scalar:99999999999999999999",
        "scalar:--1", "laplace:1", "scalar:1:2", "workload", "workload:1",
        "workload:1:item", "workload:-1:item:5", "workload:1:subset:1.2",
        "workload:1:sketch:1:2:0000000000000001", "workload:1:scalar:3",
        "workload:1:workload:1:item:5", "workload::item:5",
        // A length is decimal, never 0 (that is the form without a length),
        // and comes once.
        "bits:0:00000000000000a1", "bits:-8:00000000000000a1",
        "bits:a:00000000000000a1", "bits::00000000000000a1",
        "bits:8:9:00000000000000a1", "sketch:1:2:0:0000000000000001",
        "sketch:1:2:3:4:0000000000000001",
        "workload:1:bits:0:0000000000000001"}) {
    EXPECT_THAT(PayloadFromText(text), StatusIs(absl::StatusCode::kDataLoss))
        << "'" << text << "'";
  }
}

}  // namespace
}  // namespace ldp
