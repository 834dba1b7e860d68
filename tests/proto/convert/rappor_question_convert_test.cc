// A RAPPOR question on the wire becomes a histogram question over the
// string field's digests with RAPPOR and the candidates
// (rappor_question_convert.h): defaults filled in, a hash seed chosen that
// tells the candidates apart, the round trip exact, and every malformed
// form refused with a message naming the field.
#include "proto/convert/rappor_question_convert.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "proto/convert/study_convert.h"
#include "tests/proto/convert/convert_testing.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using ::ldp::testing::kInvalid;
using ::ldp::testing::ParseText;
using ::ldp::testing::StatusIs;
using ::testing::HasSubstr;

RecordSchema TextSchema() {
  return *RecordSchema::Create(
      {FieldSpec::BitVector("text", 64), FieldSpec::Bool("flag")});
}

// Three fruit as candidates of `text`, merged with `extra`.
v1::Question RapporWire(const std::string& extra = "") {
  v1::Question wire = ParseText<v1::Question>(R"pb(
    question_id: "words"
    rappor {
      field: "text"
      candidates: "apple"
      candidates: "pear"
      candidates: "plum"
    }
    randomizer { epsilon_nanos: 2000000000 }
  )pb");
  wire.MergeFrom(ParseText<v1::Question>(extra));
  return wire;
}

TEST(RapporQuestionConvert, BecomesRapporOverDigestsWithDefaults) {
  const absl::StatusOr<Question> q =
      QuestionFromProto(RapporWire(), TextSchema());
  ASSERT_OK(q);
  const auto& h = std::get<HistogramQuestion>(q->kind);
  ASSERT_TRUE(h.candidates.has_value());
  EXPECT_EQ(h.candidates->strings,
            (std::vector<std::string>{"apple", "pear", "plum"}));
  EXPECT_EQ(h.candidates->false_discovery_rate, 0.05);
  const auto* digest = std::get_if<DigestEncoding>(&h.encoding.spec());
  ASSERT_NE(digest, nullptr);
  EXPECT_EQ(digest->field, "text");
  EXPECT_EQ(digest->seed, 1u);  // the first seed that tells them apart
  ASSERT_TRUE(h.oracle.has_value());
  EXPECT_EQ(h.oracle->kind, FrequencyOracleKind::kRappor);
  EXPECT_EQ(h.oracle->hash_seed, 1u);
  EXPECT_EQ(h.oracle->epsilon_permanent, 0);  // the planner's: twice ε
  EXPECT_EQ(q->epsilon_nanos, 2'000'000'000);
}

TEST(RapporQuestionConvert, RoundTripsWithTheChosenSeed) {
  const absl::StatusOr<Question> q = QuestionFromProto(RapporWire(R"pb(rappor {
                        false_discovery_rate: 0.1
                        rappor {
                          num_bits: 64
                          num_hashes: 3
                          num_cohorts: 16
                          epsilon_permanent_nanos: 5000000000
                        }
                      })pb"),
                                                       TextSchema());
  ASSERT_OK(q);
  v1::Question wire;
  ToProto(*q, &wire);
  ASSERT_TRUE(wire.has_rappor());
  EXPECT_EQ(wire.rappor().rappor().hash_seed(), 1u);
  EXPECT_EQ(wire.rappor().rappor().num_cohorts(), 16u);
  EXPECT_EQ(wire.rappor().rappor().epsilon_permanent_nanos(), 5'000'000'000u);
  EXPECT_EQ(wire.rappor().false_discovery_rate(), 0.1);
  EXPECT_FALSE(wire.randomizer().has_rappor());
  const absl::StatusOr<Question> again = QuestionFromProto(wire, TextSchema());
  ASSERT_OK(again);
  v1::Question twice;
  ToProto(*again, &twice);
  EXPECT_EQ(twice.SerializeAsString(), wire.SerializeAsString());
}

TEST(RapporQuestionConvert, RefusesWhatCannotBeAsked) {
  const RecordSchema schema = TextSchema();
  const std::pair<std::string, std::string> cases[] = {
      {R"pb(rappor { field: "flag" })pb", "is not a bit vector"},
      {R"pb(rappor { field: "gone" })pb", "is not in the schema"},
      {R"pb(rappor { candidates: "apple" })pb", "are both \"apple\""},
      {R"pb(rappor { candidates: "ninebytes" })pb", "at most 8"},
      {R"pb(rappor { false_discovery_rate: 1 })pb", "false_discovery_rate"},
      {R"pb(rappor { false_discovery_rate: -0.1 })pb", "false_discovery_rate"},
      {R"pb(randomizer { oue {} })pb", "only epsilon_nanos"},
      {R"pb(rappor { rappor { epsilon_permanent_nanos: 9300000000000000000 } })pb",
       "below 2^63"},
  };
  for (const auto& [extra, message] : cases) {
    EXPECT_THAT(QuestionFromProto(RapporWire(extra), schema),
                StatusIs(kInvalid, HasSubstr(message)))
        << extra;
  }
  v1::Question none = RapporWire();
  none.mutable_rappor()->clear_candidates();
  EXPECT_THAT(QuestionFromProto(none, schema),
              StatusIs(kInvalid, HasSubstr("1 to 100000 strings, got 0")));
}

TEST(RapporQuestionConvert, AHistogramMayNotUseADigest) {
  StudySpec spec{.schema = TextSchema(),
                 .epsilon_cap_nanos = 1'000'000'000,
                 .mode = StudyMode::kNoninteractive};
  v1::StudySpec wire;
  ToProto(spec, &wire);
  *wire.add_questions() = ParseText<v1::Question>(R"pb(
    question_id: "raw"
    histogram { encoding { digest { field: "text" } } }
  )pb");
  EXPECT_THAT(StudySpecFromProto(wire),
              StatusIs(kInvalid, HasSubstr("digest encoding is for rappor")));
}

}  // namespace
}  // namespace ldp
