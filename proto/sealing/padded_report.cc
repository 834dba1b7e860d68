// Padding a report to a length its value cannot change (types.proto, "The
// shuffle model", step 2): a shuffler and anyone watching the network see
// only ciphertext lengths, so the length must depend on the question alone.
//
// The max-width size, by protobuf reflection over every field of each
// message present, set or not:
//  - singular integer, enum and bool fields outside a oneof: always
//    counted (proto3 omits a zero, so counting only set ones would tell a
//    zero apart), as tag + 10; fixed32/float as tag + 4, fixed64/double as
//    tag + 8;
//  - singular strings and bytes, if non-empty (present): tag + 5 + their
//    length; a report's byte fields have lengths the question fixes
//    (report_id is 16 bytes, BitVector.packed follows bit_length);
//  - singular messages, if present: tag + 5 + their max-width size;
//  - a oneof: only its set member, by the rules above (a scalar member at
//    max width);
//  - repeated fields, by their actual elements: packed scalars as tag + 5 +
//    10 (4, 8 for fixed) per element, strings and messages per element as
//    above;
//  - unknown fields (from a newer sender) at their serialized size, so the
//    padding never truncates a report this version cannot interpret.
// Tag bytes are the varint size of (field number << 3 | wire type). Every
// term bounds its field's real encoding, so R always fits.
#include "proto/sealing/padded_report.h"

#include <climits>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/unknown_field_set.h"
#include "proto/convert/deterministic_bytes.h"
#include "proto/sealing/sealed_report.h"

namespace ldp {
namespace sealing_internal {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::OneofDescriptor;
using google::protobuf::Reflection;

constexpr size_t kMaxVarintBytes = 10;
constexpr size_t kMaxLengthPrefixBytes = 5;

size_t TagBytes(const FieldDescriptor& field) {
  // The wire type fills the low three bits, so it never changes the size.
  return google::protobuf::io::CodedOutputStream::VarintSize32(
      static_cast<uint32_t>(field.number()) << 3);
}

// One scalar value at its widest encoding.
size_t ScalarWidth(const FieldDescriptor& field) {
  switch (field.type()) {
    case FieldDescriptor::TYPE_DOUBLE:
    case FieldDescriptor::TYPE_FIXED64:
    case FieldDescriptor::TYPE_SFIXED64:
      return 8;
    case FieldDescriptor::TYPE_FLOAT:
    case FieldDescriptor::TYPE_FIXED32:
    case FieldDescriptor::TYPE_SFIXED32:
      return 4;
    default:
      return kMaxVarintBytes;
  }
}

size_t RepeatedMaxWidth(const Message& message, const FieldDescriptor& field) {
  const Reflection& reflection = *message.GetReflection();
  const int count = reflection.FieldSize(message, &field);
  const size_t tag = TagBytes(field);
  size_t size = 0;
  std::string scratch;
  for (int i = 0; i < count; ++i) {
    if (field.cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      size += tag + kMaxLengthPrefixBytes +
              MaxWidthSize(reflection.GetRepeatedMessage(message, &field, i));
    } else if (field.cpp_type() == FieldDescriptor::CPPTYPE_STRING) {
      size +=
          tag + kMaxLengthPrefixBytes +
          reflection.GetRepeatedStringReference(message, &field, i, &scratch)
              .size();
    } else {
      size += (field.is_packed() ? 0 : tag) + ScalarWidth(field);
    }
  }
  if (count > 0 && field.is_packed()) size += tag + kMaxLengthPrefixBytes;
  return size;
}

size_t SingularMaxWidth(const Message& message, const FieldDescriptor& field) {
  const Reflection& reflection = *message.GetReflection();
  const OneofDescriptor* oneof = field.real_containing_oneof();
  if (oneof != nullptr &&
      reflection.GetOneofFieldDescriptor(message, oneof) != &field) {
    return 0;
  }
  const size_t tag = TagBytes(field);
  switch (field.cpp_type()) {
    case FieldDescriptor::CPPTYPE_MESSAGE:
      if (!reflection.HasField(message, &field)) return 0;
      return tag + kMaxLengthPrefixBytes +
             MaxWidthSize(reflection.GetMessage(message, &field));
    case FieldDescriptor::CPPTYPE_STRING: {
      if (!reflection.HasField(message, &field)) return 0;
      std::string scratch;
      return tag + kMaxLengthPrefixBytes +
             reflection.GetStringReference(message, &field, &scratch).size();
    }
    default:
      return tag + ScalarWidth(field);
  }
}

}  // namespace

size_t MaxWidthSize(const Message& message) {
  const google::protobuf::Descriptor& descriptor = *message.GetDescriptor();
  size_t size = 0;
  for (int i = 0; i < descriptor.field_count(); ++i) {
    const FieldDescriptor& field = *descriptor.field(i);
    size += field.is_repeated() ? RepeatedMaxWidth(message, field)
                                : SingularMaxWidth(message, field);
  }
  const google::protobuf::UnknownFieldSet& unknown =
      message.GetReflection()->GetUnknownFields(message);
  if (!unknown.empty()) {
    std::string unknown_bytes;
    unknown.SerializeToString(&unknown_bytes);
    size += unknown_bytes.size();
  }
  return size;
}

}  // namespace sealing_internal

