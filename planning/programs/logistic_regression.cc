// Logistic regression by private gradient descent; see the header for the
// protocol. The program keeps no state between calls: Next replays every
// gradient step (and the running iterate average) from the history, so a
// restarted engine gets the same round and the same released model.
#include "planning/programs/logistic_regression.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "common/base/status_macros.h"
#include "common/queries/query_expression.h"
#include "planning/programs/gradient_plan.h"
#include "planning/programs/program_parameters.h"

namespace ldp {
namespace {

using namespace ::ldp::expr;  // NOLINT: expression builders

// x̃ = scale·x + shift maps the field's declared [lo, hi] onto [−1, 1].
struct Feature {
  std::string field{};
  double scale = 1;
  double shift = 0;
};

struct Settings {
  std::vector<Feature> features{};
  std::string label{};
  int rounds = 50;
  double learning_rate = 4;
  bool inverse_sqrt = false;
  int averaged_rounds = 25;  // K: the released model averages θ_{T−K+1} … θ_T
  double clip = 0.25;
  double radius = 20;
  double l2 = 0;
  GradientPlan plan{};  // k coordinates per agent, each at ε/k, and the kind
};

std::string GradientId(size_t j, size_t d) {
  return j == d ? "grad[bias]" : absl::StrCat("grad[", j, "]");
}

// Σ terms as a balanced tree, to stay within kMaxQueryDepth.
QueryNode BalancedSum(std::vector<QueryNode> terms) {
  while (terms.size() > 1) {
    std::vector<QueryNode> next;
    for (size_t k = 0; k + 1 < terms.size(); k += 2) {
      next.push_back(Add(std::move(terms[k]), std::move(terms[k + 1])));
    }
    if (terms.size() % 2 == 1) next.push_back(std::move(terms.back()));
    terms = std::move(next);
  }
  return std::move(terms[0]);
}

QueryNode Scaled(const Feature& f) {
  return Add(Mul(Constant(f.scale), Field(f.field)), Constant(f.shift));
}

// θ·x̃ + b with the scaling folded in: Σ (θ_j·scale_j)·x_j + (b + Σ
// θ_j·shift_j).
QueryNode Margin(const Settings& s, const LogisticModel& m) {
  std::vector<QueryNode> terms;
  double intercept = m.bias;
  for (size_t j = 0; j < s.features.size(); ++j) {
    const Feature& f = s.features[j];
    terms.push_back(Mul(Constant(m.theta[j] * f.scale), Field(f.field)));
    intercept += m.theta[j] * f.shift;
  }
  terms.push_back(Constant(intercept));
  return BalancedSum(std::move(terms));
}

// The questions of block b of the gradient at m: one per coordinate of the
// block, each at ε/k.
absl::StatusOr<std::vector<Question>> GradientQuestions(
    const Settings& s, const LogisticModel& m, const ProgramContext& context,
    int block) {
  const size_t d = s.features.size();
  std::vector<Question> questions;
  const size_t begin = s.plan.BlockBegin(block), end = s.plan.BlockEnd(block);
  for (size_t j = begin; j < end; ++j) {
    QueryNode residual = Sub(Logistic(Margin(s, m)), Field(s.label));
    QueryNode gradient = j == d
                             ? std::move(residual)
                             : Mul(std::move(residual), Scaled(s.features[j]));
    ASSIGN_OR_RETURN(
        Query query,
        Query::Create(Clamp(std::move(gradient), -s.clip, s.clip),
                      {.lower = -s.clip, .upper = s.clip}, context.schema));
    questions.push_back(
        {.id = GradientId(j, d),
         .kind = StatisticalQueryQuestion{.query = std::move(query),
                                          .mechanism = s.plan.kind},
         .epsilon_nanos = s.plan.epsilon_nanos_per_report});
  }
  return questions;
}

// ĝ from gradient step t's k closed rounds (one block each): one scalar
// estimate per coordinate, by id.
absl::StatusOr<std::vector<double>> GradientOf(
    absl::Span<const RoundAnswers> rounds, size_t d, size_t t) {
  std::vector<double> g(d + 1);
  for (size_t j = 0; j <= d; ++j) {
    const std::string id = GradientId(j, d);
    const ScalarEstimate* e = nullptr;
    for (const RoundAnswers& round : rounds) {
      for (const QuestionAnswer& a : round.answers) {
        if (a.question_id == id) e = std::get_if<ScalarEstimate>(&a.estimate);
      }
    }
    if (e == nullptr) {
      return absl::InternalError(
          absl::StrCat("logistic_regression: gradient step ", t + 1,
                       " has no estimate for ", id));
    }
    if (e->num_reports == 0 || !std::isfinite(e->value)) {
      return absl::FailedPreconditionError(absl::StrCat(
          "logistic_regression: gradient step ", t + 1, " got no reports for ",
          id, "; the population is too small for ",
          "rounds × (features + 1) "
          "questions — use fewer rounds or more agents"));
    }
    g[j] = e->value;
  }
  return g;
}

void Step(const Settings& s, size_t t, const std::vector<double>& g,
          LogisticModel& m) {
  const double eta =
      s.inverse_sqrt ? s.learning_rate / std::sqrt(t + 1.0) : s.learning_rate;
  const size_t d = s.features.size();
  for (size_t j = 0; j < d; ++j) m.theta[j] -= eta * (g[j] + s.l2 * m.theta[j]);
  m.bias -= eta * g[d];
  double norm2 = m.bias * m.bias;
  for (double v : m.theta) norm2 += v * v;
  if (norm2 > s.radius * s.radius) {
    const double shrink = s.radius / std::sqrt(norm2);
    for (double& v : m.theta) v *= shrink;
    m.bias *= shrink;
  }
}

// The running Polyak–Ruppert average: Σ of the window's iterates so far.
struct IterateAverage {
  LogisticModel sum{};
  int count = 0;

