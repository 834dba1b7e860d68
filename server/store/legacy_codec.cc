// The byte formats stored before storage.proto, read for the migration
// only; see the header. The readers are those of the old codecs, unchanged:
// strict (truncation, overlong varints, oversized lengths, unknown tags and
// kinds are errors), since a database file is input like any other.
//
// Payloads: a version byte, the alternative's tag, then its fields as
// varints (items, rows, levels) or fixed 64-bit words (bit vectors, seeds).
// A workload report is its tag, its group, then its inner frequency report
// encoded as above (tag and fields). Version 2 adds a bit vector's or
// sketch's num_bits (a varint, never 0) before its words and was written
// exactly when the payload had a length to keep; version 1 has no lengths
// (read back with num_bits = 0, the legacy marker of frequency_report.h).
//
// Plans: a version byte, the strategy, the explanation, then per question
// εₜ, weight and every field of its randomizer spec. Version 2 adds a
// trailer for analyst-program rounds: a flag, then the round's name, slice
// and question bytes; version 1 (noninteractive) has none. A question's
// randomizer is tagged 0 (real mechanism), 1 (frequency oracle) or 3
// (workload strategy: every StrategySpec field, then the description,
// predicted variances and what the choice was measured against: the best
// fixed strategy's name and v_max, γ₂'s certified interval). Tag 2 is tag 3
// without the comparison, written before it existed.
#include "server/store/legacy_codec.h"

#include <bit>
#include <cstdint>

#include "server/store/storage_codec.h"

namespace ldp {
namespace {

// A little-endian varint and fixed-width reader. Every read returns false
// (and leaves the output unspecified) on malformed input; once false, later
// reads also fail.
class ByteReader {
 public:
  explicit ByteReader(std::string_view in) : in_(in) {}

  bool Varint(uint64_t* value);
  bool SignedVarint(int64_t* value);  // zigzag
  bool Fixed64(uint64_t* value);
  bool Double(double* value);  // its IEEE-754 bits, exactly
  // At most max_length bytes, length-prefixed; the view points into the
  // input.
  bool Bytes(std::string_view* bytes, size_t max_length);
  // Reads a count of items that each need at least `min_item_bytes` more
  // input, rejecting counts the remaining input cannot hold.
  bool Count(uint64_t* count, size_t min_item_bytes);

  bool AtEnd() const { return ok_ && in_.empty(); }

 private:
  bool Fail() { return ok_ = false; }

