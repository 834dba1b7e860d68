// The checks a study spec passes before anything is planned; see the header.
#include "planning/study_validation.h"

#include <cmath>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/estimation/confidence_interval.h"
#include "common/workload/strategies/workload.h"
#include "planning/planner.h"

namespace ldp {
namespace {

absl::Status ValidateRoundLimits(const StudySpec& spec) {
  if (spec.epsilon_cap_nanos <= 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "epsilon_cap_nanos must be > 0, got ", spec.epsilon_cap_nanos));
  }
  const int m = static_cast<int>(spec.questions.size());
  if (m < 1 || m > kMaxQuestionsPerRound) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a study needs 1 to ", kMaxQuestionsPerRound, " questions, got ", m));
  }
  RETURN_IF_ERROR(ValidateConfidence(spec.confidence));
  if (spec.quorum < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("quorum must be >= 0, got ", spec.quorum));
  }
  if (spec.round_duration <= absl::ZeroDuration() ||
      spec.round_duration == absl::InfiniteDuration()) {
    return absl::InvalidArgumentError(
        "round_duration must be positive and finite");
  }
  return absl::OkStatus();
}

absl::Status ValidateQuestion(const StudySpec& spec, const Question& q) {
  if (q.id.empty() || q.id.size() > kMaxQuestionIdLength) {
    return absl::InvalidArgumentError(
        absl::StrCat("question ids must have 1 to ", kMaxQuestionIdLength,
                     " characters, got \"", q.id, "\""));
  }
  if (q.epsilon_nanos < 0 || q.epsilon_nanos > spec.epsilon_cap_nanos) {
    return absl::InvalidArgumentError(absl::StrCat(
        "question ", q.id, ": epsilon_nanos must be in [0, the cap ",
        spec.epsilon_cap_nanos, "], got ", q.epsilon_nanos));
  }
  if (q.target_reports < 0 || q.target_reports > kMaxTargetReports) {
    return absl::InvalidArgumentError(absl::StrCat(
        "question ", q.id, ": target_reports must be in [0, 2^40], got ",
        q.target_reports));
  }
  if (const auto* sq = std::get_if<StatisticalQueryQuestion>(&q.kind)) {
    if (!(sq->query.schema() == spec.schema)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "question ", q.id, ": its query was built for another schema"));
    }
  } else if (const auto* w = std::get_if<WorkloadQuestion>(&q.kind)) {
    absl::StatusOr<Workload> workload = Workload::Create(w->workload);
    if (!workload.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("question ", q.id,
                       ": invalid workload: ", workload.status().message()));
    }
    if (workload->domain_size() != w->encoding.domain_size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "question ", q.id, ": the workload is over ", workload->domain_size(),
          " items but the encoding's domain has ", w->encoding.domain_size()));
    }
  } else {
    const auto& histogram = std::get<HistogramQuestion>(q.kind);
    if (histogram.post_processing ==
        ConsistencyMethod::kIterativeBayesianUpdate) {
      return absl::InvalidArgumentError(absl::StrCat(
          "question ", q.id,
          ": the server supports simplex_projection and clip_and_normalize "
          "post-processing, not iterative_bayesian_update"));
    }
    const bool digest =
        std::holds_alternative<DigestEncoding>(histogram.encoding.spec());
    const bool rappor = histogram.oracle.has_value() &&
                        histogram.oracle->kind == FrequencyOracleKind::kRappor;
    if (digest != histogram.candidates.has_value() ||
        (digest && (!rappor || histogram.post_processing.has_value()))) {
      return absl::InvalidArgumentError(absl::StrCat(
          "question ", q.id,
          ": a digest encoding is for rappor questions only (RAPPOR over "
          "candidate strings, no post-processing)"));
    }
  }
  return absl::OkStatus();
}

// A shuffled study: a noninteractive one whose reports are each one
// pure ε0-LDP report, which is what the amplification bounds assume.
// Memoized (longitudinal) answers repeat across rounds, so they are left
// out.
absl::Status ValidateShuffle(const StudySpec& spec) {
  const ShuffleSpec& shuffle = *spec.shuffle;
  if (spec.mode != StudyMode::kNoninteractive) {
    return absl::InvalidArgumentError(
        "shuffle: only NONINTERACTIVE studies can be shuffled");
  }
  if (!(shuffle.target_epsilon > 0 &&
        shuffle.target_epsilon <= kMaxShuffleTargetEpsilon)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "shuffle.target_epsilon must be in (0, ", kMaxShuffleTargetEpsilon,
        "], got ", shuffle.target_epsilon));
  }
  if (!(shuffle.delta > 0 && shuffle.delta < 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("shuffle.delta must be in (0, 1), got ", shuffle.delta));
  }
  if (shuffle.min_batch < kMinShuffleBatch ||
      shuffle.min_batch > kMaxShuffleBatch) {
    return absl::InvalidArgumentError(
        absl::StrCat("shuffle.min_batch must be in [", kMinShuffleBatch,
                     ", 2^30], got ", shuffle.min_batch));
  }
  for (const Question& q : spec.questions) {
    const auto* h = std::get_if<HistogramQuestion>(&q.kind);
    if (h != nullptr &&
        (h->epsilon_permanent > 0 || h->candidates.has_value() ||
         (h->oracle.has_value() && h->oracle->epsilon_permanent > 0))) {
      return absl::InvalidArgumentError(absl::StrCat(
          "question ", q.id,
          ": a shuffled study cannot ask longitudinal (memoized) questions"));
    }
  }
  return absl::OkStatus();
}

// `program_round`: the questions of one program round, each with its own εₜ
// and answered by different agents, so their sum is not bounded by the cap.
}  // namespace

absl::Status ValidateStudy(const StudySpec& spec, bool program_round) {
  RETURN_IF_ERROR(ValidateRoundLimits(spec));
  if (spec.shuffle.has_value()) RETURN_IF_ERROR(ValidateShuffle(spec));
  absl::flat_hash_set<std::string> ids;
  // At most the cap: a term is compared with what the cap leaves before it
  // is added, so the sum never overflows (a cap may be 2^63 − 1). A program
  // round's questions are not summed.
  int64_t explicit_sum = 0;
  for (const Question& q : spec.questions) {
    RETURN_IF_ERROR(ValidateQuestion(spec, q));
    if (!ids.insert(q.id).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("question id \"", q.id, "\" appears twice"));
    }
    if (program_round) continue;
    if (q.epsilon_nanos > spec.epsilon_cap_nanos - explicit_sum) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the questions' explicit epsilon_nanos add up to more than the "
          "study's cap of ",
          spec.epsilon_cap_nanos, " nano-epsilon; lower them or the cap"));
    }
    explicit_sum += q.epsilon_nanos;
  }
  return absl::OkStatus();
}

}  // namespace ldp
