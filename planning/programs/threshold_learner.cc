// Threshold learners through SQs; see the header for the two protocols.
//
// The adaptive binary search, for realizable labels y = [x ≥ t*]. Let
//   A(t) = Pr[x < t ∧ y = 1].
// For t ≤ t*, A(t) = 0; for t > t*, A(t) = Pr[t* ≤ x < t] = err(t). So A is
// nondecreasing and err(t) = A(t) for every t ≥ t*. Keep the invariant
//   t* < hi  and  A(lo) ≤ 2τ,
// true at lo = L (A(L) = 0), hi = U + 2. Each round asks Â(m) within τ for
// m = ⌊(lo + hi)/2⌋:
//   Â(m) > τ  ⇒ A(m) > 0 ⇒ t* < m:  hi = m;
//   Â(m) ≤ τ  ⇒ A(m) ≤ 2τ:          lo = m.
// At hi = lo + 1, t* ≤ lo, so err(lo) = A(lo) ≤ 2τ. With τ = α/2 the error is
// at most α whenever all K answers are within τ, which happens with
// probability ≥ 1 − β when each query fails with probability β/K (union
// bound). hi − lo starts at N + 1 and at least halves (rounding up) each
// round, so K = ⌈log2(N + 1)⌉ rounds suffice; the search stops as soon as
// hi = lo + 1, leaving later planned rounds unasked.
#include "planning/programs/threshold_learner.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/base/status_macros.h"
#include "common/queries/query_expression.h"
#include "planning/programs/program_parameters.h"

namespace ldp {
namespace {

using namespace ::ldp::expr;  // NOLINT: expression builders

struct ThresholdConfig {
  std::string feature{};
  std::string label{};
  int64_t lower = 0;  // L
  int64_t upper = 0;  // U
  double accuracy = 0;
  double failure_probability = 0;
  bool adaptive = true;
  RecordSchema schema;

  int64_t num_candidates() const { return upper - lower + 2; }
  double tolerance() const { return accuracy / 2; }
};

absl::StatusOr<ThresholdConfig> ParseConfig(const ProgramSpec& spec,
                                            const ProgramContext& context) {
  ProgramParameters params(spec.name, spec.parameters);
  ThresholdConfig config{.schema = context.schema};
  ASSIGN_OR_RETURN(config.feature, params.String("feature", "x"));
  ASSIGN_OR_RETURN(config.label, params.String("label", "y"));
  ASSIGN_OR_RETURN(config.accuracy, params.Real("accuracy", 0.1, 1e-4, 0.5));
  const double default_beta = std::clamp(1 - context.confidence, 1e-12, 0.5);
  ASSIGN_OR_RETURN(
      config.failure_probability,
      params.Real("failure_probability", default_beta, 1e-12, 0.5));
  ASSIGN_OR_RETURN(const std::string mode, params.String("mode", "adaptive"));
  if (mode != "adaptive" && mode != "nonadaptive") {
    return absl::InvalidArgumentError(
        absl::StrCat(spec.name,
                     ": parameter \"mode\" must be \"adaptive\" or "
                     "\"nonadaptive\", got \"",
                     mode, "\""));
  }
  config.adaptive = mode == "adaptive";
  RETURN_IF_ERROR(params.CheckAllUsed());

  const FieldSpec* x = context.schema.Find(config.feature);
  const FieldSpec* y = context.schema.Find(config.label);
  if (x == nullptr || x->kind != FieldKind::kInt) {
    return absl::InvalidArgumentError(absl::StrCat(
        spec.name, ": the feature \"", config.feature,
        "\" must be an int field of the schema (set parameter \"feature\")"));
  }
  if (y == nullptr || y->kind != FieldKind::kBool) {
    return absl::InvalidArgumentError(absl::StrCat(
        spec.name, ": the label \"", config.label,
        "\" must be a bool field of the schema (set parameter \"label\")"));
  }
  if (x->int_upper - x->int_lower + 1 > kMaxThresholdDomainSize) {
    return absl::InvalidArgumentError(
        absl::StrCat(spec.name, ": the feature \"", config.feature, "\" has ",
                     x->int_upper - x->int_lower + 1, " values; at most ",
                     kMaxThresholdDomainSize, " are supported"));
  }
  config.lower = x->int_lower;
  config.upper = x->int_upper;
  return config;
}

// ⌈log2(m)⌉ for m ≥ 1.
int CeilLog2(int64_t m) {
  int k = 0;
  while ((int64_t{1} << k) < m) ++k;
  return k;
}

// The answer to batch k's only query.
const SqAnswer& OnlyAnswer(absl::Span<const std::vector<SqAnswer>> answers,
                           size_t k) {
  return answers[k].front();
}

ProgramResult ResultOf(int64_t threshold, double error, Interval interval,
                       std::string detail) {
  ProgramResult result;
  result.summary =
      absl::StrFormat("threshold t = %d, error %.4f in [%.4f, %.4f]; %s",
                      threshold, error, interval.lower, interval.upper, detail);
  result.values.push_back(
      {.name = "threshold", .value = static_cast<double>(threshold)});
  result.values.push_back(
      {.name = "error", .value = error, .interval = interval});
  return result;
}

class AdaptiveThresholdSq final : public SqAlgorithm {
 public:
  static absl::StatusOr<std::unique_ptr<const SqAlgorithm>> Create(
      ThresholdConfig config) {
    const int rounds = std::max(1, CeilLog2(config.num_candidates()));
    // Counts, (τ, β) and range are final; φ is a placeholder of that range.
    ASSIGN_OR_RETURN(
        Query placeholder,
        Query::Create(Constant(0), {.lower = 0, .upper = 1}, config.schema));
    std::vector<std::vector<SqRequest>> plan;
    for (int k = 0; k < rounds; ++k) {
      plan.push_back(
          {{.id = absl::StrCat("round ", k + 1),
            .query = placeholder,
            .tolerance = config.tolerance(),
            .failure_probability = config.failure_probability / rounds}});
    }
    return std::unique_ptr<const SqAlgorithm>(
        new AdaptiveThresholdSq(std::move(config), std::move(plan)));
  }

