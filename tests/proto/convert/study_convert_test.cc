#include "proto/convert/study_convert.h"

#include <cmath>
#include <string>

#include "absl/strings/str_cat.h"
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

std::string Study(absl::string_view questions) {
  return absl::StrCat(R"pb(
                        display_name: "smoking survey"
                        epsilon_cap_nanos: 2000000000
                        mode: NONINTERACTIVE
                        confidence: 0.9
                        quorum: 1000
                        round_duration_seconds: 600
                        schema {)pb",
                      kSchemaText, "} ", questions);
}

// The canonical form ToProto writes: every randomizer present, a chosen
// oracle with its domain size.
const std::string kQuestions = R"pb(
  questions {
    question_id: "mean_income"
    statistical_query {
      root { field: "income" }
      output_range { lower: -10 upper: 100 }
    }
    randomizer {
      epsilon_nanos: 500000000
      duchi {}
    }
    target_reports: 400
  }
  questions {
    question_id: "by_country"
    histogram {
      encoding { field { field: "country" } }
      post_processing: "simplex_projection"
    }
    randomizer {
      epsilon_nanos: 1000000000
      domain_size: 3
      grr {}
    }
  }
  questions {
    question_id: "age_buckets"
    histogram { encoding { field { field: "age" num_buckets: 4 } } }
    randomizer {}
  }
)pb";

TEST(StudyConvert, GoldenRoundTrip) {
  const auto proto = ParseText<v1::StudySpec>(Study(kQuestions));
  absl::StatusOr<StudySpec> spec = StudySpecFromProto(proto);
  ASSERT_OK(spec);
  v1::StudySpec back;
  ToProto(*spec, &back);
  EXPECT_TRUE(ProtoEquals(back, proto));
}

