// The SQ oracle as an analyst program; see the header for the protocol.
#include "planning/programs/sq_program.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/memory/memory.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/base/status_macros.h"
#include "common/estimation/confidence_interval.h"
#include "common/estimation/sample_size.h"
#include "common/tasks/study_spec.h"
#include "common/tasks/task.h"

namespace ldp {
namespace {

// Each query needs ≤ 2^40 reports, so partial sums stay far from overflow.
constexpr int64_t kMaxSqAgents = int64_t{1} << 50;

absl::Status TooManyAgents(int64_t total) {
  return absl::OutOfRangeError(absl::StrCat(
      "the SQ plan needs at least ", total,
      " agents, more than the 2^50 supported; ask fewer queries or relax "
      "their tolerances"));
}

double QueryBound(const Query& query) {
  const QueryRange range = query.output_range();
  return (range.upper - range.lower) / 2;
}

double EpsilonOf(const ProgramContext& context) {
  return static_cast<double>(context.epsilon_cap_nanos) / kNanosPerEpsilon;
}

absl::Status ValidateRequest(const SqRequest& request) {
  if (!(request.tolerance > 0) || !std::isfinite(request.tolerance)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "SQ ", request.id, ": tolerance must be finite and > 0, got ",
        request.tolerance));
  }
  if (!(request.failure_probability > 0 && request.failure_probability < 1)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "SQ ", request.id, ": failure probability must be in (0, 1), got ",
        request.failure_probability));
  }
  return absl::OkStatus();
}

// Whether a batch the algorithm asks has the shape it planned: the plan's
// (τ, β, range) fixed the agents each query gets.
absl::Status CheckAgainstPlan(size_t k, absl::Span<const SqRequest> batch,
                              absl::Span<const SqRequest> planned) {
  if (batch.size() != planned.size()) {
    return absl::InternalError(absl::StrCat(
        "the SQ algorithm asks ", batch.size(), " queries in batch ", k + 1,
        " but planned ", planned.size()));
  }
  for (size_t i = 0; i < batch.size(); ++i) {
    const SqRequest& a = batch[i];
    const SqRequest& p = planned[i];
    if (a.tolerance != p.tolerance ||
        a.failure_probability != p.failure_probability ||
        !(a.query.output_range() == p.query.output_range())) {
      return absl::InternalError(absl::StrFormat(
          "the SQ algorithm's query %d of batch %d (%s) asks τ=%g, β=%g, "
          "range [%g, %g] but planned τ=%g, β=%g, range [%g, %g]",
          i + 1, k + 1, a.id, a.tolerance, a.failure_probability,
          a.query.output_range().lower, a.query.output_range().upper,
          p.tolerance, p.failure_probability, p.query.output_range().lower,
          p.query.output_range().upper));
    }
  }
  return absl::OkStatus();
}

// Reports `request` needs with `choice`, after checking its (τ, β).
absl::StatusOr<int64_t> ReportsNeededWith(const SqRequest& request,
                                          const SqMechanismChoice& choice,
                                          double epsilon) {
  RETURN_IF_ERROR(ValidateRequest(request));
  ASSIGN_OR_RETURN(
      const int64_t n,
      ReportsNeeded(choice.report_variance,
                    {.tolerance = request.tolerance,
                     .confidence = 1 - request.failure_probability}));
  if (n > kMaxSqReports) {
    return absl::OutOfRangeError(absl::StrFormat(
        "SQ %s needs %d reports (τ=%g, β=%g, ε=%g), more than the 2^40 one "
        "query may ask; relax τ or β, or raise ε",
        request.id, n, request.tolerance, request.failure_probability,
        epsilon));
  }
  return n;
}

// ChooseSqMechanism per distinct bound: a plan may hold a thousand queries
// of one range, and building every mechanism kind for each is slow.
class MechanismChoices {
 public:
  explicit MechanismChoices(double epsilon) : epsilon_(epsilon) {}

  absl::StatusOr<SqMechanismChoice> For(const Query& query) {
    const double bound = QueryBound(query);
    for (const auto& [b, choice] : cache_) {
      if (b == bound) return choice;
    }
    ASSIGN_OR_RETURN(SqMechanismChoice choice,
                     ChooseSqMechanism(epsilon_, bound));
    cache_.emplace_back(bound, choice);
    return choice;
  }

 private:
  const double epsilon_;
  std::vector<std::pair<double, SqMechanismChoice>> cache_;
};

}  // namespace

absl::StatusOr<int64_t> SqReportsNeeded(const SqRequest& request,
                                        double epsilon) {
  ASSIGN_OR_RETURN(const SqMechanismChoice choice,
                   ChooseSqMechanism(epsilon, QueryBound(request.query)));
  return ReportsNeededWith(request, choice, epsilon);
}