  std::vector<std::vector<SqRequest>> Plan() const override { return plan_; }

  absl::StatusOr<std::vector<SqRequest>> NextBatch(
      absl::Span<const std::vector<SqAnswer>> answers) const override {
    const Bracket b = Search(answers);
    if (b.hi - b.lo <= 1) return std::vector<SqRequest>{};
    const int64_t m = b.lo + (b.hi - b.lo) / 2;
    ASSIGN_OR_RETURN(Query query,
                     Query::Create(And(Lt(Field(config_.feature), Constant(m)),
                                       Field(config_.label)),
                                   {.lower = 0, .upper = 1}, config_.schema));
    const SqRequest& planned = plan_[answers.size()].front();
    return std::vector<SqRequest>{
        {.id = absl::StrCat("Pr[x<", m, ",y=1]"),
         .query = std::move(query),
         .tolerance = planned.tolerance,
         .failure_probability = planned.failure_probability}};
  }

  absl::StatusOr<ProgramResult> Result(
      absl::Span<const std::vector<SqAnswer>> answers) const override {
    const Bracket b = Search(answers);
    // A(L) = 0 exactly; otherwise the answer that moved lo last.
    double error = 0;
    Interval interval{0, 0};
    if (b.lo_answer >= 0) {
      const SqAnswer& a = OnlyAnswer(answers, b.lo_answer);
      error = a.value;
      interval = a.interval;
    }
    return ResultOf(
        b.lo, error, interval,
        absl::StrFormat("adaptive binary search, %d of %d rounds; bracket "
                        "[%d, %d); error = Pr[x < t, y = 1], which is err(t) "
                        "for realizable labels",
                        answers.size(), plan_.size(), b.lo, b.hi));
  }

 private:
  // t* ∈ [lo, hi) under the invariant; lo_answer is the batch that set lo
  // (−1 while lo = L).
  struct Bracket {
    int64_t lo = 0;
    int64_t hi = 0;
    int lo_answer = -1;
  };

  AdaptiveThresholdSq(ThresholdConfig config,
                      std::vector<std::vector<SqRequest>> plan)
      : config_(std::move(config)), plan_(std::move(plan)) {}

  Bracket Search(absl::Span<const std::vector<SqAnswer>> answers) const {
    Bracket b{.lo = config_.lower, .hi = config_.upper + 2};
    for (size_t k = 0; k < answers.size() && b.hi - b.lo > 1; ++k) {
      const int64_t m = b.lo + (b.hi - b.lo) / 2;
      if (OnlyAnswer(answers, k).value > config_.tolerance()) {
        b.hi = m;
      } else {
        b.lo = m;
        b.lo_answer = static_cast<int>(k);
      }
    }
    return b;
  }

