// The noninteractive planner; see the header for the choice it makes.
#include "planning/planner.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/base/status_macros.h"
#include "common/estimation/confidence_interval.h"
#include "common/workload/strategies/strategy_factory.h"
#include "common/workload/strategies/workload.h"
#include "common/workload/strategies/workload_estimator.h"
#include "planning/shuffle_plan.h"
#include "planning/study_validation.h"
#include "planning/workload_choice.h"

namespace ldp {
namespace {

using Randomizer =
    std::variant<RealMechanismSpec, FrequencyOracleSpec, StrategyDecision>;
using EstimatorMap =
    std::map<std::string, std::shared_ptr<const WorkloadEstimator>>;

// What planning one study needs beyond the spec: the strategy planner's
// options, and the workload strategies already planned (by question id and
// ε, since sample and ε splitting may ask the same question twice).
struct PlanningContext {
  const StrategyPlannerOptions& strategies;
  std::map<std::pair<std::string, int64_t>, ChosenStrategy> workloads{};

  // The estimators of the strategies `decisions` kept.
  EstimatorMap EstimatorsFor(const StudySpec& spec,
                             const PlanDecisions& decisions) const {
    EstimatorMap result;
    for (size_t i = 0; i < spec.questions.size(); ++i) {
      const auto it = workloads.find(
          {spec.questions[i].id, decisions.questions[i].epsilon_nanos});
      if (it != workloads.end() && it->second.estimator != nullptr) {
        result[spec.questions[i].id] = it->second.estimator;
      }
    }
    return result;
  }
};

absl::StatusOr<Randomizer> ChooseRandomizer(const Question& q,
                                            int64_t epsilon_nanos,
                                            PlanningContext& context) {
  const double epsilon = static_cast<double>(epsilon_nanos) / kNanosPerEpsilon;
  if (const auto* sq = std::get_if<StatisticalQueryQuestion>(&q.kind)) {
    const QueryRange range = sq->query.output_range();
    return RealMechanismSpec{.kind = sq->mechanism,
                             .epsilon = epsilon,
                             .bound = (range.upper - range.lower) / 2};
  }
  if (const auto* w = std::get_if<WorkloadQuestion>(&q.kind)) {
    const std::pair<std::string, int64_t> key{q.id, epsilon_nanos};
    auto it = context.workloads.find(key);
    if (it == context.workloads.end()) {
      absl::StatusOr<ChosenStrategy> chosen =
          PlanWorkload(*w, epsilon, context.strategies);
      if (!chosen.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("question ", q.id, ": ", chosen.status().message()));
      }
      it = context.workloads.emplace(key, *std::move(chosen)).first;
    }
    return it->second.decision;
  }
  const auto& histogram = std::get<HistogramQuestion>(q.kind);
  const uint32_t n = histogram.encoding.domain_size();
  if (histogram.oracle.has_value()) {
    FrequencyOracleSpec spec = *histogram.oracle;
    spec.epsilon = epsilon;
    spec.domain_size = n;
    // A RAPPOR question's documented default ε∞.
    if (histogram.candidates.has_value() && spec.epsilon_permanent == 0) {
      spec.epsilon_permanent = 2 * epsilon;
    }
    return spec;
  }
  if (histogram.epsilon_permanent > 0) {
    if (!(histogram.epsilon_permanent > epsilon)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "question ", q.id, ": longitudinal_epsilon_permanent_nanos (ε∞ = ",
          histogram.epsilon_permanent, ") must exceed the question's ε (",
          epsilon, "): all reports of one value may not cost less than one"));
    }
    ASSIGN_OR_RETURN(
        const OracleChoice choice,
        ChooseLongitudinalOracle(epsilon, histogram.epsilon_permanent, n));
    return choice.chosen.spec;
  }
  ASSIGN_OR_RETURN(const OracleChoice choice,
                   ChooseFrequencyOracle(epsilon, n));
  return choice.chosen.spec;
}

