// Shared helpers of the proto conversion tests: text-format goldens and
// message equality.
#ifndef LDP_TESTS_PROTO_CONVERT_CONVERT_TESTING_H_
#define LDP_TESTS_PROTO_CONVERT_CONVERT_TESTING_H_

#include <string>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "proto/convert/schema_convert.h"
#include "tests/testing/test_values.h"

namespace ldp::testing {

// Parses a text-format golden; a typo in a golden fails the test.
template <typename Message>
Message ParseText(const std::string& text) {
  Message message;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &message))
      << "bad text proto:\n"
      << text;
  return message;
}

// Field-by-field equality (doubles compared exactly, as a round trip must),
// with the differences on failure. An assertion rather than a matcher: gtest's
// protobuf printer trips a GCC 12 -Wrestrict false positive.
inline ::testing::AssertionResult ProtoEquals(
    const google::protobuf::Message& actual,
    const google::protobuf::Message& expected) {
  std::string diff;
  google::protobuf::util::MessageDifferencer differencer;
  differencer.ReportDifferencesToString(&diff);
  if (differencer.Compare(expected, actual)) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "differences (expected -> actual):\n"
                                       << diff;
}

// The schema most goldens use: one field of every kind.
inline constexpr char kSchemaText[] = R"pb(
  fields {
    name: "smoker"
    bool_field { default_value: true }
  }
  fields {
    name: "age"
    int_field { lower: 0 upper: 120 default_value: 30 }
  }
  fields {
    name: "country"
    categorical_field {
      categories: "fr"
      categories: "de"
      categories: "it"
      default_category: "de"
    }
  }
  fields {
    name: "income"
    real_field { lower: -10 upper: 100 default_value: 5.5 }
  }
  fields {
    name: "features"
    bit_vector_field {
      bit_length: 5
      default_bits { packed: "\x05" bit_length: 5 }
    }
  }
)pb";

// kSchemaText as a RecordSchema (the schema the converter tests share).
inline RecordSchema SharedSchema() {
  absl::StatusOr<RecordSchema> schema =
      RecordSchemaFromProto(ParseText<v1::RecordSchema>(kSchemaText));
  EXPECT_TRUE(schema.ok()) << schema.status();
  return *schema;
}

// kInvalid, the status every converter returns for malformed wire input,
// comes from tests/testing/test_values.h.

}  // namespace ldp::testing

#endif  // LDP_TESTS_PROTO_CONVERT_CONVERT_TESTING_H_
