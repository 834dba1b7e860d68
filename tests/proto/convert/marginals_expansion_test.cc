// A marginals question becomes one histogram question per k-subset of its
// fields (marginals_expansion.h): ids, encodings, randomizer and target in
// lexicographic order beside the other questions; 20 eight-valued fields
// give 190 questions of 64 cells each, never the 8^20 joint domain; and
// every malformed form is refused, naming the question.
#include "proto/convert/marginals_expansion.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "proto/convert/schema_convert.h"
#include "proto/convert/study_convert.h"
#include "tests/proto/convert/convert_testing.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using ::ldp::testing::kInvalid;
using ::ldp::testing::ParseText;
using ::ldp::testing::SharedSchema;
using ::ldp::testing::StatusIs;
using ::testing::HasSubstr;

google::protobuf::RepeatedPtrField<v1::Question> Questions(
    const std::string& text) {
  return ParseText<v1::StudySpec>(text).questions();
}

TEST(MarginalsExpansion, OneHistogramPerSubsetInOrder) {
  const auto questions = Questions(R"pb(
    questions {
      question_id: "first"
      histogram { encoding { field { field: "smoker" } } }
    }
    questions {
      question_id: "pairs"
      marginals {
        fields { field: "smoker" }
        fields { field: "age" num_buckets: 4 }
        fields { field: "country" }
      }
      randomizer { epsilon_nanos: 500000000 }
      target_reports: 70
    }
  )pb");
  // Order 0 is refused below; here order 2.
  auto with_order = questions;
  with_order.Mutable(1)->mutable_marginals()->set_order(2);
  absl::StatusOr<std::vector<v1::Question>> expanded =
      ExpandMarginals(with_order);
  ASSERT_OK(expanded);
  ASSERT_EQ(expanded->size(), 4u);
  EXPECT_EQ((*expanded)[0].question_id(), "first");
  const char* ids[] = {"pairs:smoker,age", "pairs:smoker,country",
                       "pairs:age,country"};
  const std::vector<std::vector<std::string>> fields = {
      {"smoker", "age"}, {"smoker", "country"}, {"age", "country"}};
  for (int i = 0; i < 3; ++i) {
    const v1::Question& q = (*expanded)[i + 1];
    EXPECT_EQ(q.question_id(), ids[i]);
    ASSERT_TRUE(q.has_histogram());
    const v1::ProductEncoding& product = q.histogram().encoding().product();
    ASSERT_EQ(product.fields_size(), 2);
    EXPECT_EQ(product.fields(0).field(), fields[i][0]);
    EXPECT_EQ(product.fields(1).field(), fields[i][1]);
    EXPECT_EQ(q.randomizer().epsilon_nanos(), 500000000u);
    EXPECT_EQ(q.target_reports(), 70u);
  }
  EXPECT_EQ(
      (*expanded)[1].histogram().encoding().product().fields(1).num_buckets(),
      4u);
  absl::StatusOr<std::vector<Question>> read =
      QuestionsFromProto(with_order, SharedSchema());
  ASSERT_OK(read);
  ASSERT_EQ(read->size(), 4u);
  // smoker × age in 4 buckets; smoker × country; age × country.
  const uint32_t sizes[] = {8, 6, 12};
  for (int i = 0; i < 3; ++i) {
    const auto& h = std::get<HistogramQuestion>((*read)[i + 1].kind);
    EXPECT_EQ(h.encoding.domain_size(), sizes[i]) << ids[i];
  }
}