absl::StatusOr<int64_t> PredictedAgents(const SqAlgorithm& algorithm,
                                        double epsilon) {
  MechanismChoices choices(epsilon);
  int64_t total = 0;
  for (const std::vector<SqRequest>& batch : algorithm.Plan()) {
    for (const SqRequest& request : batch) {
      ASSIGN_OR_RETURN(const SqMechanismChoice choice,
                       choices.For(request.query));
      ASSIGN_OR_RETURN(const int64_t n,
                       ReportsNeededWith(request, choice, epsilon));
      total += n;
      if (total > kMaxSqAgents) return TooManyAgents(total);
    }
  }
  return total;
}

SqAnswer ToSqAnswer(const SqRequest& request, const ScalarEstimate& estimate) {
  const QueryRange range = request.query.output_range();
  SqAnswer answer{.id = request.id, .num_reports = estimate.num_reports};
  if (estimate.num_reports == 0 || !std::isfinite(estimate.value) ||
      !std::isfinite(estimate.standard_error)) {
    // Nothing learned: the range is the only honest interval.
    answer.value = (range.lower + range.upper) / 2;
    answer.interval = {range.lower, range.upper};
    answer.achieved_tolerance = INFINITY;
    return answer;
  }
  // The study's intervals are at its own confidence; an SQ's guarantee is
  // at 1 − β, so rebuild it from the standard error.
  const Interval normal = NormalInterval(
      estimate.value, estimate.standard_error, 1 - request.failure_probability);
  // Clamping into the range where E[φ] lies never moves the value away
  // from it, and intersecting keeps the interval's coverage.
  answer.value = std::clamp(estimate.value, range.lower, range.upper);
  answer.interval = {std::clamp(normal.lower, range.lower, range.upper),
                     std::clamp(normal.upper, range.lower, range.upper)};
  answer.achieved_tolerance = (normal.upper - normal.lower) / 2;
  answer.meets_tolerance = answer.achieved_tolerance <= request.tolerance;
  return answer;
}

absl::StatusOr<std::unique_ptr<SqProgram>> SqProgram::Create(
    std::unique_ptr<const SqAlgorithm> algorithm,
    const ProgramContext& context) {
  if (algorithm == nullptr) {
    return absl::InvalidArgumentError("SqProgram needs an SQ algorithm");
  }
  if (context.epsilon_cap_nanos <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("SqProgram needs a cap > 0, got ",
                     context.epsilon_cap_nanos, " nano-ε"));
  }
  const double epsilon = EpsilonOf(context);
  std::vector<std::vector<SqRequest>> plan = algorithm->Plan();
  if (plan.empty()) {
    return absl::InvalidArgumentError("the SQ algorithm plans no batch");
  }
  MechanismChoices choices(epsilon);
  std::vector<Batch> batches;
  int64_t total = 0;
  for (size_t k = 0; k < plan.size(); ++k) {
    const std::vector<SqRequest>& requests = plan[k];
    if (requests.empty() ||
        requests.size() > static_cast<size_t>(kMaxQuestionsPerRound)) {
      return absl::InvalidArgumentError(
          absl::StrCat("batch ", k + 1, " of the SQ plan has ", requests.size(),
                       " queries; a round takes 1 to ", kMaxQuestionsPerRound));
    }
    Batch batch;
    absl::flat_hash_set<std::string> ids;
    for (const SqRequest& request : requests) {
      if (!ids.insert(request.id).second) {
        return absl::InvalidArgumentError(
            absl::StrCat("batch ", k + 1, " of the SQ plan repeats query id \"",
                         request.id, "\""));
      }
      ASSIGN_OR_RETURN(const SqMechanismChoice choice,
                       choices.For(request.query));
      ASSIGN_OR_RETURN(const int64_t n,
                       ReportsNeededWith(request, choice, epsilon));
      batch.mechanisms.push_back(choice);
      batch.reports_needed.push_back(n);
      batch.total_reports_needed += n;
    }
    total += batch.total_reports_needed;
    if (total > kMaxSqAgents) return TooManyAgents(total);
    batches.push_back(std::move(batch));
  }
  // Slice widths ∝ each batch's need; the last ends at exactly 1.
  int64_t before = 0;
  for (size_t k = 0; k < batches.size(); ++k) {
    const int64_t after = before + batches[k].total_reports_needed;
    batches[k].slice = {
        .begin = static_cast<double>(before) / static_cast<double>(total),
        .end = k + 1 == batches.size()
                   ? 1.0
                   : static_cast<double>(after) / static_cast<double>(total)};
    if (!(batches[k].slice.begin < batches[k].slice.end)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "batch ", k + 1,
          " of the SQ plan needs too small a share of the "
          "population to get its own slice (",
          batches[k].total_reports_needed, " of ", total, " reports)"));
    }
    before = after;
  }
  return absl::WrapUnique(new SqProgram(std::move(algorithm), context,
                                        std::move(plan), std::move(batches),
                                        total));
}

