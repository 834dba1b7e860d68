// Payload encoding: a version byte, the alternative's tag, then its fields
// as varints (items, rows, levels) or fixed 64-bit words (bit vectors,
// seeds). A workload report is its tag, its group, then its inner frequency
// report encoded as above (tag and fields).
#include "server/payload_codec.h"

#include <type_traits>

#include "server/byte_io.h"

namespace ldp {
namespace {

constexpr char kVersion = 1;
enum Tag : uint64_t {
  kItem = 0,
  kBitVector = 1,
  kHashed = 2,
  kSubset = 3,
  kSketch = 4,
  kScalar = 5,
  kWorkload = 6,
};

void WriteWords(const std::vector<uint64_t>& words, ByteWriter& out) {
  out.Varint(words.size());
  for (uint64_t word : words) out.Fixed64(word);
}

bool ReadWords(ByteReader& in, std::vector<uint64_t>* words) {
  uint64_t count = 0;
  if (!in.Count(&count, 8)) return false;
  words->resize(count);
  for (uint64_t& word : *words) {
    if (!in.Fixed64(&word)) return false;
  }
  return true;
}

bool ReadUint32(ByteReader& in, uint32_t* value) {
  uint64_t wide = 0;
  if (!in.Varint(&wide) || wide > UINT32_MAX) return false;
  *value = static_cast<uint32_t>(wide);
  return true;
}

void WriteFrequency(const FrequencyReport& report, ByteWriter& out) {
  std::visit(
      [&out](const auto& r) {
        using T = std::decay_t<decltype(r)>;
        if constexpr (std::is_same_v<T, ItemReport>) {
          out.Varint(kItem);
          out.Varint(r.item);
        } else if constexpr (std::is_same_v<T, BitVectorReport>) {
          out.Varint(kBitVector);
          WriteWords(r.words, out);
        } else if constexpr (std::is_same_v<T, HashedReport>) {
          out.Varint(kHashed);
          out.Fixed64(r.seed);
          out.Varint(r.bucket);
        } else if constexpr (std::is_same_v<T, SubsetReport>) {
          out.Varint(kSubset);
          out.Varint(r.items.size());
          for (uint32_t item : r.items) out.Varint(item);
        } else {
          out.Varint(kSketch);
          out.Varint(r.row);
          out.Varint(r.column);
          WriteWords(r.bits, out);
        }
      },
      report);
}

// Only the inner reports strategies output (strategy.h).
bool IsWorkloadInner(const FrequencyReport& report) {
  return std::holds_alternative<ItemReport>(report) ||
         std::holds_alternative<BitVectorReport>(report) ||
         std::holds_alternative<HashedReport>(report);
}

bool ReadFrequency(uint64_t tag, ByteReader& in, ReportPayload* payload) {
  switch (tag) {
    case kItem: {
      ItemReport r;
      if (!ReadUint32(in, &r.item)) return false;
      *payload = FrequencyReport(r);
      return true;
    }
    case kBitVector: {
      BitVectorReport r;
      if (!ReadWords(in, &r.words)) return false;
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
          !ReadWords(in, &r.bits)) {
        return false;
      }
      *payload = FrequencyReport(std::move(r));
      return true;
    }
  }
  return false;
}

}  // namespace

std::string EncodePayload(const ReportPayload& payload) {
  std::string bytes;
  bytes.push_back(kVersion);
  ByteWriter out(&bytes);
  if (const auto* scalar = std::get_if<ScalarReport>(&payload)) {
    out.Varint(kScalar);
    out.SignedVarint(scalar->level);
  } else if (const auto* workload = std::get_if<WorkloadReport>(&payload)) {
    out.Varint(kWorkload);
    out.Varint(workload->group);
    WriteFrequency(workload->inner, out);
  } else {
    WriteFrequency(std::get<FrequencyReport>(payload), out);
  }
  return bytes;
}

absl::StatusOr<ReportPayload> DecodePayload(std::string_view bytes) {
  if (bytes.empty() || bytes.front() != kVersion) {
    return absl::InvalidArgumentError("stored payload has an unknown version");
  }
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
         ReadFrequency(inner_tag, in, &inner) &&
         IsWorkloadInner(std::get<FrequencyReport>(inner));
    if (ok) {
      r.inner = std::get<FrequencyReport>(std::move(inner));
      payload = std::move(r);
    }
  } else if (ok) {
    ok = ReadFrequency(tag, in, &payload);
  }
  if (!ok || !in.AtEnd()) {
    return absl::InvalidArgumentError("stored payload is malformed");
  }
  return payload;
}

}  // namespace ldp
