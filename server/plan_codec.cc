// Plan encoding: a version byte, the strategy, the explanation, then per
// question εₜ, weight and every field of its randomizer spec. Version 2 adds
// a trailer for analyst-program rounds: a flag, then the round's name, slice
// and question bytes. Version 1 plans (noninteractive) still decode. A
// question's randomizer is tagged 0 (real mechanism), 1 (frequency oracle)
// or 3 (workload strategy: every StrategySpec field, then the description,
// predicted variances and what the choice was measured against: the best
// fixed strategy's name and v_max, γ₂'s certified interval). Tag 2 is tag 3
// without the comparison, written before it existed; it still decodes.
// New tags need no new version since no older plan can hold them.
#include "server/plan_codec.h"

#include "server/byte_io.h"

namespace ldp {
namespace {

constexpr char kVersion = 2;
constexpr size_t kMaxQuestionsBytes = size_t{64} << 20;
constexpr size_t kMaxExplanation = 1 << 16;
constexpr uint64_t kLastRealKind =
    static_cast<uint64_t>(RealMechanismKind::kHybrid);
constexpr uint64_t kLastOracleKind =
    static_cast<uint64_t>(FrequencyOracleKind::kLongitudinalUnaryEncoding);
constexpr uint64_t kLastStrategyKind =
    static_cast<uint64_t>(StrategyKind::kFactorization);
constexpr uint64_t kMaxLevelWeights = 64;

void WriteDoubles(const std::vector<double>& values, ByteWriter& out) {
  out.Varint(values.size());
  for (double v : values) out.Double(v);
}

void WriteStrategy(const StrategyDecision& decision, ByteWriter& out) {
  const StrategySpec& spec = decision.spec;
  out.Varint(3);
  out.Varint(static_cast<uint64_t>(spec.kind));
  out.Double(spec.epsilon);
  for (uint32_t v :
       {spec.domain_size, spec.branching, spec.num_bits, spec.order, spec.rows}) {
    out.Varint(v);
  }
  WriteDoubles(spec.level_weights, out);
  WriteDoubles(spec.matrix, out);
  out.Bytes(decision.description);
  out.Double(decision.v_max);
  out.Double(decision.v_avg);
  out.Bytes(decision.best_fixed);
  out.Double(decision.best_fixed_v_max);
  out.Double(decision.gamma2_lower);
  out.Double(decision.gamma2_upper);
}

void WriteRandomizer(const QuestionDecision& q, ByteWriter& out) {
  if (const auto* strategy = std::get_if<StrategyDecision>(&q.randomizer)) {
    WriteStrategy(*strategy, out);
    return;
  }
  if (const auto* real = std::get_if<RealMechanismSpec>(&q.randomizer)) {
    out.Varint(0);
    out.Varint(static_cast<uint64_t>(real->kind));
    out.Double(real->epsilon);
    out.Double(real->bound);
    out.SignedVarint(real->resolution_bits);
    out.SignedVarint(real->num_cells);
    return;
  }
  const auto& oracle = std::get<FrequencyOracleSpec>(q.randomizer);
  out.Varint(1);
  out.Varint(static_cast<uint64_t>(oracle.kind));
  out.Double(oracle.epsilon);
  for (uint32_t v : {oracle.domain_size, oracle.num_buckets, oracle.subset_size,
                     oracle.num_hashes, oracle.num_columns}) {
    out.Varint(v);
  }
  out.Fixed64(oracle.hash_seed);
  out.Double(oracle.epsilon_permanent);
}

bool ReadUint32(ByteReader& in, uint32_t* value) {
  uint64_t wide = 0;
  if (!in.Varint(&wide) || wide > UINT32_MAX) return false;
  *value = static_cast<uint32_t>(wide);
  return true;
}

bool ReadReal(ByteReader& in, QuestionDecision* q) {
  RealMechanismSpec spec;
  uint64_t kind = 0;
  int64_t resolution_bits = 0;
  if (!in.Varint(&kind) || kind > kLastRealKind || !in.Double(&spec.epsilon) ||
      !in.Double(&spec.bound) || !in.SignedVarint(&resolution_bits) ||
      !in.SignedVarint(&spec.num_cells) || resolution_bits < INT32_MIN ||
      resolution_bits > INT32_MAX) {
    return false;
  }
  spec.kind = static_cast<RealMechanismKind>(kind);
  spec.resolution_bits = static_cast<int>(resolution_bits);
  q->randomizer = spec;
  return true;
}

bool ReadOracle(ByteReader& in, QuestionDecision* q) {
  FrequencyOracleSpec spec;
  uint64_t kind = 0;
  if (!in.Varint(&kind) || kind > kLastOracleKind ||
      !in.Double(&spec.epsilon) || !ReadUint32(in, &spec.domain_size) ||
      !ReadUint32(in, &spec.num_buckets) ||
      !ReadUint32(in, &spec.subset_size) || !ReadUint32(in, &spec.num_hashes) ||
      !ReadUint32(in, &spec.num_columns) || !in.Fixed64(&spec.hash_seed) ||
      !in.Double(&spec.epsilon_permanent)) {
    return false;
  }
  spec.kind = static_cast<FrequencyOracleKind>(kind);
  q->randomizer = spec;
  return true;
}

bool ReadDoubles(ByteReader& in, uint64_t max_count,
                 std::vector<double>* values) {
  uint64_t count = 0;
  if (!in.Count(&count, 8) || count > max_count) return false;
  values->resize(count);
  for (double& v : *values) {
    if (!in.Double(&v)) return false;
  }
  return true;
}

bool ReadStrategy(ByteReader& in, bool with_comparison, QuestionDecision* q) {
  StrategyDecision decision;
  StrategySpec& spec = decision.spec;
  uint64_t kind = 0;
  std::string_view description;
  if (!in.Varint(&kind) || kind > kLastStrategyKind ||
      !in.Double(&spec.epsilon) || !ReadUint32(in, &spec.domain_size) ||
      !ReadUint32(in, &spec.branching) || !ReadUint32(in, &spec.num_bits) ||
      !ReadUint32(in, &spec.order) || !ReadUint32(in, &spec.rows) ||
      !ReadDoubles(in, kMaxLevelWeights, &spec.level_weights) ||
      !ReadDoubles(in, kMaxStrategyMatrixEntries, &spec.matrix) ||
      !in.Bytes(&description, kMaxExplanation) || !in.Double(&decision.v_max) ||
      !in.Double(&decision.v_avg)) {
    return false;
  }
  std::string_view best_fixed;
  if (with_comparison &&
      (!in.Bytes(&best_fixed, kMaxExplanation) ||
       !in.Double(&decision.best_fixed_v_max) ||
       !in.Double(&decision.gamma2_lower) ||
       !in.Double(&decision.gamma2_upper))) {
    return false;
  }
  spec.kind = static_cast<StrategyKind>(kind);
  decision.description = std::string(description);
  decision.best_fixed = std::string(best_fixed);
  q->randomizer = std::move(decision);
  return true;
}

bool ReadQuestion(ByteReader& in, QuestionDecision* q) {
  uint64_t tag = 0;
  if (!in.SignedVarint(&q->epsilon_nanos) || !in.Varint(&q->weight) ||
      !in.Varint(&tag)) {
    return false;
  }
  if (tag == 0) return ReadReal(in, q);
  if (tag == 1) return ReadOracle(in, q);
  if (tag == 2 || tag == 3) return ReadStrategy(in, tag == 3, q);
  return false;
}

}  // namespace

std::string EncodePlan(const PlanDecisions& plan) {
  std::string bytes;
  bytes.push_back(kVersion);
  ByteWriter out(&bytes);
  out.Varint(static_cast<uint64_t>(plan.strategy));
  out.Bytes(plan.explanation);
  out.Varint(plan.questions.size());
  for (const QuestionDecision& q : plan.questions) {
    out.SignedVarint(q.epsilon_nanos);
    out.Varint(q.weight);
    WriteRandomizer(q, out);
  }
  out.Varint(plan.from_program ? 1 : 0);
  if (plan.from_program) {
    out.Bytes(plan.round_name);
    out.Double(plan.slice.begin);
    out.Double(plan.slice.end);
    out.Bytes(plan.questions_bytes);
  }
  return bytes;
}

absl::StatusOr<PlanDecisions> DecodePlan(std::string_view bytes) {
  const auto malformed = [] {
    return absl::InvalidArgumentError("stored round plan is malformed");
  };
  if (bytes.empty() ||
      (bytes.front() != kVersion && bytes.front() != kPlanVersion1)) {
    return absl::InvalidArgumentError(
        "stored round plan has an unknown version");
  }
  ByteReader in(bytes.substr(1));
  PlanDecisions plan;
  uint64_t strategy = 0;
  std::string_view explanation;
  uint64_t count = 0;
  if (!in.Varint(&strategy) || strategy > 1 ||
      !in.Bytes(&explanation, kMaxExplanation) || !in.Count(&count, 4) ||
      count > static_cast<uint64_t>(kMaxQuestionsPerRound)) {
    return malformed();
  }
  plan.strategy = static_cast<SplitStrategy>(strategy);
  plan.explanation = std::string(explanation);
  plan.questions.resize(count);
  for (QuestionDecision& q : plan.questions) {
    if (!ReadQuestion(in, &q)) return malformed();
  }
  if (bytes.front() == kVersion) {
    uint64_t from_program = 0;
    if (!in.Varint(&from_program) || from_program > 1) return malformed();
    plan.from_program = from_program == 1;
    if (plan.from_program) {
      std::string_view name;
      std::string_view questions;
      if (!in.Bytes(&name, kMaxExplanation) || !in.Double(&plan.slice.begin) ||
          !in.Double(&plan.slice.end) ||
          !in.Bytes(&questions, kMaxQuestionsBytes) ||
          !(plan.slice.begin >= 0 && plan.slice.begin < plan.slice.end &&
            plan.slice.end <= 1)) {
        return malformed();
      }
      plan.round_name = std::string(name);
      plan.questions_bytes = std::string(questions);
    }
  }
  if (!in.AtEnd()) return malformed();
  return plan;
}

}  // namespace ldp
