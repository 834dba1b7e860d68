#include "proto/convert/encoding_convert.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "proto/convert/schema_convert.h"
#include "tests/proto/convert/convert_testing.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using ::ldp::testing::kInvalid;
using ::ldp::testing::kSchemaText;
using ::ldp::testing::ParseText;
using ::ldp::testing::ProtoEquals;
using ::ldp::testing::SharedSchema;
using ::ldp::testing::StatusIs;
using ::testing::HasSubstr;

TEST(EncodingConvert, GoldenRoundTripsWithTheirDomainSizes) {
  struct Golden {
    const char* text;
    uint32_t domain_size;
  };
  const Golden goldens[] = {
      {R"pb(field { field: "country" })pb", 3},
      {R"pb(field { field: "income" num_buckets: 11 })pb", 11},
      {R"pb(product {
              fields { field: "smoker" }
              fields { field: "age" num_buckets: 12 }
              fields { field: "country" }
            })pb",
       2 * 12 * 3},
      {R"pb(query_value {
              query {
                root { field: "age" }
                output_range { lower: 0 upper: 120 }
              }
              domain_size: 121
            })pb",
       121},
      // Candidates "101" and "010" (little-endian packed), 2 more bits.
      {R"pb(prefix {
              field: "features"
              prefix_bits: 5
              candidates { packed: "\005" bit_length: 3 }
              candidates { packed: "\002" bit_length: 3 }
              extension_bits: 2
            })pb",
       1 + 2 * 4},
      // The first round: one empty candidate.
      {R"pb(prefix {
              field: "features"
              prefix_bits: 4
              candidates {}
              extension_bits: 4
            })pb",
       1 + 16},
  };
  for (const Golden& g : goldens) {
    const auto proto = ParseText<v1::DomainEncoding>(g.text);
    absl::StatusOr<DomainEncoding> encoding =
        EncodingFromProto(proto, SharedSchema());
    ASSERT_OK(encoding) << g.text;
    EXPECT_EQ(encoding->domain_size(), g.domain_size) << g.text;
    v1::DomainEncoding back;
    ToProto(*encoding, &back);
    EXPECT_TRUE(ProtoEquals(back, proto));
  }
}

TEST(EncodingConvert, DomainSpecRoundTrip) {
  const DomainEncodingSpec spec = ProductEncoding{
      .fields = {{.field = "income", .num_buckets = 4}, {.field = "smoker"}}};
  absl::StatusOr<DomainEncoding> encoding =
      DomainEncoding::Create(spec, SharedSchema());
  ASSERT_OK(encoding);
  v1::DomainEncoding proto;
  ToProto(spec, &proto);
  absl::StatusOr<DomainEncoding> back =
      EncodingFromProto(proto, SharedSchema());
  ASSERT_OK(back);
  EXPECT_EQ(back->domain_size(), 8u);
  // Same items and labels on both sides.
  for (uint32_t i = 0; i < 8; ++i) {
    EXPECT_EQ(back->Describe(i), encoding->Describe(i));
  }
  Record r;
  r.values = {{"income", 60.0}, {"smoker", false}};
  EXPECT_EQ(back->Encode(r), encoding->Encode(r));
}