// The survey the single joint domain could not hold: 20 fields of 8
// values, 190 two-way marginals of 64 cells.
TEST(MarginalsExpansion, TwentyEightValuedFieldsGive190SmallHistograms) {
  v1::StudySpec spec;
  v1::Question* q = spec.add_questions();
  q->set_question_id("survey");
  q->mutable_marginals()->set_order(2);
  for (int f = 0; f < 20; ++f) {
    v1::FieldSpec* field = spec.mutable_schema()->add_fields();
    field->set_name(absl::StrCat("a", f));
    for (int v = 0; v < 8; ++v) {
      field->mutable_categorical_field()->add_categories(absl::StrCat("v", v));
    }
    q->mutable_marginals()->add_fields()->set_field(absl::StrCat("a", f));
  }
  absl::StatusOr<RecordSchema> schema = RecordSchemaFromProto(spec.schema());
  ASSERT_OK(schema);
  absl::StatusOr<std::vector<Question>> read =
      QuestionsFromProto(spec.questions(), *schema);
  ASSERT_OK(read);
  ASSERT_EQ(read->size(), 190u);
  for (const Question& question : *read) {
    EXPECT_EQ(std::get<HistogramQuestion>(question.kind).encoding.domain_size(),
              64u)
        << question.id;
  }
  EXPECT_EQ(read->front().id, "survey:a0,a1");
  EXPECT_EQ(read->back().id, "survey:a18,a19");
}

TEST(MarginalsExpansion, RefusesMalformedMarginalsNamingTheQuestion) {
  struct Case {
    const char* name;
    std::string marginals;
    const char* message;
  };
  std::string many;
  for (int f = 0; f < 65; ++f) {
    absl::StrAppend(&many, "fields { field: \"f", f, "\" } ");
  }
  std::string forty;
  for (int f = 0; f < 40; ++f) {
    absl::StrAppend(&forty, "fields { field: \"f", f, "\" } ");
  }
  const Case cases[] = {
      {"no fields", "order: 1", "needs 1 to 64 fields, got 0"},
      {"too many fields", many + "order: 1", "needs 1 to 64 fields, got 65"},
      {"field twice",
       R"pb(fields { field: "age" } fields { field: "age" } order: 1)pb",
       "names field \"age\" twice"},
      {"order 0", R"pb(fields { field: "age" })pb", "order must be 1 to 3"},
      {"order 4",
       R"pb(fields { field: "age" }
            fields { field: "smoker" }
            fields { field: "country" }
            fields { field: "income" num_buckets: 2 }
            order: 4)pb",
       "order must be 1 to 3"},
      {"order above fields",
       R"pb(fields { field: "age" } fields { field: "smoker" } order: 3)pb",
       "at most the number of fields (2)"},
      {"past a round", forty + "order: 3",
       "would pass a round's 1024 questions"},
  };
  for (const Case& c : cases) {
    const auto questions = Questions(absl::StrCat(
        "questions { question_id: \"m\" marginals { ", c.marginals, " } }"));
    const absl::Status status =
        QuestionsFromProto(questions, SharedSchema()).status();
    EXPECT_THAT(status, StatusIs(kInvalid)) << c.name;
    EXPECT_THAT(status.message(), HasSubstr("marginals question \"m\""))
        << c.name;
    EXPECT_THAT(status.message(), HasSubstr(c.message)) << c.name;
  }
  // A field the schema lacks: the expanded question that names it says so.
  const absl::Status unknown = QuestionsFromProto(Questions(R"pb(questions {
                           question_id: "m"
                           marginals {
                             fields { field: "age" }
                             fields { field: "height" }
                             order: 2
                           }
                         })pb"),
                                                  SharedSchema())
                                   .status();
  EXPECT_THAT(unknown, StatusIs(kInvalid));
  EXPECT_THAT(unknown.message(), HasSubstr("m:age,height"));
  EXPECT_THAT(unknown.message(), HasSubstr("height"));
  // Read alone (not as a round's questions), it is refused.
  v1::Question alone = Questions(R"pb(questions {
                                        question_id: "m"
                                        marginals {
                                          fields { field: "age" }
                                          order: 1
                                        }
                                      })pb")
                           .Get(0);
  EXPECT_THAT(QuestionFromProto(alone, SharedSchema()).status(),
              StatusIs(kInvalid));
}

}  // namespace
}  // namespace ldp