TEST(StudyConvert, ReadsEveryPart) {
  absl::StatusOr<StudySpec> spec =
      StudySpecFromProto(ParseText<v1::StudySpec>(Study(kQuestions)));
  ASSERT_OK(spec);
  EXPECT_EQ(spec->display_name, "smoking survey");
  EXPECT_EQ(spec->epsilon_cap_nanos, 2'000'000'000);
  EXPECT_EQ(spec->mode, StudyMode::kNoninteractive);
  EXPECT_EQ(spec->confidence, 0.9);
  EXPECT_EQ(spec->quorum, 1000);
  EXPECT_EQ(spec->round_duration, absl::Minutes(10));
  ASSERT_EQ(spec->questions.size(), 3u);

  const Question& mean = spec->questions[0];
  EXPECT_EQ(mean.id, "mean_income");
  EXPECT_EQ(mean.epsilon_nanos, 500'000'000);
  EXPECT_EQ(mean.target_reports, 400);
  EXPECT_EQ(std::get<StatisticalQueryQuestion>(mean.kind).mechanism,
            RealMechanismKind::kDuchi);

  const auto& country = std::get<HistogramQuestion>(spec->questions[1].kind);
  ASSERT_TRUE(country.oracle.has_value());
  EXPECT_EQ(country.oracle->kind,
            FrequencyOracleKind::kGeneralizedRandomizedResponse);
  EXPECT_EQ(country.oracle->epsilon, 1.0);
  EXPECT_EQ(country.oracle->domain_size, 3u);
  EXPECT_EQ(country.post_processing, ConsistencyMethod::kSimplexProjection);

  const Question& age = spec->questions[2];
  EXPECT_EQ(age.epsilon_nanos, 0);  // the planner decides
  const auto& buckets = std::get<HistogramQuestion>(age.kind);
  EXPECT_FALSE(buckets.oracle.has_value());
  EXPECT_FALSE(buckets.post_processing.has_value());
  EXPECT_EQ(buckets.encoding.domain_size(), 4u);
}

TEST(StudyConvert, UnsetWireFieldsTakeTheDocumentedDefaults) {
  const auto proto = ParseText<v1::StudySpec>(absl::StrCat(R"pb(
                     epsilon_cap_nanos: 1
                     mode: INTERACTIVE
                     questions {
                       question_id: "q"
                       statistical_query {
                         root { field: "age" }
                         output_range { lower: 0 upper: 120 }
                       }
                     }
                     schema {)pb",
                                                           kSchemaText, "}"));
  absl::StatusOr<StudySpec> spec = StudySpecFromProto(proto);
  ASSERT_OK(spec);
  EXPECT_EQ(spec->mode, StudyMode::kInteractive);
  EXPECT_EQ(spec->confidence, 0.95);
  EXPECT_EQ(spec->round_duration, absl::Hours(1));
  EXPECT_EQ(spec->quorum, 0);
  EXPECT_EQ(
      std::get<StatisticalQueryQuestion>(spec->questions[0].kind).mechanism,
      RealMechanismKind::kHybrid);
}

TEST(StudyConvert, BytesRoundTrip) {
  absl::StatusOr<StudySpec> spec =
      StudySpecFromProto(ParseText<v1::StudySpec>(Study(kQuestions)));
  ASSERT_OK(spec);
  const std::string bytes = StudySpecToBytes(*spec);
  absl::StatusOr<StudySpec> back = StudySpecFromBytes(bytes);
  ASSERT_OK(back);
  EXPECT_EQ(StudySpecToBytes(*back), bytes);
  EXPECT_THAT(StudySpecFromBytes("\x12\x05"), StatusIs(kInvalid));
}

TEST(StudyConvert, QuestionsOfALaterRoundConvertAlone) {
  const auto study = ParseText<v1::StudySpec>(Study(kQuestions));
  absl::StatusOr<std::vector<Question>> questions =
      QuestionsFromProto(study.questions(), SharedSchema());
  ASSERT_OK(questions);
  EXPECT_EQ(questions->size(), 3u);
  v1::Question back;
  ToProto((*questions)[1], &back);
  EXPECT_TRUE(ProtoEquals(back, study.questions(1)));
  google::protobuf::RepeatedPtrField<v1::Question> none;
  EXPECT_THAT(QuestionsFromProto(none, SharedSchema()), StatusIs(kInvalid));
}

// An interactive study names its analyst program and asks no questions of
// its own; the program and its parameters survive the round trip.
TEST(StudyConvert, InteractiveStudiesCarryTheirProgram) {
  std::string text = Study(R"pb(
    program {
      name: "masked_parity"
      parameters { key: "round1_share" value: "0.4" }
    }
  )pb");
  text.replace(text.find("NONINTERACTIVE"), 14, "INTERACTIVE");
  const auto proto = ParseText<v1::StudySpec>(text);
  absl::StatusOr<StudySpec> spec = StudySpecFromProto(proto);
  ASSERT_OK(spec);
  EXPECT_EQ(spec->mode, StudyMode::kInteractive);
  EXPECT_TRUE(spec->questions.empty());
  ASSERT_TRUE(spec->program.has_value());
  EXPECT_EQ(spec->program->name, "masked_parity");
  EXPECT_EQ(spec->program->parameters.at("round1_share"), "0.4");
  v1::StudySpec back;
  ToProto(*spec, &back);
  EXPECT_TRUE(ProtoEquals(back, proto));

  v1::StudySpec unnamed = proto;
  unnamed.mutable_program()->set_name("");
  EXPECT_THAT(StudySpecFromProto(unnamed), StatusIs(kInvalid));
  v1::StudySpec long_value = proto;
  (*long_value.mutable_program()->mutable_parameters())["x"] =
      std::string(5000, 'a');
  EXPECT_THAT(StudySpecFromProto(long_value), StatusIs(kInvalid));
  // A noninteractive study still needs questions.
  EXPECT_THAT(StudySpecFromProto(ParseText<v1::StudySpec>(Study(""))),
              StatusIs(kInvalid));
}

// Found by the study-parsing fuzzer: proto3 refuses to parse strings that
// are not UTF-8, so a study holding one could be stored but never reloaded.
TEST(StudyConvert, RefusesStringsThatAreNotUtf8) {
  auto proto = ParseText<v1::StudySpec>(Study(kQuestions));
  proto.set_display_name("\377\377\377\020");
  EXPECT_THAT(StudySpecFromProto(proto).status().message(),
              HasSubstr("not valid UTF-8"));
  proto = ParseText<v1::StudySpec>(Study(kQuestions));
  proto.mutable_questions(0)->set_question_id("q\377");
  EXPECT_THAT(StudySpecFromProto(proto), StatusIs(kInvalid));
}

TEST(StudyConvert, RejectsMalformedStudyFields) {
  using P = v1::StudySpec;
  struct Case {
    const char* name;
    void (*mutate)(P*);
    const char* message;
  };
  const Case cases[] = {
      {"no questions", [](P* p) { p->clear_questions(); },
       "a round needs 1 to 1024 questions, got 0"},
      {"no schema", [](P* p) { p->clear_schema(); }, "study schema is missing"},
      {"bad schema", [](P* p) { p->mutable_schema()->add_fields(); },
       "schema field 5"},
      {"zero cap", [](P* p) { p->set_epsilon_cap_nanos(0); },
       "epsilon_cap_nanos must be"},
      {"cap beyond int64",
       [](P* p) { p->set_epsilon_cap_nanos(uint64_t{1} << 63); },
       "epsilon_cap_nanos must be"},
      {"unspecified mode",
       [](P* p) { p->set_mode(v1::STUDY_MODE_UNSPECIFIED); },
       "NONINTERACTIVE or INTERACTIVE"},
      {"confidence 1", [](P* p) { p->set_confidence(1); }, "confidence"},
      {"confidence NaN", [](P* p) { p->set_confidence(NAN); }, "confidence"},
      {"confidence negative", [](P* p) { p->set_confidence(-0.5); },
       "confidence"},
      {"quorum beyond int64", [](P* p) { p->set_quorum(uint64_t{1} << 63); },
       "quorum"},
      {"bad deadline",
       [](P* p) { p->mutable_deadline()->set_seconds(253402300800); },
       "timestamp seconds"},
      {"long display name",
       [](P* p) { p->set_display_name(std::string(1025, 'x')); },
       "display_name has 1025 bytes"},
      {"duplicate ids", [](P* p) { *p->add_questions() = p->questions(0); },
       "\"mean_income\" appears more than once"},
  };
  for (const Case& c : cases) {
    auto proto = ParseText<P>(Study(kQuestions));
    c.mutate(&proto);
    absl::StatusOr<StudySpec> spec = StudySpecFromProto(proto);
    EXPECT_THAT(spec, StatusIs(kInvalid)) << c.name;
    EXPECT_THAT(spec.status().message(), HasSubstr(c.message)) << c.name;
  }
}

TEST(StudyConvert, RejectsMalformedQuestions) {
  struct Case {
    const char* name;
    std::string text;
    const char* message;
  };
  const std::string sq =
      R"pb(statistical_query {
             root { field: "age" }
             output_range { lower: 0 upper: 120 }
           })pb";
  const std::string hist =
      R"pb(histogram { encoding { field { field: "smoker" } } })pb";
  const std::string id = "question_id: \"q\" ";
  const Case cases[] = {
      {"empty id", hist, "question_id must not be empty"},
      {"long id",
       absl::StrCat("question_id: \"", std::string(129, 'q'), "\" ", hist),
       "at most 128"},
      {"no kind", id, "question has no kind"},
      {"query with oracle", absl::StrCat(id, sq, " randomizer { oue {} }"),
       "real-valued randomizer"},
      {"query with parameters",
       absl::StrCat(id, sq, " randomizer { piecewise { num_cells: 8 } }"),
       "default parameters"},
      {"query with domain size",
       absl::StrCat(id, sq, " randomizer { domain_size: 2 }"),
       "domain_size must be 0"},
      {"bad query",
       absl::StrCat(id, R"pb(statistical_query { root { field: "age" } })pb"),
       "output_range is missing"},
      {"histogram with real mechanism",
       absl::StrCat(id, hist, " randomizer { duchi {} }"),
       "frequency-oracle randomizer"},
      {"histogram domain mismatch",
       absl::StrCat(id, hist, " randomizer { domain_size: 3 oue {} }"),
       "domain has 2 items"},
      {"histogram without encoding", absl::StrCat(id, "histogram {}"),
       "histogram.encoding is missing"},
      {"bad encoding", absl::StrCat(id, R"pb(histogram {
                                               encoding { field { field: "x" } }
                                             })pb"),
       "invalid domain encoding"},
      {"unknown post-processing", absl::StrCat(id, R"pb(histogram {
                               encoding { field { field: "smoker" } }
                               post_processing: "magic"
                             })pb"),
       "unknown post_processing \"magic\""},
      {"epsilon beyond int64",
       absl::StrCat(id, hist,
                    " randomizer { epsilon_nanos: 9223372036854775808 }"),
       "randomizer.epsilon_nanos must be at most"},
      {"target beyond int64",
       absl::StrCat(id, hist, " target_reports: 9223372036854775808"),
       "target_reports must be at most"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<Question> question =
        QuestionFromProto(ParseText<v1::Question>(c.text), SharedSchema());
    EXPECT_THAT(question, StatusIs(kInvalid)) << c.name;
    EXPECT_THAT(question.status().message(), HasSubstr(c.message)) << c.name;
    // The same failure surfaces through the whole study.
    auto study = ParseText<v1::StudySpec>(Study(kQuestions));
    *study.add_questions() = ParseText<v1::Question>(c.text);
    EXPECT_THAT(StudySpecFromProto(study), StatusIs(kInvalid)) << c.name;
  }
}

}  // namespace
}  // namespace ldp