TEST(EncodingConvert, RejectsMalformedEncodings) {
  struct Case {
    const char* name;
    std::string text;
    const char* message;
  };
  const Case cases[] = {
      {"no kind", "", "no kind set"},
      {"unknown field", R"pb(field { field: "height" })pb", "invalid domain"},
      {"bit vector field", R"pb(field { field: "features" })pb",
       "invalid domain"},
      {"buckets on categorical",
       R"pb(field { field: "country" num_buckets: 2 })pb", "invalid domain"},
      {"real without buckets", R"pb(field { field: "income" })pb",
       "invalid domain"},
      {"too many int buckets", R"pb(field { field: "age" num_buckets: 500 })pb",
       "invalid domain"},
      {"empty product", R"pb(product {})pb", "invalid domain"},
      {"repeated product field",
       R"pb(product {
              fields { field: "smoker" }
              fields { field: "smoker" }
            })pb",
       "invalid domain"},
      {"query without query", R"pb(query_value { domain_size: 4 })pb",
       "query_value.query is missing"},
      {"query with zero domain",
       R"pb(query_value {
              query {
                root { constant: 1 }
                output_range { lower: 0 upper: 2 }
              }
            })pb",
       "invalid domain"},
      {"query bad for schema",
       R"pb(query_value {
              query {
                root { field: "height" }
                output_range { lower: 0 upper: 2 }
              }
              domain_size: 3
            })pb",
       "invalid query"},
      {"prefix of a non-bit-vector",
       R"pb(prefix {
              field: "age"
              prefix_bits: 1
              candidates {}
              extension_bits: 1
            })pb",
       "invalid domain"},
      {"prefix candidate of the wrong length",
       R"pb(prefix {
              field: "features"
              prefix_bits: 3
              candidates { packed: "\001" bit_length: 2 }
              extension_bits: 2
            })pb",
       "invalid domain"},
      {"prefix candidate with padding set",
       R"pb(prefix {
              field: "features"
              prefix_bits: 3
              candidates { packed: "\002" bit_length: 1 }
              extension_bits: 2
            })pb",
       "prefix.candidates[0]"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<DomainEncoding> encoding = EncodingFromProto(
        ParseText<v1::DomainEncoding>(c.text), SharedSchema());
    EXPECT_THAT(encoding, StatusIs(kInvalid)) << c.name;
    EXPECT_THAT(encoding.status().message(), HasSubstr(c.message)) << c.name;
  }
}

TEST(EncodingConvert, RejectsOversizedProductsUpFront) {
  v1::DomainEncoding proto;
  for (int i = 0; i <= kMaxSchemaFields; ++i) {
    proto.mutable_product()->add_fields()->set_field("smoker");
  }
  absl::StatusOr<DomainEncodingSpec> spec =
      EncodingSpecFromProto(proto, SharedSchema());
  EXPECT_THAT(spec, StatusIs(kInvalid));
  EXPECT_THAT(spec.status().message(), HasSubstr("at most 256"));
}

TEST(EncodingConvert, RejectsTooManyPrefixCandidatesUpFront) {
  v1::DomainEncoding proto;
  v1::PrefixEncoding* prefix = proto.mutable_prefix();
  prefix->set_field("features");
  for (uint32_t i = 0; i <= kMaxPrefixCandidates; ++i) prefix->add_candidates();
  absl::StatusOr<DomainEncodingSpec> spec =
      EncodingSpecFromProto(proto, SharedSchema());
  EXPECT_THAT(spec, StatusIs(kInvalid));
  EXPECT_THAT(spec.status().message(), HasSubstr("at most 65536"));
}

TEST(EncodingConvert, PrefixSpecRoundTripKeepsItemsAndLabels) {
  const DomainEncodingSpec spec = PrefixEncoding{
      .field = "features",
      .prefix_bits = 5,
      .candidates = {{true, true}, {false, true}, {false, false}},
      .extension_bits = 3};
  absl::StatusOr<DomainEncoding> encoding =
      DomainEncoding::Create(spec, SharedSchema());
  ASSERT_OK(encoding);
  v1::DomainEncoding proto;
  ToProto(spec, &proto);
  absl::StatusOr<DomainEncoding> back =
      EncodingFromProto(proto, SharedSchema());
  ASSERT_OK(back);
  ASSERT_EQ(back->domain_size(), 1u + 3 * 8);
  for (uint32_t i = 0; i < back->domain_size(); ++i) {
    EXPECT_EQ(back->Describe(i), encoding->Describe(i));
  }
  for (int v = 0; v < 32; ++v) {
    Record r;
    std::vector<bool> bits;
    for (int j = 0; j < 5; ++j) bits.push_back((v >> j) & 1);
    r.values["features"] = bits;
    EXPECT_EQ(back->Encode(r), encoding->Encode(r));
  }
}

}  // namespace
}  // namespace ldp