absl::StatusOr<double> UnitVariance(const Randomizer& randomizer) {
  if (const auto* real = std::get_if<RealMechanismSpec>(&randomizer)) {
    ASSIGN_OR_RETURN(auto mechanism, CreateRealMechanism(*real));
    return mechanism->WorstCaseVariance() / (real->bound * real->bound);
  }
  if (const auto* strategy = std::get_if<StrategyDecision>(&randomizer)) {
    return strategy->v_max;
  }
  ASSIGN_OR_RETURN(auto oracle, CreateFrequencyOracle(
                                    std::get<FrequencyOracleSpec>(randomizer)));
  return oracle->Variance(0.0, 1);
}

// Per-question εₜ under `strategy`, or nothing if the strategy cannot give
// every question at least one nano-ε.
std::optional<std::vector<int64_t>> Epsilons(const StudySpec& spec,
                                             SplitStrategy strategy) {
  std::vector<int64_t> result;
  int64_t explicit_sum = 0;
  int64_t num_free = 0;
  for (const Question& q : spec.questions) {
    // A program round's εₜ may add up past 2^63 (its questions go to
    // different agents): saturate, which leaves free questions nothing.
    if (__builtin_add_overflow(explicit_sum, q.epsilon_nanos, &explicit_sum)) {
      explicit_sum = std::numeric_limits<int64_t>::max();
    }
    num_free += q.epsilon_nanos == 0;
  }
  const int64_t free_share =
      strategy == SplitStrategy::kSampleSplitting
          ? spec.epsilon_cap_nanos
          : (num_free == 0
                 ? 0
                 : (spec.epsilon_cap_nanos - explicit_sum) / num_free);
  if (num_free > 0 && free_share < 1) return std::nullopt;
  for (const Question& q : spec.questions) {
    result.push_back(q.epsilon_nanos > 0 ? q.epsilon_nanos : free_share);
  }
  return result;
}

// Shares follow target_reports; a question without one counts as the mean
// target of the others (all equal when none has a target).
std::vector<uint64_t> SampleWeights(const StudySpec& spec) {
  int64_t sum = 0;
  int64_t count = 0;
  for (const Question& q : spec.questions) {
    sum += q.target_reports;
    count += q.target_reports > 0;
  }
  const uint64_t fallback = count == 0 ? 1 : std::max<int64_t>(1, sum / count);
  std::vector<uint64_t> weights;
  for (const Question& q : spec.questions) {
    weights.push_back(q.target_reports > 0 ? q.target_reports : fallback);
  }
  return weights;
}

struct Candidate {
  PlanDecisions decisions;
  // Σ over questions of the estimate's variance times n (relative units).
  double total_variance = 0;
};

absl::StatusOr<std::optional<Candidate>> Evaluate(const StudySpec& spec,
                                                  SplitStrategy strategy,
                                                  PlanningContext& context) {
  const std::optional<std::vector<int64_t>> epsilons = Epsilons(spec, strategy);
  if (!epsilons.has_value()) return std::nullopt;
  const std::vector<uint64_t> weights =
      strategy == SplitStrategy::kSampleSplitting
          ? SampleWeights(spec)
          : std::vector<uint64_t>(spec.questions.size(), 1);
  const double total_weight =
      std::accumulate(weights.begin(), weights.end(), 0.0);
  Candidate candidate{.decisions = {.strategy = strategy}};
  for (size_t i = 0; i < spec.questions.size(); ++i) {
    ASSIGN_OR_RETURN(
        Randomizer randomizer,
        ChooseRandomizer(spec.questions[i], (*epsilons)[i], context));
    ASSIGN_OR_RETURN(const double unit, UnitVariance(randomizer));
    const double share = strategy == SplitStrategy::kSampleSplitting
                             ? weights[i] / total_weight
                             : 1.0;
    candidate.total_variance += unit / share;
    candidate.decisions.questions.push_back(
        {.epsilon_nanos = (*epsilons)[i],
         .weight = weights[i],
         .randomizer = std::move(randomizer)});
  }
  return candidate;
}

