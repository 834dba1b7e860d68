// Varint and fixed-width encodings; see the header.
#include "server/byte_io.h"

#include <bit>
#include <cstring>

namespace ldp {

void ByteWriter::Varint(uint64_t value) {
  while (value >= 0x80) {
    out_->push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out_->push_back(static_cast<char>(value));
}

void ByteWriter::SignedVarint(int64_t value) {
  const uint64_t bits = static_cast<uint64_t>(value);
  Varint((bits << 1) ^ (value < 0 ? ~uint64_t{0} : 0));
}

void ByteWriter::Fixed64(uint64_t value) {
  for (int i = 0; i < 8; ++i) {
    out_->push_back(static_cast<char>((value >> (8 * i)) & 0xff));
  }
}

void ByteWriter::Double(double value) {
  Fixed64(std::bit_cast<uint64_t>(value));
}

void ByteWriter::Bytes(std::string_view bytes) {
  Varint(bytes.size());
  out_->append(bytes);
}

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

}  // namespace ldp
