// Report payloads and round plans as storage.proto messages; see the header.
//
// Decoding is strict in two steps: the messages' own checks (kinds in range,
// a oneof that is set, lengths under the caps the hand-written codecs had),
// then the decoded value is encoded again and must give the input's bytes.
// That refuses every form protobuf would accept but EncodePayload and
// EncodePlan never write (unknown fields, unpacked or repeated fields,
// values that overflow their C++ type, defaults written out), so decoding
// stays canonical.
#include "server/store/storage_codec.h"

#include <cstdint>
#include <utility>

#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "proto/ldp/storage/v1/storage.pb.h"

namespace ldp {
namespace {

namespace pb = ::ldp::storage::v1;

constexpr size_t kMaxQuestionsBytes = size_t{64} << 20;
constexpr size_t kMaxExplanation = 1 << 16;
constexpr uint32_t kLastRealKind =
    static_cast<uint32_t>(RealMechanismKind::kHybrid);
constexpr uint32_t kLastOracleKind =
    static_cast<uint32_t>(FrequencyOracleKind::kRappor);
constexpr uint32_t kLastStrategyKind =
    static_cast<uint32_t>(StrategyKind::kFakeDataUnaryRandom);
constexpr uint32_t kLastSplitStrategy =
    static_cast<uint32_t>(SplitStrategy::kEpsilonSplitting);
constexpr int kMaxLevelWeights = 64;

// Protobuf's deterministic serialization, into a string of the exact size.
std::string Serialize(const google::protobuf::MessageLite& message) {
  const size_t size = message.ByteSizeLong();
  std::string bytes(size, '\0');
  google::protobuf::io::ArrayOutputStream array(bytes.data(),
                                                static_cast<int>(size));
  google::protobuf::io::CodedOutputStream out(&array);
  out.SetSerializationDeterministic(true);
  message.SerializeWithCachedSizes(&out);
  return bytes;
}

bool Parse(std::string_view bytes, google::protobuf::MessageLite& message) {
  return message.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()));
}

// ---- Payloads ----

// The alternatives a workload's inner report and a payload share.
template <typename Message>
bool WriteSharedFrequency(const FrequencyReport& report, Message& out) {
  if (const auto* item = std::get_if<ItemReport>(&report)) {
    out.mutable_item()->set_item(item->item);
  } else if (const auto* bits = std::get_if<BitVectorReport>(&report)) {
    pb::BitVectorPayload* m = out.mutable_bit_vector();
    m->mutable_words()->Add(bits->words.begin(), bits->words.end());
    m->set_num_bits(bits->num_bits);
  } else if (const auto* hashed = std::get_if<HashedReport>(&report)) {
    pb::HashedPayload* m = out.mutable_hashed();
    m->set_seed(hashed->seed);
    m->set_bucket(hashed->bucket);
  } else {
    return false;
  }
  return true;
}

void WriteFrequency(const FrequencyReport& report, pb::StoredPayload& out) {
  if (WriteSharedFrequency(report, out)) return;
  if (const auto* subset = std::get_if<SubsetReport>(&report)) {
    out.mutable_subset()->mutable_items()->Add(subset->items.begin(),
                                               subset->items.end());
    return;
  }
  const auto& sketch = std::get<SketchReport>(report);
  pb::SketchPayload* m = out.mutable_sketch();
  m->set_row(sketch.row);
  m->set_column(sketch.column);
  m->mutable_bits()->Add(sketch.bits.begin(), sketch.bits.end());
  m->set_num_bits(sketch.num_bits);
}

BitVectorReport ReadBitVector(const pb::BitVectorPayload& m) {
  return {.words = {m.words().begin(), m.words().end()},
          .num_bits = m.num_bits()};
}