std::string Explain(const Candidate& chosen,
                    const std::optional<Candidate>& other, size_t m) {
  const double cap_share = 1.0 / static_cast<double>(m);
  if (m == 1) {
    return absl::StrFormat(
        "one question: every agent answers it (variance %.4g/n)",
        chosen.total_variance);
  }
  const bool sample =
      chosen.decisions.strategy == SplitStrategy::kSampleSplitting;
  std::string result =
      sample ? absl::StrFormat(
                   "sample splitting: each agent answers one of the %d "
                   "questions with its whole budget, agents split by "
                   "target_reports; total variance %.4g/n",
                   m, chosen.total_variance)
             : absl::StrFormat(
                   "epsilon splitting: every agent answers all %d questions "
                   "with about %.3g of its budget each; total variance %.4g/n",
                   m, cap_share, chosen.total_variance);
  if (!other.has_value()) {
    absl::StrAppend(&result,
                    " (epsilon splitting is impossible: explicit "
                    "question epsilons use the whole cap)");
  } else {
    absl::StrAppendFormat(&result, " against %.4g/n for %s",
                          other->total_variance,
                          sample ? "epsilon splitting" : "sample splitting");
  }
  return result;
}

}  // namespace

std::string_view SplitStrategyName(SplitStrategy strategy) {
  return strategy == SplitStrategy::kSampleSplitting ? "sample_splitting"
                                                     : "epsilon_splitting";
}

absl::StatusOr<RoundPlan> RoundPlan::Create(
    const StudySpec& spec, const StrategyPlannerOptions& strategies) {
  RETURN_IF_ERROR(ValidateStudy(spec));
  if (spec.shuffle.has_value()) return CreateShuffled(spec, strategies);
  PlanningContext context{.strategies = strategies};
  ASSIGN_OR_RETURN(std::optional<Candidate> sample,
                   Evaluate(spec, SplitStrategy::kSampleSplitting, context));
  ASSIGN_OR_RETURN(std::optional<Candidate> split,
                   Evaluate(spec, SplitStrategy::kEpsilonSplitting, context));
  // Sample splitting always exists (every εₜ ≤ cap). Ties go to it: fewer
  // tasks per agent.
  const bool take_split = spec.questions.size() > 1 && split.has_value() &&
                          split->total_variance < sample->total_variance;
  Candidate& chosen = take_split ? *split : *sample;
  const std::optional<Candidate>& other = take_split ? sample : split;
  chosen.decisions.explanation = Explain(chosen, other, spec.questions.size());
  EstimatorMap estimators = context.EstimatorsFor(spec, chosen.decisions);
  return Build(spec, std::move(chosen.decisions), estimators);
}

// Sample splitting only: an agent answering several questions of one
// shuffled round would compose their central guarantees.
absl::StatusOr<RoundPlan> RoundPlan::CreateShuffled(
    const StudySpec& study, const StrategyPlannerOptions& strategies) {
  ASSIGN_OR_RETURN(ShuffledQuestions shuffled, PlanShuffledEpsilons(study));
  const StudySpec& spec = shuffled.spec;
  PlanningContext context{.strategies = strategies};
  ASSIGN_OR_RETURN(std::optional<Candidate> sample,
                   Evaluate(spec, SplitStrategy::kSampleSplitting, context));
  PlanDecisions decisions = std::move(sample->decisions);
  decisions.explanation =
      absl::StrCat(Explain(*sample, std::nullopt, spec.questions.size()), "; ",
                   shuffled.explanation);
  EstimatorMap estimators = context.EstimatorsFor(spec, decisions);
  return Build(spec, std::move(decisions), estimators);
}