  std::string_view in_;
  bool ok_ = true;
};

bool ByteReader::Varint(uint64_t* value) {
  if (!ok_) return false;
  uint64_t result = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (in_.empty()) return Fail();
    const uint8_t byte = static_cast<uint8_t>(in_.front());
    in_.remove_prefix(1);
    // The tenth byte may only carry the top bit; a trailing zero byte would
    // be a second encoding of the same value.
    if ((shift == 63 && byte > 1) || (shift > 0 && byte == 0)) return Fail();
    result |= uint64_t{byte & 0x7fu} << shift;
    if ((byte & 0x80) == 0) {
      *value = result;
      return true;
    }
  }
  return Fail();
}

bool ByteReader::SignedVarint(int64_t* value) {
  uint64_t bits = 0;
  if (!Varint(&bits)) return false;
  *value = static_cast<int64_t>((bits >> 1) ^ (~(bits & 1) + 1));
  return true;
}

bool ByteReader::Fixed64(uint64_t* value) {
  if (!ok_ || in_.size() < 8) return Fail();
  uint64_t result = 0;
  for (int i = 0; i < 8; ++i) {
    result |= uint64_t{static_cast<uint8_t>(in_[i])} << (8 * i);
  }
  in_.remove_prefix(8);
  *value = result;
  return true;
}

bool ByteReader::Double(double* value) {
  uint64_t bits = 0;
  if (!Fixed64(&bits)) return false;
  *value = std::bit_cast<double>(bits);
  return true;
}

bool ByteReader::Bytes(std::string_view* bytes, size_t max_length) {
  uint64_t length = 0;
  if (!Varint(&length)) return false;
  if (length > max_length || length > in_.size()) return Fail();
  *bytes = in_.substr(0, length);
  in_.remove_prefix(length);
  return true;
}

bool ByteReader::Count(uint64_t* count, size_t min_item_bytes) {
  if (!Varint(count)) return false;
  if (min_item_bytes > 0 && *count > in_.size() / min_item_bytes) return Fail();
  return true;
}

bool ReadUint32(ByteReader& in, uint32_t* value) {
  uint64_t wide = 0;
  if (!in.Varint(&wide) || wide > UINT32_MAX) return false;
  *value = static_cast<uint32_t>(wide);
  return true;
}

// ---- Payloads ----

constexpr char kVersionWithoutLengths = 1;
constexpr char kVersionWithLengths = 2;
enum Tag : uint64_t {
  kItem = 0,
  kBitVector = 1,
  kHashed = 2,
  kSubset = 3,
  kSketch = 4,
  kScalar = 5,
  kWorkload = 6,
};

bool ReadWords(ByteReader& in, std::vector<uint64_t>* words) {
  uint64_t count = 0;
  if (!in.Count(&count, 8)) return false;
  words->resize(count);
  for (uint64_t& word : *words) {
    if (!in.Fixed64(&word)) return false;
  }
  return true;
}

// Version 2's length (never 0: such a payload is written as version 1), then
// the words; version 1 has no length and leaves num_bits = 0.
bool ReadBits(ByteReader& in, bool lengths, std::vector<uint64_t>* words,
              uint32_t* num_bits) {
  if (lengths && (!ReadUint32(in, num_bits) || *num_bits == 0)) return false;
  return ReadWords(in, words);
}

// The report's num_bits, or 0 when it has no bits or is a legacy report.
uint32_t NumBits(const FrequencyReport& report) {
  if (const auto* bits = std::get_if<BitVectorReport>(&report)) {
    return bits->num_bits;
  }
  if (const auto* sketch = std::get_if<SketchReport>(&report)) {
    return sketch->num_bits;
  }
  return 0;
}

uint32_t NumBits(const ReportPayload& payload) {
  if (const auto* workload = std::get_if<WorkloadReport>(&payload)) {
    return NumBits(workload->inner);
  }
  const auto* frequency = std::get_if<FrequencyReport>(&payload);
  return frequency == nullptr ? 0 : NumBits(*frequency);
}

// Only the inner reports strategies output (strategy.h).
bool IsWorkloadInner(const FrequencyReport& report) {
  return std::holds_alternative<ItemReport>(report) ||
         std::holds_alternative<BitVectorReport>(report) ||
         std::holds_alternative<HashedReport>(report);
}

bool ReadFrequency(uint64_t tag, bool lengths, ByteReader& in,
                   ReportPayload* payload) {
  switch (tag) {
    case kItem: {
      ItemReport r;
      if (!ReadUint32(in, &r.item)) return false;
      *payload = FrequencyReport(r);
      return true;
    }
    case kBitVector: {
      BitVectorReport r;
      if (!ReadBits(in, lengths, &r.words, &r.num_bits)) return false;
      *payload = FrequencyReport(std::move(r));
      return true;
    }
    case kHashed: {
      HashedReport r;
      if (!in.Fixed64(&r.seed) || !ReadUint32(in, &r.bucket)) return false;
      *payload = FrequencyReport(r);
      return true;
    }
    case kSubset: {
      SubsetReport r;
      uint64_t count = 0;
      if (!in.Count(&count, 1)) return false;
      r.items.resize(count);
      for (uint32_t& item : r.items) {
        if (!ReadUint32(in, &item)) return false;
      }
      *payload = FrequencyReport(std::move(r));
      return true;
    }
    case kSketch: {
      SketchReport r;
      if (!ReadUint32(in, &r.row) || !ReadUint32(in, &r.column) ||
          !ReadBits(in, lengths, &r.bits, &r.num_bits)) {
        return false;
      }
      *payload = FrequencyReport(std::move(r));
      return true;
    }
  }
  return false;
}

// ---- Plans ----

constexpr char kPlanVersion1 = 1;
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
  if (with_comparison && (!in.Bytes(&best_fixed, kMaxExplanation) ||
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

absl::StatusOr<ReportPayload> DecodeLegacyPayload(std::string_view bytes) {
  if (bytes.empty() || (bytes.front() != kVersionWithoutLengths &&
                        bytes.front() != kVersionWithLengths)) {
    return absl::InvalidArgumentError("stored payload has an unknown version");
  }
  const bool lengths = bytes.front() == kVersionWithLengths;
  ByteReader in(bytes.substr(1));
  uint64_t tag = 0;
  ReportPayload payload;
  bool ok = in.Varint(&tag);
  if (ok && tag == kScalar) {
    ScalarReport r;
    ok = in.SignedVarint(&r.level);
    payload = r;
  } else if (ok && tag == kWorkload) {
    WorkloadReport r;
    uint64_t inner_tag = 0;
    ReportPayload inner;
    ok = ReadUint32(in, &r.group) && in.Varint(&inner_tag) &&
         ReadFrequency(inner_tag, lengths, in, &inner) &&
         IsWorkloadInner(std::get<FrequencyReport>(inner));
    if (ok) {
      r.inner = std::get<FrequencyReport>(std::move(inner));
      payload = std::move(r);
    }
  } else if (ok) {
    ok = ReadFrequency(tag, lengths, in, &payload);
  }
  // Version 2 without a length would have been written as version 1.
  if (!ok || !in.AtEnd() || (lengths && NumBits(payload) == 0)) {
    return absl::InvalidArgumentError("stored payload is malformed");
  }
  return payload;
}

absl::StatusOr<PlanDecisions> DecodeLegacyPlan(std::string_view bytes) {
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

std::optional<std::string> UpgradeLegacyPayload(std::string_view bytes) {
  absl::StatusOr<ReportPayload> payload = DecodeLegacyPayload(bytes);
  if (!payload.ok()) return std::nullopt;
  return EncodePayload(*payload);
}

std::optional<std::string> UpgradeLegacyPlan(std::string_view bytes) {
  absl::StatusOr<PlanDecisions> plan = DecodeLegacyPlan(bytes);
  if (!plan.ok()) return std::nullopt;
  return EncodePlan(*plan);
}

}  // namespace ldp