  void Add(const LogisticModel& m) {
    for (size_t j = 0; j < m.theta.size(); ++j) sum.theta[j] += m.theta[j];
    sum.bias += m.bias;
    ++count;
  }
  // The mean, or `current` while the window holds nothing yet.
  LogisticModel Released(const LogisticModel& current) const {
    if (count == 0) return current;
    LogisticModel mean = sum;
    for (double& v : mean.theta) v /= count;
    mean.bias /= count;
    return mean;
  }
};

double Norm(const LogisticModel& m) {
  return std::sqrt(std::inner_product(m.theta.begin(), m.theta.end(),
                                      m.theta.begin(), m.bias * m.bias));
}

void AddModel(const std::string& theta_prefix, const std::string& bias_name,
              const LogisticModel& m, ProgramResult& result) {
  for (size_t j = 0; j < m.theta.size(); ++j) {
    result.values.push_back(
        {.name = absl::StrCat(theta_prefix, "[", j, "]"), .value = m.theta[j]});
  }
  result.values.push_back({.name = bias_name, .value = m.bias});
}

ProgramResult ResultOf(const Settings& s, const LogisticModel& iterate,
                       const IterateAverage& average, size_t t,
                       double gradient_norm) {
  const LogisticModel released = average.Released(iterate);
  ProgramResult result;
  result.summary =
      t == 0 ? "round 1 asks the gradient at θ = 0"
      : average.count == 0
          ? absl::StrFormat(
                "after %d gradient steps: ‖ĝ‖ = %.4f, ‖θ_t‖ = %.3f; "
                "released model = θ_t until the averaging window starts",
                t, gradient_norm, Norm(iterate))
          : absl::StrFormat(
                "after %d gradient steps: ‖ĝ‖ = %.4f, ‖θ_t‖ = %.3f; "
                "released model = mean of the last %d iterates (‖θ̄‖ = %.3f)",
                t, gradient_norm, Norm(iterate), average.count, Norm(released));
  AddModel("theta", "bias", released, result);
  AddModel("iterate_theta", "iterate_bias", iterate, result);
  result.values.push_back({.name = "averaged_iterates",
                           .value = static_cast<double>(average.count)});
  result.values.push_back(
      {.name = "gradient_steps", .value = static_cast<double>(t)});
  double raw_bias = released.bias;
  for (size_t j = 0; j < s.features.size(); ++j) {
    result.values.push_back({.name = absl::StrCat("raw_theta[", j, "]"),
                             .value = released.theta[j] * s.features[j].scale});
    raw_bias += released.theta[j] * s.features[j].shift;
  }
  result.values.push_back({.name = "raw_bias", .value = raw_bias});
  return result;
}

class LogisticRegressionProgram final : public AnalystProgram {
 public:
  LogisticRegressionProgram(ProgramContext context, Settings settings)
      : context_(std::move(context)), s_(std::move(settings)) {}