absl::StatusOr<RoundPlan> RoundPlan::CreateForProgram(
    const StudySpec& study, const ProgramRound& round,
    const ScheduledRound& scheduled, const StrategyPlannerOptions& strategies) {
  StudySpec spec = study;
  spec.questions = round.questions;
  RETURN_IF_ERROR(ValidateStudy(spec, /*program_round=*/true));
  for (const Question& q : spec.questions) {
    if (q.epsilon_nanos <= 0 || q.epsilon_nanos > scheduled.epsilon_nanos) {
      return absl::InvalidArgumentError(absl::StrCat(
          "round \"", scheduled.name, "\": question ", q.id,
          " asks epsilon_nanos ", q.epsilon_nanos,
          " but the schedule allows (0, ", scheduled.epsilon_nanos, "]"));
    }
  }
  PlanningContext context{.strategies = strategies};
  ASSIGN_OR_RETURN(std::optional<Candidate> sample,
                   Evaluate(spec, SplitStrategy::kSampleSplitting, context));
  PlanDecisions decisions = std::move(sample->decisions);
  decisions.explanation = absl::StrFormat(
      "analyst program round \"%s\": the agents in [%g, %g) of the "
      "population, each answering one of %d question(s)",
      scheduled.name, scheduled.slice.begin, scheduled.slice.end,
      spec.questions.size());
  decisions.from_program = true;
  decisions.round_name = scheduled.name;
  decisions.slice = scheduled.slice;
  EstimatorMap estimators = context.EstimatorsFor(spec, decisions);
  return Build(spec, std::move(decisions), estimators);
}

absl::StatusOr<RoundPlan> RoundPlan::Restore(const StudySpec& spec,
                                             PlanDecisions decisions) {
  RETURN_IF_ERROR(ValidateStudy(spec, decisions.from_program));
  if (decisions.from_program &&
      decisions.strategy != SplitStrategy::kSampleSplitting) {
    return absl::InvalidArgumentError(
        "a program round's plan must use sample splitting");
  }
  return Build(spec, std::move(decisions));
}

namespace {

absl::StatusOr<Task> MakeQuestionTask(const Question& q,
                                      const QuestionDecision& decision) {
  const auto* real = std::get_if<RealMechanismSpec>(&decision.randomizer);
  const auto* oracle = std::get_if<FrequencyOracleSpec>(&decision.randomizer);
  const auto* strategy = std::get_if<StrategyDecision>(&decision.randomizer);
  if (const auto* w = std::get_if<WorkloadQuestion>(&q.kind)) {
    if (strategy == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "plan for question ", q.id, " names no strategy for a workload"));
    }
    StrategySpec spec = strategy->spec;
    spec.domain_size = w->encoding.domain_size();
    return Task{.epsilon_nanos = decision.epsilon_nanos,
                .question = WorkloadTask{.encoding = w->encoding,
                                         .strategy = std::move(spec)}};
  }
  if (const auto* sq = std::get_if<StatisticalQueryQuestion>(&q.kind)) {
    if (real == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "plan for question ", q.id, " names no real mechanism for a query"));
    }
    return Task{.epsilon_nanos = decision.epsilon_nanos,
                .question = StatisticalQueryTask{.query = sq->query,
                                                 .mechanism = *real}};
  }
  if (oracle == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("plan for question ", q.id,
                     " names no frequency oracle for a histogram"));
  }
  return Task{.epsilon_nanos = decision.epsilon_nanos,
              .question = HistogramTask{
                  .encoding = std::get<HistogramQuestion>(q.kind).encoding,
                  .oracle = *oracle}};
}

std::optional<ConsistencyMethod> PostProcessing(const Question& q) {
  const auto* histogram = std::get_if<HistogramQuestion>(&q.kind);
  return histogram == nullptr ? std::nullopt : histogram->post_processing;
}

