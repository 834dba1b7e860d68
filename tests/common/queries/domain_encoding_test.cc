#include "common/queries/domain_encoding.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/test_values.h"

namespace ldp {
namespace {

using ::ldp::testing::StatusIs;
using ::testing::HasSubstr;

using ::ldp::testing::kInvalid;

RecordSchema EncodingSchema(std::vector<FieldSpec> fields) {
  absl::StatusOr<RecordSchema> schema = RecordSchema::Create(std::move(fields));
  EXPECT_OK(schema);
  return *schema;
}

RecordSchema ColorSchema() {
  return EncodingSchema(
      {FieldSpec::Bool("smoker"), FieldSpec::Int("age", 18, 25),
       FieldSpec::Categorical("country", {"fr", "de", "it"}),
       FieldSpec::Real("income", 0, 100), FieldSpec::BitVector("bits", 3),
       FieldSpec::Int("years", 0, 120)});
}

DomainEncoding MakeEncoding(const DomainEncodingSpec& spec,
                            const RecordSchema& schema = ColorSchema()) {
  absl::StatusOr<DomainEncoding> encoding =
      DomainEncoding::Create(spec, schema);
  EXPECT_OK(encoding);
  return *encoding;
}

Record With(const std::string& field, FieldValue value) {
  Record r;
  r.values[field] = std::move(value);
  return r;
}

// Every index in [0, N) gets its own label, and indices past N are flagged.
void ExpectDistinctLabels(const DomainEncoding& e) {
  std::set<std::string> labels;
  for (uint32_t i = 0; i < e.domain_size(); ++i) labels.insert(e.Describe(i));
  EXPECT_EQ(labels.size(), e.domain_size());
  EXPECT_THAT(e.Describe(e.domain_size()), HasSubstr("invalid index"));
}

TEST(DomainEncoding, SingleBoolField) {
  const DomainEncoding e = MakeEncoding(FieldEncoding{.field = "smoker"});
  EXPECT_EQ(e.domain_size(), 2u);
  EXPECT_EQ(e.Encode(With("smoker", false)), 0u);
  EXPECT_EQ(e.Encode(With("smoker", true)), 1u);
  EXPECT_EQ(e.Describe(0), "smoker=false");
  EXPECT_EQ(e.Describe(1), "smoker=true");
}

TEST(DomainEncoding, SingleCategoricalField) {
  const DomainEncoding e = MakeEncoding(FieldEncoding{.field = "country"});
  EXPECT_EQ(e.domain_size(), 3u);
  EXPECT_EQ(e.Encode(With("country", std::string("de"))), 1u);
  EXPECT_EQ(e.Describe(2), "country=it");
  ExpectDistinctLabels(e);
}

TEST(DomainEncoding, SingleIntField) {
  const DomainEncoding e = MakeEncoding(FieldEncoding{.field = "age"});
  EXPECT_EQ(e.domain_size(), 8u);
  for (int64_t age = 18; age <= 25; ++age) {
    const uint32_t index = e.Encode(With("age", age));
    EXPECT_EQ(index, age - 18);
    EXPECT_EQ(e.Describe(index), "age=" + std::to_string(age));
  }
}

TEST(DomainEncoding, BucketizedIntFieldCoversEveryValueOnce) {
  const DomainEncoding e =
      MakeEncoding(FieldEncoding{.field = "years", .num_buckets = 12});
  ASSERT_EQ(e.domain_size(), 12u);
  std::vector<int> sizes(12, 0);
  uint32_t previous = 0;
  for (int64_t v = 0; v <= 120; ++v) {
    const uint32_t i = e.Encode(With("years", v));
    ASSERT_LT(i, 12u);
    EXPECT_GE(i, previous);  // buckets hold consecutive values
    previous = i;
    ++sizes[i];
    int64_t first = 0, last = 0;
    const std::string label = e.Describe(i);
    ASSERT_EQ(std::sscanf(label.c_str(), "years=[%ld,%ld]", &first, &last), 2)
        << label;
    EXPECT_LE(first, v);
    EXPECT_GE(last, v);
  }
  for (int s : sizes) EXPECT_TRUE(s == 10 || s == 11) << s;
  EXPECT_EQ(e.Describe(0), "years=[0,10]");
  ExpectDistinctLabels(e);
  // One bucket per value: labels name the value itself.
  const DomainEncoding singles =
      MakeEncoding(FieldEncoding{.field = "age", .num_buckets = 8});
  EXPECT_EQ(singles.Describe(3), "age=21");
}

TEST(DomainEncoding, BucketizedRealFieldLabelsShowTheEdges) {
  const DomainEncoding e =
      MakeEncoding(FieldEncoding{.field = "income", .num_buckets = 10});
  EXPECT_EQ(e.domain_size(), 10u);
  EXPECT_EQ(e.Describe(0), "income=[0,10)");
  EXPECT_EQ(e.Describe(9), "income=[90,100]");
  EXPECT_EQ(e.Encode(With("income", 0.0)), 0u);
  EXPECT_EQ(e.Encode(With("income", 9.999)), 0u);
  EXPECT_EQ(e.Encode(With("income", 10.0)), 1u);
  EXPECT_EQ(e.Encode(With("income", 100.0)), 9u);
  ExpectDistinctLabels(e);
}

// Encode agrees with the labels exactly at every bucket edge, including
// awkward bounds where (x − lower) / width rounds the wrong way.
TEST(DomainEncoding, RealEncodingAgreesWithLabelsAtEveryEdge) {
  const struct {
    double lower, upper;
    uint32_t buckets;
  } kCases[] = {
      {-0.3, 0.7, 7}, {1e6, 1e6 + 1, 1000}, {0, 1, 3}, {-1e-3, 5e-4, 17}};
  for (const auto& c : kCases) {
    const RecordSchema schema =
        EncodingSchema({FieldSpec::Real("x", c.lower, c.upper)});
    const DomainEncoding e = MakeEncoding(
        FieldEncoding{.field = "x", .num_buckets = c.buckets}, schema);
    for (uint32_t i = 0; i < c.buckets; ++i) {
      const std::string label = e.Describe(i);
      const char* text = label.c_str() + 3;  // past "x=["
      char* end = nullptr;
      const double lo = std::strtod(text, &end);
      const double hi = std::strtod(end + 1, nullptr);
      EXPECT_EQ(e.Encode(With("x", lo)), i) << label;
      EXPECT_EQ(e.Encode(With("x", std::nextafter(hi, -INFINITY))), i) << label;
      if (i + 1 < c.buckets) {
        EXPECT_EQ(e.Encode(With("x", hi)), i + 1) << label;
      }
    }
    ExpectDistinctLabels(e);
  }
}

TEST(DomainEncoding, ProductCoversTheDomainExactlyOnceMostSignificantFirst) {
  const DomainEncoding e = MakeEncoding(
      ProductEncoding{.fields = {{.field = "smoker"},
                                 {.field = "country"},
                                 {.field = "age"},
                                 {.field = "income", .num_buckets = 4}}});
  ASSERT_EQ(e.domain_size(), 2u * 3 * 8 * 4);
  std::vector<int> hits(e.domain_size(), 0);
  const std::vector<std::string> countries = {"fr", "de", "it"};
  for (int s = 0; s < 2; ++s) {
    for (int c = 0; c < 3; ++c) {
      for (int a = 0; a < 8; ++a) {
        for (int b = 0; b < 4; ++b) {
          Record r;
          r.values["smoker"] = s == 1;
          r.values["country"] = countries[c];
          r.values["age"] = int64_t{18 + a};
          r.values["income"] = 25.0 * b + 12.5;
          const uint32_t index = e.Encode(r);
          ASSERT_LT(index, e.domain_size());
          EXPECT_EQ(index, ((s * 3 + c) * 8 + a) * 4 + b);
          ++hits[index];
        }
      }
    }
  }
  for (int h : hits) EXPECT_EQ(h, 1);
  EXPECT_EQ(e.Describe(((1 * 3 + 1) * 8 + 3) * 4 + 2),
            "smoker=true & country=de & age=21 & income=[50,75)");
  ExpectDistinctLabels(e);
}

TEST(DomainEncoding, QueryValueIsRoundedAndClamped) {
  const RecordSchema schema = ColorSchema();
  absl::StatusOr<Query> q = Query::Create(
      expr::Div(expr::Field("years"), expr::Constant(10)), {0, 12}, schema);
  ASSERT_OK(q);
  const DomainEncoding e =
      MakeEncoding(QueryValueEncoding{.query = *q, .domain_size = 5}, schema);
  EXPECT_EQ(e.domain_size(), 5u);
  EXPECT_EQ(e.Encode(With("years", int64_t{14})), 1u);   // 1.4 → 1
  EXPECT_EQ(e.Encode(With("years", int64_t{37})), 4u);   // 3.7 → 4
  EXPECT_EQ(e.Encode(With("years", int64_t{25})), 2u);   // 2.5 → 2 (even)
  EXPECT_EQ(e.Encode(With("years", int64_t{110})), 4u);  // 11 → clamped
  EXPECT_EQ(e.Describe(3), "value=3");
  ExpectDistinctLabels(e);

  absl::StatusOr<Query> negative =
      Query::Create(expr::Neg(expr::Field("years")), {-200, 200}, schema);
  ASSERT_OK(negative);
  const DomainEncoding clamped = MakeEncoding(
      QueryValueEncoding{.query = *negative, .domain_size = 5}, schema);
  EXPECT_EQ(clamped.Encode(With("years", int64_t{3})), 0u);
}

TEST(DomainEncoding, ParityQueryEncodesBitVectors) {
  const RecordSchema schema = ColorSchema();
  absl::StatusOr<Query> q = Query::Create(
      expr::MaskedParity("bits", {true, false, true}), {0, 1}, schema);
  ASSERT_OK(q);
  const DomainEncoding e =
      MakeEncoding(QueryValueEncoding{.query = *q, .domain_size = 2}, schema);
  EXPECT_EQ(e.Encode(With("bits", std::vector<bool>{true, true, false})), 1u);
  EXPECT_EQ(e.Encode(With("bits", std::vector<bool>{true, true, true})), 0u);
}

TEST(DomainEncoding, EncodesOddRecordsWithoutFailing) {
  const DomainEncoding e = MakeEncoding(ProductEncoding{
      .fields = {{.field = "age"}, {.field = "income", .num_buckets = 4}}});
  EXPECT_EQ(e.Encode(Record{}), 0u);  // both defaults: lower bounds
  Record odd;
  odd.values["age"] = int64_t{99};
  odd.values["income"] = std::nan("");
  EXPECT_EQ(e.Encode(odd), 7u * 4 + 0);
  odd.values["age"] = std::string("old");
  odd.values["income"] = INFINITY;
  EXPECT_EQ(e.Encode(odd), 0u * 4 + 3);
}

TEST(DomainEncoding, AcceptsADomainOfExactlyTwoToThe31) {
  const RecordSchema schema = EncodingSchema(
      {FieldSpec::Int("a", 0, 65535), FieldSpec::Int("b", 0, 32767)});
  const DomainEncoding e = MakeEncoding(
      ProductEncoding{.fields = {{.field = "a"}, {.field = "b"}}}, schema);
  EXPECT_EQ(e.domain_size(), kMaxDomainSize);
  Record r;
  r.values["a"] = int64_t{65535};
  r.values["b"] = int64_t{32767};
  EXPECT_EQ(e.Encode(r), kMaxDomainSize - 1);
  EXPECT_EQ(e.Describe(kMaxDomainSize - 1), "a=65535 & b=32767");
}

TEST(DomainEncoding, RejectsInvalidSpecs) {
  const RecordSchema schema = ColorSchema();
  const std::vector<std::pair<DomainEncodingSpec, std::string>> cases = {
      {FieldEncoding{.field = "height"}, "unknown field \"height\""},
      {FieldEncoding{.field = "bits"}, "encode a query"},
      {FieldEncoding{.field = "smoker", .num_buckets = 2}, "only to int and"},
      {FieldEncoding{.field = "country", .num_buckets = 2}, "only to int and"},
      {FieldEncoding{.field = "income"}, "needs num_buckets > 0"},
      {FieldEncoding{.field = "age", .num_buckets = 9}, "only 8 values"},
      {ProductEncoding{}, "needs a field"},
      {ProductEncoding{.fields = {{.field = "age"}, {.field = "age"}}},
       "appears twice"},
  };
  for (const auto& [spec, message] : cases) {
    const absl::Status status = DomainEncoding::Create(spec, schema).status();
    EXPECT_THAT(status, StatusIs(kInvalid)) << message;
    EXPECT_THAT(status.message(), HasSubstr(message));
  }
}

TEST(DomainEncoding, RejectsDomainsBeyondTheLimit) {
  const RecordSchema schema = EncodingSchema(
      {FieldSpec::Int("a", 0, 65535), FieldSpec::Int("b", 0, 65535),
       FieldSpec::Int("wide", 0, int64_t{1} << 40),
       FieldSpec::Real("narrow", 1e6, 1e6 + 1e-6)});
  const absl::Status product =
      DomainEncoding::Create(
          ProductEncoding{.fields = {{.field = "a"}, {.field = "b"}}}, schema)
          .status();
  EXPECT_THAT(product, StatusIs(kInvalid));
  EXPECT_THAT(product.message(),
              HasSubstr("domain size 4294967296 is outside [1, 2147483648]"));
  const absl::Status wide =
      DomainEncoding::Create(FieldEncoding{.field = "wide"}, schema).status();
  EXPECT_THAT(wide, StatusIs(kInvalid));
  EXPECT_THAT(wide.message(), HasSubstr("bucketize it"));
  EXPECT_OK(DomainEncoding::Create(
      FieldEncoding{.field = "wide", .num_buckets = 1000}, schema));
  EXPECT_THAT(
      DomainEncoding::Create(
          FieldEncoding{.field = "narrow", .num_buckets = 1'000'000}, schema),
      StatusIs(kInvalid));
}

TEST(DomainEncoding, RejectsBadQueryValueEncodings) {
  const RecordSchema schema = ColorSchema();
  absl::StatusOr<Query> q = Query::Create(expr::Field("age"), {18, 25}, schema);
  ASSERT_OK(q);
  EXPECT_THAT(DomainEncoding::Create(
                  QueryValueEncoding{.query = *q, .domain_size = 0}, schema),
              StatusIs(kInvalid));
  EXPECT_THAT(
      DomainEncoding::Create(
          QueryValueEncoding{.query = *q, .domain_size = kMaxDomainSize + 1},
          schema),
      StatusIs(kInvalid));
  const RecordSchema other = EncodingSchema({FieldSpec::Int("age", 0, 99)});
  EXPECT_THAT(DomainEncoding::Create(
                  QueryValueEncoding{.query = *q, .domain_size = 30}, other),
              StatusIs(kInvalid));
}

// Bits of `text` ("0110…"), for prefix encodings.
std::vector<bool> Bits(const std::string& text) {
  std::vector<bool> bits;
  for (char c : text) bits.push_back(c == '1');
  return bits;
}

RecordSchema PrefixSchema() {
  return EncodingSchema(
      {FieldSpec::BitVector("x", 16), FieldSpec::Int("n", 0, 3)});
}

TEST(DomainEncoding, PrefixFirstRoundReadsTheLeadingBits) {
  const DomainEncoding e = MakeEncoding(PrefixEncoding{.field = "x",
                                                       .prefix_bits = 4,
                                                       .candidates = {{}},
                                                       .extension_bits = 4},
                                        PrefixSchema());
  EXPECT_EQ(e.domain_size(), 17u);
  EXPECT_EQ(e.Encode(With("x", Bits("1011000000000001"))), 1u + 0b1011);
  EXPECT_EQ(e.Describe(1 + 0b1011), "x[0:4]=1011");
  // A missing field is all zeros: candidate "" followed by 0000.
  EXPECT_EQ(e.Encode(Record{}), 1u);
  ExpectDistinctLabels(e);
}

TEST(DomainEncoding, PrefixExtendsKnownCandidates) {
  const DomainEncoding e = MakeEncoding(
      PrefixEncoding{.field = "x",
                     .prefix_bits = 7,
                     .candidates = {Bits("1011"), Bits("0110"), Bits("0000")},
                     .extension_bits = 3},
      PrefixSchema());
  EXPECT_EQ(e.domain_size(), 1u + 3 * 8);
  // Candidate 1 ("0110") then 100: 1 + 1·8 + 4.
  EXPECT_EQ(e.Encode(With("x", Bits("0110100111111111"))), 13u);
  EXPECT_EQ(e.Describe(13), "x[0:7]=0110100");
  EXPECT_EQ(e.Encode(With("x", Bits("1111000000000000"))), 0u);
  EXPECT_EQ(e.Describe(0), "no candidate");
  // Short vectors are zero-padded, so "1" reads as 1000…: no candidate;
  // missing or mistyped values are all zeros: candidate 2 then 000.
  EXPECT_EQ(e.Encode(With("x", Bits("1"))), 0u);
  EXPECT_EQ(e.Encode(With("x", int64_t{3})), 1u + 2 * 8);
  ExpectDistinctLabels(e);
}

// Every 8-bit prefix lands on the item whose label spells it, or on item 0
// exactly when its first 5 bits are not a candidate.
TEST(DomainEncoding, PrefixRoundTripsEveryValue) {
  const std::vector<std::vector<bool>> candidates = {
      Bits("00000"), Bits("10101"), Bits("11111"), Bits("01100")};
  const DomainEncoding e = MakeEncoding(PrefixEncoding{.field = "x",
                                                       .prefix_bits = 8,
                                                       .candidates = candidates,
                                                       .extension_bits = 3},
                                        PrefixSchema());
  for (int v = 0; v < 256; ++v) {
    std::string text;
    for (int i = 7; i >= 0; --i) text.push_back((v >> i) & 1 ? '1' : '0');
    const uint32_t item = e.Encode(With("x", Bits(text + "01010101")));
    const bool known = std::find(candidates.begin(), candidates.end(),
                                 Bits(text.substr(0, 5))) != candidates.end();
    if (known) {
      EXPECT_EQ(e.Describe(item), "x[0:8]=" + text);
    } else {
      EXPECT_EQ(item, 0u) << text;
    }
  }
}

TEST(DomainEncoding, RejectsBadPrefixEncodings) {
  const RecordSchema schema = PrefixSchema();
  const auto prefix = [](std::string field, uint32_t bits, uint32_t s,
                         std::vector<std::vector<bool>> candidates) {
    return PrefixEncoding{.field = std::move(field),
                          .prefix_bits = bits,
                          .candidates = std::move(candidates),
                          .extension_bits = s};
  };
  const std::vector<std::pair<DomainEncodingSpec, std::string>> cases = {
      {prefix("y", 4, 4, {{}}), "is not in the schema"},
      {prefix("n", 2, 2, {{}}), "is not a bit vector"},
      {prefix("x", 17, 4, {Bits("1")}), "exceeds the length of \"x\""},
      {prefix("x", 4, 5, {{}}), "exceeds prefix_bits"},
      {prefix("x", 4, 4, {}), "give one empty candidate"},
      {prefix("x", 6, 4, {Bits("10"), Bits("1")}), "candidate 1 has 1 bits"},
      {prefix("x", 6, 4, {Bits("10"), Bits("01"), Bits("10")}),
       "candidate 2 (10) is listed twice"},
  };
  for (const auto& [spec, message] : cases) {
    const absl::Status status = DomainEncoding::Create(spec, schema).status();
    EXPECT_THAT(status, StatusIs(kInvalid)) << message;
    EXPECT_THAT(status.message(), HasSubstr(message));
  }
  // 1 + 2·2^30 items is one past the limit; 1 + 2^30 fits.
  const RecordSchema wide = EncodingSchema({FieldSpec::BitVector("x", 64)});
  EXPECT_THAT(
      DomainEncoding::Create(prefix("x", 31, 30, {Bits("0"), Bits("1")}), wide),
      StatusIs(kInvalid));
  EXPECT_THAT(DomainEncoding::Create(prefix("x", 40, 32, {{}}), wide),
              StatusIs(kInvalid));
  EXPECT_OK(DomainEncoding::Create(prefix("x", 31, 30, {Bits("1")}), wide));
}

}  // namespace
}  // namespace ldp