// The payload, or nullopt when the message holds no kind this version
// knows.
std::optional<ReportPayload> ReadPayload(const pb::StoredPayload& m) {
  switch (m.kind_case()) {
    case pb::StoredPayload::kItem:
      return FrequencyReport(ItemReport{.item = m.item().item()});
    case pb::StoredPayload::kBitVector:
      return FrequencyReport(ReadBitVector(m.bit_vector()));
    case pb::StoredPayload::kHashed:
      return FrequencyReport(HashedReport{.seed = m.hashed().seed(),
                                          .bucket = m.hashed().bucket()});
    case pb::StoredPayload::kSubset:
      return FrequencyReport(SubsetReport{
          .items = {m.subset().items().begin(), m.subset().items().end()}});
    case pb::StoredPayload::kSketch:
      return FrequencyReport(SketchReport{
          .row = m.sketch().row(),
          .column = m.sketch().column(),
          .bits = {m.sketch().bits().begin(), m.sketch().bits().end()},
          .num_bits = m.sketch().num_bits()});
    case pb::StoredPayload::kScalar:
      return ScalarReport{.level = m.scalar().level()};
    case pb::StoredPayload::kWorkload:
      break;
    case pb::StoredPayload::KIND_NOT_SET:
      return std::nullopt;
  }
  const pb::WorkloadPayload& w = m.workload();
  WorkloadReport report{.group = w.group()};
  switch (w.inner_case()) {
    case pb::WorkloadPayload::kItem:
      report.inner = ItemReport{.item = w.item().item()};
      return report;
    case pb::WorkloadPayload::kBitVector:
      report.inner = ReadBitVector(w.bit_vector());
      return report;
    case pb::WorkloadPayload::kHashed:
      report.inner = HashedReport{.seed = w.hashed().seed(),
                                  .bucket = w.hashed().bucket()};
      return report;
    case pb::WorkloadPayload::INNER_NOT_SET:
      break;
  }
  return std::nullopt;
}

// ---- Plans ----

void WriteStrategy(const StrategyDecision& decision,
                   pb::StrategyDecision& out) {
  const StrategySpec& spec = decision.spec;
  out.set_kind(static_cast<uint32_t>(spec.kind));
  out.set_epsilon(spec.epsilon);
  out.set_domain_size(spec.domain_size);
  out.set_branching(spec.branching);
  out.set_num_bits(spec.num_bits);
  out.set_order(spec.order);
  out.set_rows(spec.rows);
  out.mutable_level_weights()->Add(spec.level_weights.begin(),
                                   spec.level_weights.end());
  out.mutable_matrix()->Add(spec.matrix.begin(), spec.matrix.end());
  out.mutable_attribute_sizes()->Add(spec.attribute_sizes.begin(),
                                     spec.attribute_sizes.end());
  out.set_description(decision.description);
  out.set_v_max(decision.v_max);
  out.set_v_avg(decision.v_avg);
  out.set_best_fixed(decision.best_fixed);
  out.set_best_fixed_v_max(decision.best_fixed_v_max);
  out.set_gamma2_lower(decision.gamma2_lower);
  out.set_gamma2_upper(decision.gamma2_upper);
}

void WriteQuestion(const QuestionDecision& q, pb::QuestionDecision& out) {
  out.set_epsilon_nanos(q.epsilon_nanos);
  out.set_weight(q.weight);
  if (const auto* strategy = std::get_if<StrategyDecision>(&q.randomizer)) {
    WriteStrategy(*strategy, *out.mutable_strategy());
  } else if (const auto* real = std::get_if<RealMechanismSpec>(&q.randomizer)) {
    pb::RealMechanism* m = out.mutable_real();
    m->set_kind(static_cast<uint32_t>(real->kind));
    m->set_epsilon(real->epsilon);
    m->set_bound(real->bound);
    m->set_resolution_bits(real->resolution_bits);
    m->set_num_cells(real->num_cells);
  } else {
    const auto& oracle = std::get<FrequencyOracleSpec>(q.randomizer);
    pb::FrequencyOracle* m = out.mutable_oracle();
    m->set_kind(static_cast<uint32_t>(oracle.kind));
    m->set_epsilon(oracle.epsilon);
    m->set_domain_size(oracle.domain_size);
    m->set_num_buckets(oracle.num_buckets);
    m->set_subset_size(oracle.subset_size);
    m->set_num_hashes(oracle.num_hashes);
    m->set_num_columns(oracle.num_columns);
    m->set_hash_seed(oracle.hash_seed);
    m->set_epsilon_permanent(oracle.epsilon_permanent);
    m->set_rows_per_item(oracle.rows_per_item);
    m->set_sampled_buckets(oracle.sampled_buckets);
    m->set_num_cohorts(oracle.num_cohorts);
  }
}

