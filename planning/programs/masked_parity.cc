// MASKED-PARITY learners; see the header for the protocol.
#include "planning/programs/masked_parity.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "absl/random/distributions.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/base/status_macros.h"
#include "common/queries/domain_encoding.h"
#include "common/queries/query_expression.h"
#include "planning/programs/program_parameters.h"

namespace ldp {
namespace {

using namespace ::ldp::expr;  // NOLINT: expression builders

constexpr char kHistogramId[] = "i_b_y";
constexpr char kMaskId[] = "mask";
constexpr char kParityId[] = "x_y";

// Reads d from the schema and checks the fields the programs need.
absl::StatusOr<int> CheckSchema(const RecordSchema& schema) {
  const FieldSpec* x = schema.Find("x");
  const FieldSpec* i = schema.Find("i");
  const FieldSpec* b = schema.Find("b");
  const FieldSpec* y = schema.Find("y");
  if (x == nullptr || x->kind != FieldKind::kBitVector || i == nullptr ||
      i->kind != FieldKind::kInt || b == nullptr ||
      b->kind != FieldKind::kBool || y == nullptr ||
      y->kind != FieldKind::kBool) {
    return absl::InvalidArgumentError(
        "MASKED-PARITY needs a schema with a bit vector \"x\", an int \"i\" "
        "and bools \"b\" and \"y\"");
  }
  const int d = static_cast<int>(x->bit_length);
  if (d > kMaxMaskedParityBits || i->int_lower != 0 || i->int_upper != d - 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "MASKED-PARITY needs \"i\" in [0, d − 1] for d = length of \"x\" = ", d,
        " (at most ", kMaxMaskedParityBits, ")"));
  }
  return d;
}

// Round 1 of both learners: the histogram of (i, b, y), item (2i + b)·2 + y.
absl::StatusOr<Question> HistogramQuestionOf(const RecordSchema& schema,
                                             int64_t epsilon_nanos,
                                             int64_t weight) {
  ASSIGN_OR_RETURN(
      DomainEncoding encoding,
      DomainEncoding::Create(
          ProductEncoding{
              .fields = {{.field = "i"}, {.field = "b"}, {.field = "y"}}},
          schema));
  return Question{.id = kHistogramId,
                  .kind = HistogramQuestion{.encoding = std::move(encoding)},
                  .epsilon_nanos = epsilon_nanos,
                  .target_reports = weight};
}

const HistogramEstimate* HistogramOf(const RoundAnswers& round,
                                     std::string_view id) {
  for (const QuestionAnswer& a : round.answers) {
    if (a.question_id == id) return std::get_if<HistogramEstimate>(&a.estimate);
  }
  return nullptr;
}

// r̂_i = the likelier label among examples (i, b = 1), and the smallest
// margin f(i,1,r̂_i) − f(i,1,1−r̂_i) over i, in standard errors.
absl::StatusOr<std::pair<std::vector<bool>, double>> ReadR(
    const RoundAnswers& round, int d) {
  const HistogramEstimate* h = HistogramOf(round, kHistogramId);
  if (h == nullptr || h->frequencies.size() != static_cast<size_t>(4 * d)) {
    return absl::InternalError(
        "MASKED-PARITY: round 1 has no (i, b, y) histogram of 4d items");
  }
  std::vector<bool> r(d);
  double min_margin = INFINITY;
  for (int i = 0; i < d; ++i) {
    const size_t zero = (2 * i + 1) * 2, one = zero + 1;
    const double diff = h->frequencies[one] - h->frequencies[zero];
    r[i] = diff > 0;
    const double se = std::sqrt(h->variances[one] + h->variances[zero]);
    min_margin = std::min(min_margin, std::abs(diff) / std::max(se, 1e-300));
  }
  return std::make_pair(std::move(r), min_margin);
}

ProgramResult ResultOf(const std::vector<bool>& r, std::optional<bool> a,
                       std::string detail) {
  ProgramResult result;
  result.summary = absl::StrCat("r = ", BitString(r),
                                a.has_value() ? absl::StrCat(", a = ", *a) : "",
                                "; ", detail);
  for (size_t i = 0; i < r.size(); ++i) {
    result.values.push_back(
        {.name = absl::StrCat("r[", i, "]"), .value = r[i] ? 1.0 : 0.0});
  }
  if (a.has_value())
    result.values.push_back({.name = "a", .value = *a ? 1.0 : 0.0});
  return result;
}

