#include "client/payload_text.h"

#include <cstdint>
#include <limits>
#include <string>
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
      FrequencyReport{HashedReport{~uint64_t{0}, 17}},
      FrequencyReport{SubsetReport{{1, 4, 9}}},
      FrequencyReport{SubsetReport{}},
      FrequencyReport{SketchReport{3, 0, {0x5, 0x8000000000000000}}},
      FrequencyReport{SketchReport{2, 511, {1}}},
      ScalarReport{-17},
      ScalarReport{std::numeric_limits<int64_t>::min()},
      ScalarReport{std::numeric_limits<int64_t>::max()},
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
  EXPECT_EQ(PayloadToText(FrequencyReport{BitVectorReport{{0xa1, 3}}}),
            "bits:00000000000000a1.0000000000000003");
  EXPECT_EQ(PayloadToText(FrequencyReport{SubsetReport{{1, 4, 9}}}),
            "subset:1.4.9");
  EXPECT_EQ(PayloadToText(ScalarReport{-17}), "scalar:-17");
}

TEST(PayloadText, RejectsAnythingMalformed) {
  for (const char* text :
       {"", "item", "item:", "item:-1", "item:4294967296", "item: 5",
        "item:+5", "item:5:6", "bits:a1", "bits:00000000000000A1",
        "bits:00000000000000a1.", "hashed:1", "hashed:1:2:3", "subset:1..2",
        "sketch:1:2", "scalar:", "scalar:1.5", "scalar:99999999999999999999",
        "scalar:--1", "laplace:1", "scalar:1:2"}) {
    EXPECT_THAT(PayloadFromText(text), StatusIs(absl::StatusCode::kDataLoss))
        << "'" << text << "'";
  }
}

}  // namespace
}  // namespace ldp