bool ReadStrategy(const pb::StrategyDecision& m, StrategyDecision* out) {
  if (m.kind() > kLastStrategyKind ||
      m.level_weights_size() > kMaxLevelWeights ||
      static_cast<uint64_t>(m.matrix_size()) > kMaxStrategyMatrixEntries ||
      static_cast<uint32_t>(m.attribute_sizes_size()) >
          kMaxStrategyAttributes ||
      m.description().size() > kMaxExplanation ||
      m.best_fixed().size() > kMaxExplanation) {
    return false;
  }
  *out = StrategyDecision{
      .spec = {.kind = static_cast<StrategyKind>(m.kind()),
               .epsilon = m.epsilon(),
               .domain_size = m.domain_size(),
               .branching = m.branching(),
               .num_bits = m.num_bits(),
               .order = m.order(),
               .level_weights = {m.level_weights().begin(),
                                 m.level_weights().end()},
               .rows = m.rows(),
               .matrix = {m.matrix().begin(), m.matrix().end()},
               .attribute_sizes = {m.attribute_sizes().begin(),
                                   m.attribute_sizes().end()}},
      .description = m.description(),
      .v_max = m.v_max(),
      .v_avg = m.v_avg(),
      .best_fixed = m.best_fixed(),
      .best_fixed_v_max = m.best_fixed_v_max(),
      .gamma2_lower = m.gamma2_lower(),
      .gamma2_upper = m.gamma2_upper()};
  return true;
}

bool ReadQuestion(const pb::QuestionDecision& m, QuestionDecision* q) {
  q->epsilon_nanos = m.epsilon_nanos();
  q->weight = m.weight();
  switch (m.randomizer_case()) {
    case pb::QuestionDecision::kReal: {
      const pb::RealMechanism& r = m.real();
      if (r.kind() > kLastRealKind) return false;
      q->randomizer =
          RealMechanismSpec{.kind = static_cast<RealMechanismKind>(r.kind()),
                            .epsilon = r.epsilon(),
                            .bound = r.bound(),
                            .resolution_bits = r.resolution_bits(),
                            .num_cells = r.num_cells()};
      return true;
    }
    case pb::QuestionDecision::kOracle: {
      const pb::FrequencyOracle& o = m.oracle();
      if (o.kind() > kLastOracleKind) return false;
      q->randomizer = FrequencyOracleSpec{
          .kind = static_cast<FrequencyOracleKind>(o.kind()),
          .epsilon = o.epsilon(),
          .domain_size = o.domain_size(),
          .num_buckets = o.num_buckets(),
          .subset_size = o.subset_size(),
          .num_hashes = o.num_hashes(),
          .num_columns = o.num_columns(),
          .hash_seed = o.hash_seed(),
          .epsilon_permanent = o.epsilon_permanent(),
          .rows_per_item = o.rows_per_item(),
          .sampled_buckets = o.sampled_buckets(),
          .num_cohorts = o.num_cohorts()};
      return true;
    }
    case pb::QuestionDecision::kStrategy: {
      StrategyDecision decision;
      if (!ReadStrategy(m.strategy(), &decision)) return false;
      q->randomizer = std::move(decision);
      return true;
    }
    case pb::QuestionDecision::RANDOMIZER_NOT_SET:
      break;
  }
  return false;
}