namespace {

constexpr size_t kLengthPrefixBytes = 4;
constexpr size_t kPaddingBlockBytes = 64;

// What PadReport's output for `report` measures.
size_t PaddedLength(const v1::Report& report) {
  const size_t width = sealing_internal::MaxWidthSize(report);
  return kLengthPrefixBytes + (width + kPaddingBlockBytes - 1) /
                                  kPaddingBlockBytes * kPaddingBlockBytes;
}

uint32_t ReadBigEndian32(std::string_view bytes) {
  uint32_t value = 0;
  for (size_t i = 0; i < kLengthPrefixBytes; ++i) {
    value = (value << 8) | static_cast<uint8_t>(bytes[i]);
  }
  return value;
}

}  // namespace

std::string PadReport(const v1::Report& report) {
  const std::string serialized = DeterministicBytes(report);
  std::string padded;
  padded.reserve(PaddedLength(report));
  for (int shift = 24; shift >= 0; shift -= 8) {
    padded.push_back(static_cast<char>((serialized.size() >> shift) & 0xff));
  }
  padded += serialized;
  padded.resize(PaddedLength(report), '\0');
  return padded;
}

absl::StatusOr<v1::Report> UnpadReport(std::string_view padded) {
  if (padded.size() < kLengthPrefixBytes || padded.size() > INT_MAX) {
    return absl::InvalidArgumentError(absl::StrCat(
        "padded report has ", padded.size(),
        " bytes; it must hold a 4-byte length prefix and at most 2^31 - 1"));
  }
  const size_t length = ReadBigEndian32(padded);
  const std::string_view body = padded.substr(kLengthPrefixBytes);
  if (length > body.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("padded report's length prefix says ", length,
                     " bytes but only ", body.size(), " follow it"));
  }
  if (body.substr(length).find_first_not_of('\0') != std::string_view::npos) {
    return absl::InvalidArgumentError(
        "padded report's padding is not all zero bytes");
  }
  v1::Report report;
  if (!report.ParseFromArray(body.data(), static_cast<int>(length))) {
    return absl::InvalidArgumentError(
        "padded report's plaintext does not parse as an ldp.v1.Report");
  }
  // Two encodings of one report would be two paddings of it; only the
  // deterministic one PadReport writes is accepted.
  if (DeterministicBytes(report) != body.substr(0, length)) {
    return absl::InvalidArgumentError(
        "padded report's plaintext is not the deterministic encoding of "
        "its report (fields out of order, repeated, or set to defaults)");
  }
  if (padded.size() != PaddedLength(report)) {
    return absl::InvalidArgumentError(
        absl::StrCat("padded report has ", padded.size(),
                     " bytes; its report pads to ", PaddedLength(report),
                     " (a length that depends on the value leaks it)"));
  }
  return report;
}

}  // namespace ldp