// A workload question's estimation: the task's strategy, built once around
// the task's randomizer for every accumulator of the question, and the
// planning's estimator for this very strategy, or one built now (after a
// restart, or for a strategy the planning did not keep).
absl::StatusOr<WorkloadEstimation> EstimationFor(const Question& q,
                                                 const TaskMechanism& mechanism,
                                                 const EstimatorMap& estimators,
                                                 const RecordSchema& schema) {
  if (const auto* h = std::get_if<HistogramQuestion>(&q.kind);
      h != nullptr && h->candidates.has_value()) {
    const FieldSpec* field =
        schema.Find(std::get<DigestEncoding>(h->encoding.spec()).field);
    if (field == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "question ", q.id, ": its string field is not in the schema"));
    }
    WorkloadEstimation result;
    ASSIGN_OR_RETURN(result.candidates,
                     MakeCandidateDecoding(*h, field->bit_length));
    return result;
  }
  const auto* w = std::get_if<WorkloadQuestion>(&q.kind);
  if (w == nullptr) return WorkloadEstimation{};
  WorkloadEstimation result{.consistency = w->consistency};
  ASSIGN_OR_RETURN(result.strategy, TaskStrategy(mechanism));
  if (auto it = estimators.find(q.id); it != estimators.end()) {
    result.estimator = it->second;
    return result;
  }
  ASSIGN_OR_RETURN(const Workload workload, Workload::Create(w->workload));
  absl::StatusOr<std::shared_ptr<const WorkloadEstimator>> estimator =
      WorkloadEstimator::Create(workload, result.strategy);
  if (!estimator.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "question ", q.id, ": its strategy cannot answer the workload: ",
        estimator.status().message()));
  }
  result.estimator = *std::move(estimator);
  return result;
}

}  // namespace

absl::StatusOr<RoundPlan> RoundPlan::Build(const StudySpec& spec,
                                           PlanDecisions decisions,
                                           const EstimatorMap& estimators) {
  if (decisions.questions.size() != spec.questions.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("plan has ", decisions.questions.size(),
                     " questions, the study ", spec.questions.size()));
  }
  RoundPlan plan;
  unsigned __int128 total_weight = 0;
  for (size_t i = 0; i < spec.questions.size(); ++i) {
    const Question& q = spec.questions[i];
    const QuestionDecision& decision = decisions.questions[i];
    if (decision.weight == 0 || decision.weight > uint64_t{kMaxTargetReports}) {
      return absl::InvalidArgumentError(
          absl::StrCat("plan for question ", q.id, " has weight ",
                       decision.weight, ", outside [1, 2^40]"));
    }
    total_weight += decision.weight;
    ASSIGN_OR_RETURN(Task task, MakeQuestionTask(q, decision));
    ASSIGN_OR_RETURN(auto mechanism, TaskMechanism::Create(task));
    ASSIGN_OR_RETURN(const double unit, UnitVariance(decision.randomizer));
    ASSIGN_OR_RETURN(WorkloadEstimation workload,
                     EstimationFor(q, *mechanism, estimators, spec.schema));
    plan.questions_.push_back(
        {.question_id = q.id,
         .task = std::make_shared<const Task>(std::move(task)),
         .mechanism = std::move(mechanism),
         .unit_variance = unit,
         .post_processing = PostProcessing(q),
         .workload = std::move(workload)});
  }
  unsigned __int128 cumulative = 0;
  for (size_t i = 0; i + 1 < decisions.questions.size(); ++i) {
    cumulative += decisions.questions[i].weight;
    plan.share_upper_.push_back(
        static_cast<uint64_t>((cumulative << 64) / total_weight));
  }
  plan.decisions_ = std::move(decisions);
  return plan;
}

double RoundPlan::Share(int q) const {
  const double width = decisions_.slice.width();
  if (strategy() == SplitStrategy::kEpsilonSplitting) return width;
  double total = 0;
  for (const QuestionDecision& d : decisions_.questions) total += d.weight;
  return width * decisions_.questions[q].weight / total;
}

