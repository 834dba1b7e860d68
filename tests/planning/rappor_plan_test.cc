// A RAPPOR question through the planner: RAPPOR over the digests' open
// domain with ε∞ defaulting to twice ε, the server's candidate decoding
// built from the same digests the agents compute, an estimate over the
// candidates only, and the forms the study check refuses.
#include <cmath>
#include <string>
#include <vector>

#include "common/queries/string_digest.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "planning/planner.h"
#include "planning/study_validation.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using ::ldp::testing::StatusIs;
using ::testing::HasSubstr;

constexpr int64_t kNanos = kNanosPerEpsilon;

RecordSchema RapporPlanSchema() {
  return *RecordSchema::Create({FieldSpec::BitVector("text", 64)});
}

HistogramQuestion RapporPlanQuestion(uint64_t seed) {
  return HistogramQuestion{
      .encoding = *DomainEncoding::Create(
          DigestEncoding{.field = "text", .seed = seed}, RapporPlanSchema()),
      .oracle = FrequencyOracleSpec{.kind = FrequencyOracleKind::kRappor,
                                    .hash_seed = seed},
      .candidates = CandidateStrings{.strings = {"apple", "pear", "plum"},
                                     .false_discovery_rate = 0.1}};
}

StudySpec RapporPlanStudy(HistogramQuestion question) {
  return StudySpec{
      .schema = RapporPlanSchema(),
      .epsilon_cap_nanos = 2 * kNanos,
      .questions = {Question{.id = "fruit", .kind = std::move(question)}}};
}

TEST(RapporPlan, RapporOverDigestsWithTheCandidatesOnTheServer) {
  const absl::StatusOr<RoundPlan> plan =
      RoundPlan::Create(RapporPlanStudy(RapporPlanQuestion(3)));
  ASSERT_OK(plan);
  const auto& oracle =
      std::get<FrequencyOracleSpec>(plan->decisions().questions[0].randomizer);
  EXPECT_EQ(oracle.kind, FrequencyOracleKind::kRappor);
  EXPECT_EQ(oracle.epsilon, 2);
  EXPECT_EQ(oracle.epsilon_permanent, 4);  // twice ε when left 0
  EXPECT_EQ(oracle.domain_size, kDigestDomainSize);
  const PlannedQuestion& planned = plan->questions()[0];
  ASSERT_NE(planned.workload.candidates, nullptr);
  EXPECT_EQ(planned.workload.candidates->items,
            *CandidateDigests({"apple", "pear", "plum"}, 64, 3));
  EXPECT_EQ(planned.workload.candidates->false_discovery_rate, 0.1);
  // The task the agents get has the digest, never the candidates.
  const auto& task = std::get<HistogramTask>(planned.task->question);
  EXPECT_TRUE(std::holds_alternative<DigestEncoding>(task.encoding.spec()));

  // Before any report: every candidate unidentified, none discovered.
  const TaskAccumulator empty(planned.mechanism, planned.workload);
  const auto estimate = std::get<HistogramEstimate>(empty.Estimate(0.95));
  ASSERT_EQ(estimate.frequencies.size(), 3u);
  ASSERT_TRUE(estimate.candidates.has_value());
  EXPECT_EQ(estimate.candidates->labels,
            (std::vector<std::string>{"apple", "pear", "plum"}));
  for (size_t c = 0; c < 3; ++c) {
    EXPECT_TRUE(std::isinf(estimate.variances[c]));
    EXPECT_EQ(estimate.candidates->p_values[c], 1);
    EXPECT_FALSE(estimate.candidates->discovered[c]);
  }
}

TEST(RapporPlan, TheStudyCheckRefusesMisusedDigests) {
  HistogramQuestion bare = RapporPlanQuestion(1);
  bare.candidates.reset();
  EXPECT_THAT(ValidateStudy(RapporPlanStudy(bare)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("digest encoding is for rappor questions")));
  HistogramQuestion other = RapporPlanQuestion(1);
  other.oracle->kind = FrequencyOracleKind::kOptimizedUnaryEncoding;
  EXPECT_THAT(ValidateStudy(RapporPlanStudy(other)),
              StatusIs(absl::StatusCode::kInvalidArgument));
  StudySpec shuffled = RapporPlanStudy(RapporPlanQuestion(1));
  shuffled.shuffle =
      ShuffleSpec{.target_epsilon = 1, .delta = 1e-8, .min_batch = 1000};
  EXPECT_THAT(ValidateStudy(shuffled),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("longitudinal (memoized)")));
}

}  // namespace
}  // namespace ldp
