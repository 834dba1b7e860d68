// ldp.v1.BitVector packing checks and conversions; see the header.
#include "proto/convert/bit_vector_convert.h"

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace ldp {
namespace {

// The packed bytes, checked: right count, no padding bits. (Bookworm's
// Abseil has its own string_view, which StrCat needs.)
absl::Status CheckPacking(const v1::BitVector& proto,
                          std::string_view what_std) {
  const absl::string_view what(what_std.data(), what_std.size());
  const uint64_t bit_length = proto.bit_length();
  if (bit_length > kMaxWireBitLength) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": bit_length ", bit_length, " exceeds the limit ",
                     kMaxWireBitLength));
  }
  const uint64_t want_bytes = (bit_length + 7) / 8;
  if (proto.packed().size() != want_bytes) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": bit_length ", bit_length, " needs exactly ",
                     want_bytes, " packed bytes, got ", proto.packed().size()));
  }
  if (bit_length % 8 != 0) {
    const auto last = static_cast<uint8_t>(proto.packed().back());
    if ((last >> (bit_length % 8)) != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          what, ": bits past bit_length ", bit_length, " must be zero"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<bool>> BitsFromProto(const v1::BitVector& proto,
                                                std::string_view what) {
  if (absl::Status s = CheckPacking(proto, what); !s.ok()) return s;
  std::vector<bool> bits(proto.bit_length());
  const std::string& packed = proto.packed();
  for (size_t i = 0; i < bits.size(); ++i) {
    bits[i] = ((static_cast<uint8_t>(packed[i / 8]) >> (i % 8)) & 1) != 0;
  }
  return bits;
}

void BitsToProto(const std::vector<bool>& bits, v1::BitVector* proto) {
  std::string packed((bits.size() + 7) / 8, '\0');
  for (size_t i = 0; i < bits.size(); ++i) {
    if (bits[i])
      packed[i / 8] = static_cast<char>(packed[i / 8] | (1 << (i % 8)));
  }
  proto->set_packed(std::move(packed));
  proto->set_bit_length(static_cast<uint32_t>(bits.size()));
}

absl::StatusOr<std::vector<uint64_t>> WordsFromProto(const v1::BitVector& proto,
                                                     std::string_view what) {
  if (absl::Status s = CheckPacking(proto, what); !s.ok()) return s;
  std::vector<uint64_t> words((uint64_t{proto.bit_length()} + 63) / 64, 0);
  const std::string& packed = proto.packed();
  for (size_t i = 0; i < packed.size(); ++i) {
    words[i / 8] |= uint64_t{static_cast<uint8_t>(packed[i])} << (8 * (i % 8));
  }
  return words;
}

void WordsToProto(const std::vector<uint64_t>& words, uint32_t num_bits,
                  v1::BitVector* proto) {
  const uint64_t bit_length =
      num_bits != 0 ? num_bits : uint64_t{words.size()} * 64;
  std::string packed((bit_length + 7) / 8, '\0');
  for (size_t i = 0; i < packed.size() && i / 8 < words.size(); ++i) {
    packed[i] = static_cast<char>((words[i / 8] >> (8 * (i % 8))) & 0xff);
  }
  proto->set_packed(std::move(packed));
  proto->set_bit_length(static_cast<uint32_t>(bit_length));
}

}  // namespace ldp