struct InteractiveOptions {
  double share = 0.5;
  int64_t epsilon1 = 0;  // nano-ε of each round
  int64_t epsilon2 = 0;
  bool reuse_agents = false;
};

class MaskedParityProgram final : public AnalystProgram {
 public:
  MaskedParityProgram(ProgramContext context, int d, InteractiveOptions options)
      : context_(std::move(context)), d_(d), options_(options) {}

  std::vector<ScheduledRound> Schedule() const override {
    const AgentSlice first =
        options_.reuse_agents ? AgentSlice{}
                              : AgentSlice{.begin = 0, .end = options_.share};
    const AgentSlice second =
        options_.reuse_agents ? AgentSlice{}
                              : AgentSlice{.begin = options_.share, .end = 1};
    return {
        {.name = "learn r", .slice = first, .epsilon_nanos = options_.epsilon1},
        {.name = "learn a",
         .slice = second,
         .epsilon_nanos = options_.epsilon2}};
  }

  absl::StatusOr<ProgramStep> Next(
      absl::Span<const RoundAnswers> history) const override {
    const int64_t eps = history.empty() ? options_.epsilon1 : options_.epsilon2;
    if (history.empty()) {
      ASSIGN_OR_RETURN(Question q,
                       HistogramQuestionOf(context_.schema, eps, 0));
      return ProgramStep{.round = ProgramRound{.questions = {std::move(q)}},
                         .result = {.summary = "round 1 asks for r"}};
    }
    ASSIGN_OR_RETURN(auto learned, ReadR(history[0], d_));
    const std::vector<bool>& r = learned.first;
    const std::string margin =
        absl::StrFormat("weakest bit of r at %.1f SE", learned.second);
    if (history.size() == 1) {
      // φ = (b = 0) · (2·[y ≠ ⟨r̂, x⟩] − 1): mean (2a − 1)/2 when r̂ = r.
      ASSIGN_OR_RETURN(
          Query query,
          Query::Create(
              IfThenElse(
                  Field("b"), Constant(0),
                  Sub(Mul(Constant(2), Ne(Field("y"), MaskedParity("x", r))),
                      Constant(1))),
              {.lower = -1, .upper = 1}, context_.schema));
      Question q{.id = kMaskId,
                 .kind = StatisticalQueryQuestion{.query = std::move(query)},
                 .epsilon_nanos = eps};
      return ProgramStep{.round = ProgramRound{.questions = {std::move(q)}},
                         .result = ResultOf(r, std::nullopt, margin)};
    }
    const auto* mask =
        history[1].answers.empty()
            ? nullptr
            : std::get_if<ScalarEstimate>(&history[1].answers[0].estimate);
    if (mask == nullptr) {
      return absl::InternalError("MASKED-PARITY: round 2 has no mask query");
    }
    const bool a = mask->value > 0;
    ProgramResult result = ResultOf(
        r, a,
        absl::StrFormat(
            "%s; mask query %.4f ± %.4f (SE), |mean|/SE = %.1f", margin,
            mask->value, mask->standard_error,
            std::abs(mask->value) / std::max(mask->standard_error, 1e-300)));
    result.values.push_back({.name = "mask_query",
                             .value = mask->value,
                             .interval = mask->interval});
    return ProgramStep{.result = std::move(result)};
  }

 private:
  const ProgramContext context_;
  const int d_;
  const InteractiveOptions options_;
};

class NoninteractiveMaskedParityProgram final : public AnalystProgram {
 public:
  NoninteractiveMaskedParityProgram(ProgramContext context, int d, double share,
                                    int parity_bits)
      : context_(std::move(context)),
        d_(d),
        share_(share),
        bits_(std::min(d, parity_bits)) {}

  std::vector<ScheduledRound> Schedule() const override {
    return {{.name = "all questions at once",
             .slice = {.begin = 0, .end = 1},
             .epsilon_nanos = context_.epsilon_cap_nanos}};
  }