std::vector<ScheduledRound> SqProgram::Schedule() const {
  std::vector<ScheduledRound> schedule;
  for (size_t k = 0; k < batches_.size(); ++k) {
    schedule.push_back(
        {.name = absl::StrCat("SQ batch ", k + 1, " of ", batches_.size()),
         .slice = batches_[k].slice,
         .epsilon_nanos = context_.epsilon_cap_nanos});
  }
  return schedule;
}

absl::StatusOr<std::vector<std::vector<SqAnswer>>> SqProgram::AnswersOf(
    absl::Span<const RoundAnswers> history) const {
  if (history.size() > plan_.size()) {
    return absl::InternalError(absl::StrCat(
        "the SQ program planned ", plan_.size(), " batches but has ",
        history.size(), " rounds of answers"));
  }
  std::vector<std::vector<SqAnswer>> answers;
  for (size_t k = 0; k < history.size(); ++k) {
    const std::vector<QuestionAnswer>& round = history[k].answers;
    if (round.size() != plan_[k].size()) {
      return absl::InternalError(absl::StrCat(
          "round ", k + 1, " has ", round.size(), " answers but SQ batch ",
          k + 1, " asked ", plan_[k].size(), " queries"));
    }
    std::vector<SqAnswer>& batch = answers.emplace_back();
    for (size_t i = 0; i < round.size(); ++i) {
      const auto* scalar = std::get_if<ScalarEstimate>(&round[i].estimate);
      if (scalar == nullptr) {
        return absl::InternalError(absl::StrCat(
            "round ", k + 1, " answers question ", round[i].question_id,
            " with a histogram, not a statistical query estimate"));
      }
      // (τ, β, range) are the plan's (checked when the round was asked);
      // the id is the one the round used.
      SqAnswer answer = ToSqAnswer(plan_[k][i], *scalar);
      answer.id = round[i].question_id;
      batch.push_back(std::move(answer));
    }
  }
  return answers;
}

absl::StatusOr<ProgramRound> SqProgram::RoundOf(
    size_t k, absl::Span<const SqRequest> batch) const {
  RETURN_IF_ERROR(CheckAgainstPlan(k, batch, plan_[k]));
  ProgramRound round;
  for (size_t i = 0; i < batch.size(); ++i) {
    round.questions.push_back(
        {.id = batch[i].id,
         .kind = StatisticalQueryQuestion{.query = batch[i].query,
                                          .mechanism =
                                              batches_[k].mechanisms[i].kind},
         .epsilon_nanos = context_.epsilon_cap_nanos,
         .target_reports = batches_[k].reports_needed[i]});
  }
  return round;
}

absl::StatusOr<ProgramResult> SqProgram::FinalResult(
    absl::Span<const std::vector<SqAnswer>> answers) const {
  ASSIGN_OR_RETURN(ProgramResult result, algorithm_->Result(answers));
  int misses = 0;
  for (const std::vector<SqAnswer>& batch : answers) {
    for (const SqAnswer& a : batch) misses += !a.meets_tolerance;
  }
  absl::StrAppendFormat(&result.summary,
                        " (%d SQ batch(es); planner predicts %d agents",
                        answers.size(), predicted_agents_);
  if (misses > 0) {
    absl::StrAppendFormat(&result.summary,
                          "; %d answer(s) missed their tolerance: too few "
                          "agents, so the guarantee does not hold",
                          misses);
  }
  result.summary += ")";
  result.values.push_back({.name = "predicted_agents",
                           .value = static_cast<double>(predicted_agents_)});
  result.values.push_back({.name = "answers_missing_tolerance",
                           .value = static_cast<double>(misses)});
  return result;
}

absl::StatusOr<ProgramStep> SqProgram::Next(
    absl::Span<const RoundAnswers> history) const {
  ASSIGN_OR_RETURN(const std::vector<std::vector<SqAnswer>> answers,
                   AnswersOf(history));
  const size_t k = answers.size();
  if (k < plan_.size()) {
    ASSIGN_OR_RETURN(std::vector<SqRequest> batch,
                     algorithm_->NextBatch(answers));
    if (!batch.empty()) {
      ASSIGN_OR_RETURN(ProgramRound round, RoundOf(k, batch));
      return ProgramStep{.round = std::move(round),
                         .result = {.summary = absl::StrFormat(
                                        "SQ batch %d of at most %d: %d queries",
                                        k + 1, plan_.size(), batch.size())}};
    }
  }
  ASSIGN_OR_RETURN(ProgramResult result, FinalResult(answers));
  return ProgramStep{.result = std::move(result)};
}

}  // namespace ldp