  // Step t asks slice t in k rounds, one block each, at ε/k.
  std::vector<ScheduledRound> Schedule() const override {
    const int k = s_.plan.coordinates_per_agent;
    std::vector<ScheduledRound> schedule;
    for (int t = 0; t < s_.rounds; ++t) {
      for (int b = 0; b < k; ++b) {
        schedule.push_back(
            {.name = k == 1 ? absl::StrCat("gradient step ", t + 1)
                            : absl::StrCat("gradient step ", t + 1, ", block ",
                                           b + 1, " of ", k),
             .slice = EqualSlice(t, s_.rounds),
             .epsilon_nanos = s_.plan.epsilon_nanos_per_report});
      }
    }
    return schedule;
  }

  absl::StatusOr<ProgramStep> Next(
      absl::Span<const RoundAnswers> history) const override {
    const size_t k = s_.plan.coordinates_per_agent;
    const size_t scheduled = k * s_.rounds;
    if (history.size() > scheduled) {
      return absl::InternalError(absl::StrCat(
          "logistic_regression: ", history.size(), " rounds of history for a ",
          scheduled, "-round schedule"));
    }
    const size_t steps = history.size() / k;
    const size_t d = s_.features.size();
    LogisticModel m{.theta = std::vector<double>(d)};
    IterateAverage average{.sum = m};
    // Step t produces iterate θ_{t+1}; the window is θ_{T−K+1} … θ_T.
    const size_t first_averaged = s_.rounds - s_.averaged_rounds + 1;
    double gradient_norm = 0;
    for (size_t t = 0; t < steps; ++t) {
      ASSIGN_OR_RETURN(std::vector<double> g,
                       GradientOf(history.subspan(t * k, k), d, t));
      gradient_norm =
          std::sqrt(std::inner_product(g.begin(), g.end(), g.begin(), 0.0));
      Step(s_, t, g, m);
      if (t + 1 >= first_averaged) average.Add(m);
    }
    ProgramStep step{.result = ResultOf(s_, m, average, steps, gradient_norm)};
    if (history.size() < scheduled) {
      // The next block of the gradient at θ_steps.
      const int block = static_cast<int>(history.size() % k);
      ASSIGN_OR_RETURN(std::vector<Question> questions,
                       GradientQuestions(s_, m, context_, block));
      step.round = ProgramRound{.questions = std::move(questions)};
    }
    return step;
  }

 private:
  const ProgramContext context_;
  const Settings s_;
};

absl::StatusOr<std::vector<Feature>> FeaturesOf(const std::string& list,
                                                const RecordSchema& schema) {
  std::vector<Feature> features;
  for (absl::string_view name : absl::StrSplit(list, ',', absl::SkipEmpty())) {
    const FieldSpec* f = schema.Find(std::string(name));
    if (f == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "logistic_regression: feature \"", name, "\" is not in the schema"));
    }
    double lo = 0, hi = 0;
    if (f->kind == FieldKind::kReal) {
      lo = f->real_lower, hi = f->real_upper;
    } else if (f->kind == FieldKind::kInt) {
      lo = static_cast<double>(f->int_lower);
      hi = static_cast<double>(f->int_upper);
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          "logistic_regression: feature \"", name,
          "\" must be a real or int field (its declared bounds scale it)"));
    }
    if (!(lo < hi)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "logistic_regression: feature \"", name, "\" has an empty range [",
          lo, ", ", hi, "]; it carries no signal"));
    }
    features.push_back({.field = std::string(name),
                        .scale = 2 / (hi - lo),
                        .shift = -(hi + lo) / (hi - lo)});
  }
  if (features.empty() ||
      features.size() > static_cast<size_t>(kMaxLogisticFeatures)) {
    return absl::InvalidArgumentError(
        absl::StrCat("logistic_regression: \"features\" must name 1 to ",
                     kMaxLogisticFeatures, " fields, comma-separated; got ",
                     features.size()));
  }
  return features;
}