  absl::StatusOr<ProgramStep> Next(
      absl::Span<const RoundAnswers> history) const override {
    const int64_t eps = context_.epsilon_cap_nanos;
    if (history.empty()) {
      // Weights in millionths of the population.
      const int64_t w1 = std::max<int64_t>(1, std::llround(share_ * 1e6));
      const int64_t w2 = std::max<int64_t>(1, 1'000'000 - w1);
      ASSIGN_OR_RETURN(Question histogram,
                       HistogramQuestionOf(context_.schema, eps, w1));
      // v = Σ_{j < bits} x_j 2^j + y·2^bits: the (x, y) item.
      std::vector<QueryNode> terms;
      for (int j = 0; j < bits_; ++j) {
        terms.push_back(
            IfThenElse(BitAt("x", j), Constant(std::ldexp(1, j)), Constant(0)));
      }
      terms.push_back(
          IfThenElse(Field("y"), Constant(std::ldexp(1, bits_)), Constant(0)));
      while (terms.size() > 1) {  // balanced, to stay within the depth limit
        std::vector<QueryNode> next;
        for (size_t k = 0; k + 1 < terms.size(); k += 2) {
          next.push_back(Add(std::move(terms[k]), std::move(terms[k + 1])));
        }
        if (terms.size() % 2 == 1) next.push_back(std::move(terms.back()));
        terms = std::move(next);
      }
      const uint32_t n_items = uint32_t{2} << bits_;
      ASSIGN_OR_RETURN(
          Query value,
          Query::Create(std::move(terms[0]),
                        {.lower = 0, .upper = n_items - 1.0}, context_.schema));
      ASSIGN_OR_RETURN(
          DomainEncoding encoding,
          DomainEncoding::Create(QueryValueEncoding{.query = std::move(value),
                                                    .domain_size = n_items},
                                 context_.schema));
      Question parity{
          .id = kParityId,
          .kind =
              HistogramQuestion{
                  .encoding = std::move(encoding),
                  .oracle =
                      FrequencyOracleSpec{
                          .kind = FrequencyOracleKind::kHadamardResponse}},
          .epsilon_nanos = eps,
          .target_reports = w2};
      return ProgramStep{
          .round = ProgramRound{.questions = {std::move(histogram),
                                              std::move(parity)}},
          .result = {.summary = "one round asks every question"}};
    }
    ASSIGN_OR_RETURN(auto learned, ReadR(history[0], d_));
    const std::vector<bool>& r = learned.first;
    const HistogramEstimate* h = HistogramOf(history[0], kParityId);
    if (h == nullptr || h->frequencies.size() != (size_t{2} << bits_)) {
      return absl::InternalError("MASKED-PARITY: no (x, y) histogram");
    }
    // F̂(r̂, 1) = Σ_v f̂(v)·(−1)^{y_v ⊕ ⟨r̂, x_v⟩}, over the first `bits_`
    // bits of r̂ (the rest of x was never asked for).
    uint64_t mask = 0;
    for (int j = 0; j < bits_; ++j) mask |= uint64_t{r[j]} << j;
    double coefficient = 0;
    double variance = 0;  // ignoring covariances: indicative only
    for (uint64_t v = 0; v < h->frequencies.size(); ++v) {
      const int sign_bits = std::popcount(v & mask) + ((v >> bits_) & 1);
      coefficient += (sign_bits % 2 == 0 ? 1 : -1) * h->frequencies[v];
      variance += h->variances[v];
    }
    const bool a = coefficient < 0;
    ProgramResult result = ResultOf(
        r, a,
        absl::StrFormat("Fourier coefficient of (r̂, 1) over %d of %d bits: "
                        "%.4f (|value|/SE ≈ %.2f)",
                        bits_, d_, coefficient,
                        std::abs(coefficient) / std::sqrt(variance)));
    result.values.push_back({.name = "coefficient", .value = coefficient});
    return ProgramStep{.result = std::move(result)};
  }

 private:
  const ProgramContext context_;
  const int d_;
  const double share_;
  const int bits_;
};

}  // namespace

absl::StatusOr<RecordSchema> MaskedParitySchema(int d) {
  if (d < 2 || d > kMaxMaskedParityBits) {
    return absl::InvalidArgumentError(absl::StrCat(
        "MASKED-PARITY needs 2 ≤ d ≤ ", kMaxMaskedParityBits, ", got ", d));
  }
  return RecordSchema::Create({FieldSpec::BitVector("x", d),
                               FieldSpec::Int("i", 0, d - 1),
                               FieldSpec::Bool("b"), FieldSpec::Bool("y")});
}

