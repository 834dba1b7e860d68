// The stored study specs and program questions (server/store/study_codec.h):
// every kind of question and study comes back whole, defaults filled in, bytes
// written by servers before the codec still decode, and anything else is
// refused with InvalidArgument rather than misread.
#include "server/store/study_codec.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "proto/convert/study_convert.h"
#include "proto/ldp/v1/analyst_service.pb.h"
#include "tests/server/core/test_studies.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using ::ldp::testing::BucketHistogram;
using ::ldp::testing::BucketWorkload;
using ::ldp::testing::MakeStudy;
using ::ldp::testing::MeanQuestion;
using ::ldp::testing::StatusIs;

constexpr int64_t kEps = kNanosPerEpsilon;

StudySpec EveryKindOfQuestion() {
  StudySpec spec = MakeStudy(
      3 * kEps,
      {MeanQuestion("mean", "x", -1, 1, RealMechanismKind::kPiecewise, kEps / 2,
                    100),
       BucketHistogram("hist",
                       FrequencyOracleSpec{
                           .kind = FrequencyOracleKind::kOptimizedLocalHashing,
                           .epsilon = 0.5},
                       ConsistencyMethod::kSimplexProjection),
       BucketWorkload("cdf", WorkloadKind::kPrefix, std::nullopt, true)});
  spec.confidence = 0.9;
  spec.quorum = 7;
  spec.round_duration = absl::Minutes(5);
  spec.deadline = absl::FromUnixSeconds(1'900'000'000);
  return spec;
}

TEST(StudyCodec, EveryQuestionKindAndScalarComesBack) {
  const StudySpec spec = EveryKindOfQuestion();
  const std::string bytes = EncodeStudySpec(spec);
  absl::StatusOr<StudySpec> back = DecodeStudySpec(bytes);
  ASSERT_OK(back);
  EXPECT_EQ(back->display_name, spec.display_name);
  EXPECT_EQ(back->epsilon_cap_nanos, spec.epsilon_cap_nanos);
  EXPECT_EQ(back->confidence, spec.confidence);
  EXPECT_EQ(back->quorum, spec.quorum);
  EXPECT_EQ(back->round_duration, spec.round_duration);
  EXPECT_EQ(back->deadline, spec.deadline);
  ASSERT_EQ(back->questions.size(), 3u);
  EXPECT_EQ(back->questions[0].epsilon_nanos, kEps / 2);
  EXPECT_EQ(back->questions[0].target_reports, 100);
  const auto& hist = std::get<HistogramQuestion>(back->questions[1].kind);
  ASSERT_TRUE(hist.oracle.has_value());
  EXPECT_EQ(hist.oracle->kind, FrequencyOracleKind::kOptimizedLocalHashing);
  EXPECT_EQ(hist.post_processing, ConsistencyMethod::kSimplexProjection);
  EXPECT_TRUE(std::get<WorkloadQuestion>(back->questions[2].kind).consistency);
  // Canonical: what was decoded encodes to the same bytes.
  EXPECT_EQ(EncodeStudySpec(*back), bytes);
}

TEST(StudyCodec, AnInteractiveStudyKeepsItsProgramAndNoDeadline) {
  StudySpec spec = MakeStudy(kEps, {});
  spec.mode = StudyMode::kInteractive;
  spec.program = ProgramSpec{.name = "heavy_hitters",
                             .parameters = {{"threshold", "0.05"}}};
  absl::StatusOr<StudySpec> back = DecodeStudySpec(EncodeStudySpec(spec));
  ASSERT_OK(back);
  EXPECT_EQ(back->mode, StudyMode::kInteractive);
  EXPECT_EQ(back->program, spec.program);
  EXPECT_EQ(back->deadline, absl::InfiniteFuture());
}

// Servers before the codec stored the analyst's own serialization, with the
// wire's defaults left at 0; it reads as the analyst meant it.
TEST(StudyCodec, TheAnalystsOwnBytesStillDecode) {
  StudySpec old = MakeStudy(kEps, {MeanQuestion("m", "x", -1, 1)});
  old.display_name = "old";
  v1::StudySpec proto;
  ToProto(old, &proto);
  proto.clear_confidence();
  proto.clear_round_duration_seconds();
  absl::StatusOr<StudySpec> spec = DecodeStudySpec(proto.SerializeAsString());
  ASSERT_OK(spec);
  EXPECT_EQ(spec->display_name, "old");
  EXPECT_EQ(spec->confidence, 0.95);
  EXPECT_EQ(spec->round_duration, absl::Hours(1));
  ASSERT_EQ(spec->questions.size(), 1u);
}

TEST(StudyCodec, ProgramQuestionsComeBackOverTheStudysSchema) {
  const std::vector<Question> asked = {MeanQuestion("a", "y", 0, 10),
                                       BucketHistogram("b")};
  absl::StatusOr<std::vector<Question>> back =
      DecodeQuestions(EncodeQuestions(asked), testing::TestSchema());
  ASSERT_OK(back);
  ASSERT_EQ(back->size(), 2u);
  EXPECT_EQ((*back)[0].id, "a");
  EXPECT_EQ((*back)[1].id, "b");
  // Over a schema without their fields they are refused, not misread.
  const RecordSchema other =
      *RecordSchema::Create({FieldSpec::Real("z", 0, 1)});
  EXPECT_THAT(DecodeQuestions(EncodeQuestions(asked), other),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(StudyCodec, BytesThatAreNoSpecAreRefused) {
  EXPECT_THAT(DecodeStudySpec("\xff\xff\xff"),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(DecodeStudySpec(""),  // an empty spec: no cap, no schema
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(DecodeQuestions("\xff\xff\xff", testing::TestSchema()),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

}  // namespace
}  // namespace ldp
