// Payload encoding: a version byte, the alternative's tag, then its fields
// as varints (items, rows, levels) or fixed 64-bit words (bit vectors,
// seeds). A workload report is its tag, its group, then its inner frequency
// report encoded as above (tag and fields).
//
// Versions: 2 adds a bit vector's or sketch's num_bits (a varint, never 0)
// before its words; 1 has no lengths. Version 2 is written exactly when the
// payload has a length to keep, so version-1 rows (read back with num_bits
// = 0, the legacy marker of frequency_report.h) re-encode to their own
// bytes: the encoding stays canonical, and a payload without bits keeps the
// bytes it had before lengths were stored (an identical retry across the
// upgrade still compares equal).
#include "server/payload_codec.h"

#include <type_traits>

#include "server/byte_io.h"

namespace ldp {
namespace {

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

// The length (version 2 only), then the words.
void WriteBits(const std::vector<uint64_t>& words, uint32_t num_bits,
               bool lengths, ByteWriter& out) {
  if (lengths) out.Varint(num_bits);
  WriteWords(words, out);
}

void WriteFrequency(const FrequencyReport& report, bool lengths,
                    ByteWriter& out) {
  std::visit(
      [&out, lengths](const auto& r) {
        using T = std::decay_t<decltype(r)>;
        if constexpr (std::is_same_v<T, ItemReport>) {
          out.Varint(kItem);
          out.Varint(r.item);
        } else if constexpr (std::is_same_v<T, BitVectorReport>) {
          out.Varint(kBitVector);
          WriteBits(r.words, r.num_bits, lengths, out);
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
          WriteBits(r.bits, r.num_bits, lengths, out);
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

}  // namespace

std::string EncodePayload(const ReportPayload& payload) {
  const bool lengths = NumBits(payload) != 0;
  std::string bytes;
  bytes.push_back(lengths ? kVersionWithLengths : kVersionWithoutLengths);
  ByteWriter out(&bytes);
  if (const auto* scalar = std::get_if<ScalarReport>(&payload)) {
    out.Varint(kScalar);
    out.SignedVarint(scalar->level);
  } else if (const auto* workload = std::get_if<WorkloadReport>(&payload)) {
    out.Varint(kWorkload);
    out.Varint(workload->group);
    WriteFrequency(workload->inner, lengths, out);
  } else {
    WriteFrequency(std::get<FrequencyReport>(payload), lengths, out);
  }
  return bytes;
}

absl::StatusOr<ReportPayload> DecodePayload(std::string_view bytes) {
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

}  // namespace ldp