int RoundPlan::SampleQuestion(uint64_t agent_id) const {
  const uint64_t position = decisions_.slice.Relative(AgentPosition(agent_id));
  return static_cast<int>(
      std::upper_bound(share_upper_.begin(), share_upper_.end(), position) -
      share_upper_.begin());
}

bool RoundPlan::Assigns(uint64_t agent_id, int q) const {
  if (q < 0 || q >= static_cast<int>(questions_.size())) return false;
  if (!AsksAgent(agent_id)) return false;
  if (strategy() == SplitStrategy::kEpsilonSplitting) return true;
  return SampleQuestion(agent_id) == q;
}

// (max_x w_jx − min_x w_jx)² / 4 for every row of a custom workload: the
// largest variance w_j(x) can have over any population (Popoviciu).
std::vector<double> CustomRowVarianceBounds(const WorkloadSpec& spec) {
  const uint32_t m = spec.num_queries;
  const uint32_t n = spec.domain_size;
  std::vector<double> lo(m, 0.0), hi(m, 0.0);
  if (!spec.dense.empty()) {
    for (uint32_t j = 0; j < m; ++j) {
      lo[j] = hi[j] = spec.dense[size_t{j} * n];
      for (uint32_t x = 1; x < n; ++x) {
        lo[j] = std::min(lo[j], spec.dense[size_t{j} * n + x]);
        hi[j] = std::max(hi[j], spec.dense[size_t{j} * n + x]);
      }
    }
  } else {
    // Starting from lo = hi = 0 counts the zeros of rows with fewer than N
    // entries, and at worst widens a full row's range (still a bound).
    for (const SparseEntry& e : spec.sparse) {
      if (e.row >= m) continue;
      lo[e.row] = std::min(lo[e.row], e.value);
      hi[e.row] = std::max(hi[e.row], e.value);
    }
  }
  std::vector<double> bounds(m);
  for (uint32_t j = 0; j < m; ++j) {
    bounds[j] = (hi[j] - lo[j]) * (hi[j] - lo[j]) / 4;
  }
  return bounds;
}

namespace {

void AddWorkloadSamplingVariance(const PlannedQuestion& planned,
                                 WorkloadAnswer& answer) {
  if (planned.workload.estimator == nullptr || answer.num_reports == 0) return;
  const WorkloadSpec& spec = planned.workload.estimator->workload().spec();
  const double n = static_cast<double>(answer.num_reports);
  std::vector<double> bounds;
  if (spec.kind == WorkloadKind::kCustom)
    bounds = CustomRowVarianceBounds(spec);
  for (size_t j = 0;
       j < answer.answers.size() && j < answer.standard_errors.size(); ++j) {
    double variance = 0;
    if (spec.kind == WorkloadKind::kCustom) {
      variance = j < bounds.size() ? bounds[j] : 0;
    } else {
      const double a = std::clamp(answer.answers[j], 0.0, 1.0);
      variance = a * (1 - a);
    }
    const double se = answer.standard_errors[j];
    answer.standard_errors[j] = std::sqrt(se * se + variance / n);
  }
}

}  // namespace

void AddSamplingVariance(const RoundPlan& plan, int q, TaskEstimate& estimate) {
  if (auto* workload = std::get_if<WorkloadAnswer>(&estimate)) {
    if (plan.Share(q) < 1) {
      AddWorkloadSamplingVariance(plan.questions()[q], *workload);
    }
    return;
  }
  auto* histogram = std::get_if<HistogramEstimate>(&estimate);
  if (histogram == nullptr || plan.Share(q) >= 1 ||
      histogram->num_reports == 0) {
    return;
  }
  const double n = static_cast<double>(histogram->num_reports);
  for (size_t v = 0; v < histogram->frequencies.size(); ++v) {
    const double f = std::clamp(histogram->frequencies[v], 0.0, 1.0);
    histogram->variances[v] += f * (1 - f) / n;
  }
}

}  // namespace ldp