bool ReadProgram(const pb::ProgramRound& m, PlanDecisions* plan) {
  plan->from_program = true;
  plan->round_name = m.round_name();
  plan->slice = {.begin = m.slice_begin(), .end = m.slice_end()};
  plan->questions_bytes = m.questions();
  return plan->round_name.size() <= kMaxExplanation &&
         plan->questions_bytes.size() <= kMaxQuestionsBytes &&
         plan->slice.begin >= 0 && plan->slice.begin < plan->slice.end &&
         plan->slice.end <= 1;
}

bool ReadPlan(const pb::PlanDecisions& m, PlanDecisions* plan) {
  if (m.strategy() > kLastSplitStrategy ||
      m.explanation().size() > kMaxExplanation ||
      m.questions_size() > kMaxQuestionsPerRound) {
    return false;
  }
  plan->strategy = static_cast<SplitStrategy>(m.strategy());
  plan->explanation = m.explanation();
  plan->questions.resize(m.questions_size());
  for (int i = 0; i < m.questions_size(); ++i) {
    if (!ReadQuestion(m.questions(i), &plan->questions[i])) return false;
  }
  return !m.has_program() || ReadProgram(m.program(), plan);
}

}  // namespace

std::string EncodePayload(const ReportPayload& payload) {
  pb::StoredPayload m;
  if (const auto* scalar = std::get_if<ScalarReport>(&payload)) {
    m.mutable_scalar()->set_level(scalar->level);
  } else if (const auto* workload = std::get_if<WorkloadReport>(&payload)) {
    pb::WorkloadPayload* w = m.mutable_workload();
    w->set_group(workload->group);
    // Strategies output only these (workload_report.h).
    WriteSharedFrequency(workload->inner, *w);
  } else {
    WriteFrequency(std::get<FrequencyReport>(payload), m);
  }
  return Serialize(m);
}

absl::StatusOr<ReportPayload> DecodePayload(std::string_view bytes) {
  pb::StoredPayload m;
  if (!Parse(bytes, m)) {
    return absl::InvalidArgumentError("stored payload is malformed");
  }
  std::optional<ReportPayload> payload = ReadPayload(m);
  if (!payload.has_value()) {
    return absl::InvalidArgumentError("stored payload has an unknown kind");
  }
  if (EncodePayload(*payload) != bytes) {
    return absl::InvalidArgumentError(
        "stored payload is not in the form this server writes");
  }
  return *std::move(payload);
}

std::string EncodePlan(const PlanDecisions& plan) {
  pb::StoredPlan stored;
  pb::PlanDecisions& m = *stored.mutable_decisions();
  m.set_strategy(static_cast<uint32_t>(plan.strategy));
  m.set_explanation(plan.explanation);
  for (const QuestionDecision& q : plan.questions) {
    WriteQuestion(q, *m.add_questions());
  }
  if (plan.from_program) {
    pb::ProgramRound& program = *m.mutable_program();
    program.set_round_name(plan.round_name);
    program.set_slice_begin(plan.slice.begin);
    program.set_slice_end(plan.slice.end);
    program.set_questions(plan.questions_bytes);
  }
  return Serialize(stored);
}

absl::StatusOr<PlanDecisions> DecodePlan(std::string_view bytes) {
  pb::StoredPlan stored;
  PlanDecisions plan;
  if (!Parse(bytes, stored) || !stored.has_decisions() ||
      !ReadPlan(stored.decisions(), &plan)) {
    return absl::InvalidArgumentError("stored round plan is malformed");
  }
  if (EncodePlan(plan) != bytes) {
    return absl::InvalidArgumentError(
        "stored round plan is not in the form this server writes");
  }
  return plan;
}

}  // namespace ldp