bool MaskedParityLabel(const MaskedParityConcept& c, const std::vector<bool>& x,
                       int i, bool b) {
  if (b) return c.r[i];
  bool parity = c.a;
  for (size_t j = 0; j < c.r.size() && j < x.size(); ++j) {
    parity ^= c.r[j] && x[j];
  }
  return parity;
}

Record SampleMaskedParityRecord(const MaskedParityConcept& c,
                                absl::BitGenRef gen) {
  const int d = static_cast<int>(c.r.size());
  std::vector<bool> x(d);
  for (int j = 0; j < d; j += 64) {
    const uint64_t word = absl::Uniform<uint64_t>(gen);
    for (int k = 0; k < 64 && j + k < d; ++k) x[j + k] = (word >> k) & 1;
  }
  const int i = absl::Uniform(gen, 0, d);
  const bool b = absl::Bernoulli(gen, 0.5);
  const bool y = MaskedParityLabel(c, x, i, b);
  Record record;
  record.values["x"] = std::move(x);
  record.values["i"] = int64_t{i};
  record.values["b"] = b;
  record.values["y"] = y;
  return record;
}

double MaskedParityError(const MaskedParityConcept& truth,
                         const MaskedParityConcept& hypothesis) {
  const size_t d = truth.r.size();
  int wrong = 0;
  for (size_t i = 0; i < d; ++i) {
    wrong += i >= hypothesis.r.size() || hypothesis.r[i] != truth.r[i];
  }
  const double b0 = wrong > 0 ? 0.5 : (hypothesis.a != truth.a ? 1.0 : 0.0);
  return 0.5 * wrong / static_cast<double>(d) + 0.5 * b0;
}

absl::StatusOr<MaskedParityConcept> MaskedParityFromResult(
    const ProgramResult& result, int d) {
  MaskedParityConcept c{.r = std::vector<bool>(d)};
  int found = 0;
  bool has_a = false;
  for (const ProgramValue& v : result.values) {
    if (v.name == "a") {
      c.a = v.value > 0.5;
      has_a = true;
      continue;
    }
    for (int i = 0; i < d; ++i) {
      if (v.name == absl::StrCat("r[", i, "]")) {
        c.r[i] = v.value > 0.5;
        ++found;
      }
    }
  }
  if (found != d || !has_a) {
    return absl::InvalidArgumentError(
        "the result does not state r[0..d−1] and a");
  }
  return c;
}

namespace {

absl::StatusOr<double> Share(ProgramParameters& params) {
  return params.Real("round1_share", 0.5, 1e-6, 1 - 1e-6);
}

}  // namespace

absl::StatusOr<std::unique_ptr<AnalystProgram>> CreateMaskedParityProgram(
    const ProgramSpec& spec, const ProgramContext& context) {
  ProgramParameters params(spec.name, spec.parameters);
  ASSIGN_OR_RETURN(const int d, CheckSchema(context.schema));
  InteractiveOptions options;
  ASSIGN_OR_RETURN(options.share, Share(params));
  // ε per round in units of ε, default the whole cap.
  const double cap = context.epsilon_cap_nanos / 1e9;
  ASSIGN_OR_RETURN(const double e1,
                   params.Real("round1_epsilon", cap, 1e-9, 1e6));
  ASSIGN_OR_RETURN(const double e2,
                   params.Real("round2_epsilon", cap, 1e-9, 1e6));
  ASSIGN_OR_RETURN(const int64_t reuse, params.Int("reuse_agents", 0, 0, 1));
  RETURN_IF_ERROR(params.CheckAllUsed());
  options.epsilon1 = std::llround(e1 * 1e9);
  options.epsilon2 = std::llround(e2 * 1e9);
  options.reuse_agents = reuse == 1;
  return std::make_unique<MaskedParityProgram>(context, d, options);
}

absl::StatusOr<std::unique_ptr<AnalystProgram>>
CreateNoninteractiveMaskedParityProgram(const ProgramSpec& spec,
                                        const ProgramContext& context) {
  ProgramParameters params(spec.name, spec.parameters);
  ASSIGN_OR_RETURN(const int d, CheckSchema(context.schema));
  ASSIGN_OR_RETURN(const double share, Share(params));
  ASSIGN_OR_RETURN(const int64_t bits, params.Int("parity_bits", 20, 1, 22));
  RETURN_IF_ERROR(params.CheckAllUsed());
  return std::make_unique<NoninteractiveMaskedParityProgram>(
      context, d, share, static_cast<int>(bits));
}

}  // namespace ldp