  const ThresholdConfig config_;
  const std::vector<std::vector<SqRequest>> plan_;
};

class NonadaptiveThresholdSq final : public SqAlgorithm {
 public:
  static absl::StatusOr<std::unique_ptr<const SqAlgorithm>> Create(
      ThresholdConfig config) {
    const int64_t m = config.num_candidates();
    std::vector<SqRequest> batch;
    for (int64_t t = config.lower; t <= config.upper + 1; ++t) {
      ASSIGN_OR_RETURN(Query query,
                       Query::Create(Ne(Field(config.label),
                                        Ge(Field(config.feature), Constant(t))),
                                     {.lower = 0, .upper = 1}, config.schema));
      batch.push_back({.id = absl::StrCat("err(", t, ")"),
                       .query = std::move(query),
                       .tolerance = config.tolerance(),
                       .failure_probability = config.failure_probability /
                                              static_cast<double>(m)});
    }
    return std::unique_ptr<const SqAlgorithm>(
        new NonadaptiveThresholdSq(std::move(config), {std::move(batch)}));
  }

  std::vector<std::vector<SqRequest>> Plan() const override { return plan_; }

  absl::StatusOr<std::vector<SqRequest>> NextBatch(
      absl::Span<const std::vector<SqAnswer>> answers) const override {
    if (!answers.empty()) return std::vector<SqRequest>{};
    return plan_.front();
  }

  absl::StatusOr<ProgramResult> Result(
      absl::Span<const std::vector<SqAnswer>> answers) const override {
    if (answers.empty()) {
      return ProgramResult{.summary = "no answers yet"};
    }
    const std::vector<SqAnswer>& errors = answers.front();
    if (errors.size() != plan_.front().size()) {
      return absl::InternalError(
          absl::StrCat("threshold learner: expected ", plan_.front().size(),
                       " error estimates, got ", errors.size()));
    }
    size_t best = 0;  // ties go to the smallest t
    for (size_t i = 1; i < errors.size(); ++i) {
      if (errors[i].value < errors[best].value) best = i;
    }
    return ResultOf(config_.lower + static_cast<int64_t>(best),
                    errors[best].value, errors[best].interval,
                    absl::StrFormat("nonadaptive argmin of %d error estimates",
                                    errors.size()));
  }

 private:
  NonadaptiveThresholdSq(ThresholdConfig config,
                         std::vector<std::vector<SqRequest>> plan)
      : config_(std::move(config)), plan_(std::move(plan)) {}

  const ThresholdConfig config_;
  const std::vector<std::vector<SqRequest>> plan_;
};

}  // namespace

absl::StatusOr<RecordSchema> ThresholdSchema(int64_t domain_size) {
  if (domain_size < 2 || domain_size > kMaxThresholdDomainSize) {
    return absl::InvalidArgumentError(
        absl::StrCat("a threshold domain needs 2 to ", kMaxThresholdDomainSize,
                     " values, got ", domain_size));
  }
  return RecordSchema::Create(
      {FieldSpec::Int("x", 0, domain_size - 1), FieldSpec::Bool("y")});
}

absl::StatusOr<std::unique_ptr<const SqAlgorithm>> CreateThresholdSqAlgorithm(
    const ProgramSpec& spec, const ProgramContext& context) {
  ASSIGN_OR_RETURN(ThresholdConfig config, ParseConfig(spec, context));
  if (config.adaptive) return AdaptiveThresholdSq::Create(std::move(config));
  return NonadaptiveThresholdSq::Create(std::move(config));
}

absl::StatusOr<std::unique_ptr<AnalystProgram>> CreateThresholdLearnerProgram(
    const ProgramSpec& spec, const ProgramContext& context) {
  ASSIGN_OR_RETURN(std::unique_ptr<const SqAlgorithm> algorithm,
                   CreateThresholdSqAlgorithm(spec, context));
  ASSIGN_OR_RETURN(std::unique_ptr<SqProgram> program,
                   SqProgram::Create(std::move(algorithm), context));
  return std::unique_ptr<AnalystProgram>(std::move(program));
}

absl::StatusOr<int64_t> ThresholdFromResult(const ProgramResult& result) {
  for (const ProgramValue& v : result.values) {
    if (v.name == "threshold") return std::llround(v.value);
  }
  return absl::InvalidArgumentError("the result states no \"threshold\"");
}

absl::StatusOr<ThresholdLearnerGoal> ThresholdLearnerGoalOf(
    const ProgramSpec& spec, const ProgramContext& context) {
  ASSIGN_OR_RETURN(const ThresholdConfig config, ParseConfig(spec, context));
  return ThresholdLearnerGoal{.num_concepts = config.num_candidates(),
                              .accuracy = config.accuracy,
                              .failure_probability = config.failure_probability,
                              .realizable = config.adaptive};
}

}  // namespace ldp