// The model stated as theta_prefix[0 … d−1] and bias_name.
absl::StatusOr<LogisticModel> ModelNamed(const ProgramResult& result,
                                         int num_features,
                                         const std::string& theta_prefix,
                                         const std::string& bias_name) {
  LogisticModel m{.theta = std::vector<double>(std::max(num_features, 0))};
  std::vector<bool> found(m.theta.size() + 1);
  for (const ProgramValue& v : result.values) {
    if (v.name == bias_name) {
      m.bias = v.value;
      found.back() = true;
    }
    for (size_t j = 0; j < m.theta.size(); ++j) {
      if (v.name == absl::StrCat(theta_prefix, "[", j, "]")) {
        m.theta[j] = v.value;
        found[j] = true;
      }
    }
  }
  if (std::find(found.begin(), found.end(), false) != found.end()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the result does not state ", theta_prefix, "[0..",
                     num_features - 1, "] and ", bias_name));
  }
  return m;
}

}  // namespace

absl::StatusOr<LogisticModel> LogisticModelFromResult(
    const ProgramResult& result, int num_features) {
  return ModelNamed(result, num_features, "theta", "bias");
}

absl::StatusOr<LogisticModel> LogisticIterateFromResult(
    const ProgramResult& result, int num_features) {
  return ModelNamed(result, num_features, "iterate_theta", "iterate_bias");
}

absl::StatusOr<std::unique_ptr<AnalystProgram>> CreateLogisticRegressionProgram(
    const ProgramSpec& spec, const ProgramContext& context) {
  ProgramParameters params(spec.name, spec.parameters);
  Settings s;
  ASSIGN_OR_RETURN(const std::string features, params.String("features", ""));
  ASSIGN_OR_RETURN(s.features, FeaturesOf(features, context.schema));
  ASSIGN_OR_RETURN(s.label, params.String("label", ""));
  const FieldSpec* label = context.schema.Find(s.label);
  if (label == nullptr || label->kind != FieldKind::kBool) {
    return absl::InvalidArgumentError(absl::StrCat(
        "logistic_regression: \"label\" must name a bool field of the schema; "
        "got \"",
        s.label, "\""));
  }
  ASSIGN_OR_RETURN(const int64_t rounds, params.Int("rounds", 50, 1, 1000));
  s.rounds = static_cast<int>(rounds);
  ASSIGN_OR_RETURN(s.learning_rate,
                   params.Real("learning_rate", 4, 1e-9, 1000));
  ASSIGN_OR_RETURN(const std::string schedule,
                   params.String("schedule", "constant"));
  if (schedule != "constant" && schedule != "inverse_sqrt") {
    return absl::InvalidArgumentError(absl::StrCat(
        "logistic_regression: \"schedule\" must be \"constant\" or "
        "\"inverse_sqrt\"; got \"",
        schedule, "\""));
  }
  s.inverse_sqrt = schedule == "inverse_sqrt";
  ASSIGN_OR_RETURN(const double average_tail,
                   params.Real("average_tail", 0.5, 0, 1));
  // The 1e-9 keeps e.g. 0.3·10 = 3.0000000000000004 from rounding up to 4.
  s.averaged_rounds =
      std::max(1, static_cast<int>(std::ceil(average_tail * s.rounds - 1e-9)));
  ASSIGN_OR_RETURN(s.clip, params.Real("clip", 0.25, 1e-6, 1));
  ASSIGN_OR_RETURN(s.radius, params.Real("radius", 20, 1e-6, 1e6));
  ASSIGN_OR_RETURN(s.l2, params.Real("l2", 0, 0, 100));
  ASSIGN_OR_RETURN(const std::string k_text,
                   params.String("coordinates_per_agent", "auto"));
  RETURN_IF_ERROR(params.CheckAllUsed());
  if (context.epsilon_cap_nanos <= 0) {
    return absl::InvalidArgumentError(
        "logistic_regression: the study's ε cap must be > 0");
  }
  const int dims = static_cast<int>(s.features.size()) + 1;
  absl::StatusOr<GradientPlan> plan = [&]() -> absl::StatusOr<GradientPlan> {
    ASSIGN_OR_RETURN(const int k, ParseCoordinatesPerAgent(k_text));
    return PlanGradientReports(context.epsilon_cap_nanos, s.clip, dims, k);
  }();
  if (!plan.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("logistic_regression: ", plan.status().message()));
  }
  s.plan = *std::move(plan);
  // Build step 1's rounds once so a schema the queries cannot be built on
  // fails here, at creation, not in the middle of the study.
  for (int b = 0; b < s.plan.coordinates_per_agent; ++b) {
    RETURN_IF_ERROR(
        GradientQuestions(s, {.theta = std::vector<double>(s.features.size())},
                          context, b)
            .status());
  }
  return std::make_unique<LogisticRegressionProgram>(context, std::move(s));
}

}  // namespace ldp
