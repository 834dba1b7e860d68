// Raw-bytes parsing of ldp.v1 messages; see the header.
#include "proto/convert/wire_message.h"

#include <algorithm>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/queries/query_expression.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/wire_format_lite.h"

namespace ldp {
namespace {

using ::google::protobuf::Descriptor;
using ::google::protobuf::FieldDescriptor;
using ::google::protobuf::internal::WireFormatLite;
using ::google::protobuf::io::CodedInputStream;

CodedInputStream Stream(std::string_view bytes) {
  return CodedInputStream(reinterpret_cast<const uint8_t*>(bytes.data()),
                          static_cast<int>(bytes.size()));
}

bool AtEnd(const CodedInputStream& in, std::string_view bytes) {
  return in.CurrentPosition() == static_cast<int>(bytes.size());
}

absl::Status NotWireFormat(const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat(
      "the bytes are not a serialized ", what, " (not protobuf wire format)"));
}

// The message field a tag opens, or null if the tag is anything else.
const Descriptor* OpensMessage(const Descriptor& type, uint32_t tag) {
  const FieldDescriptor* field =
      type.FindFieldByNumber(WireFormatLite::GetTagFieldNumber(tag));
  if (field == nullptr || field->type() != FieldDescriptor::TYPE_MESSAGE ||
      WireFormatLite::GetTagWireType(tag) !=
          WireFormatLite::WIRETYPE_LENGTH_DELIMITED) {
    return nullptr;
  }
  return field->message_type();
}

}  // namespace

absl::StatusOr<int> WireNestingDepth(std::string_view bytes,
                                     const Descriptor& type, int stop_after) {
  if (bytes.size() > INT32_MAX) return NotWireFormat(type.full_name());
  CodedInputStream in = Stream(bytes);
  in.PushLimit(static_cast<int>(bytes.size()));
  // The enclosing messages' types and limits; the walk is a loop, so a
  // hostile depth costs heap (bounded by the input's size), never stack.
  std::vector<std::pair<const Descriptor*, CodedInputStream::Limit>> open;
  const Descriptor* current = &type;
  int deepest = 1;
  while (deepest <= stop_after) {
    if (in.BytesUntilLimit() == 0) {
      if (open.empty()) break;
      in.PopLimit(open.back().second);
      current = open.back().first;
      open.pop_back();
      continue;
    }
    const uint32_t tag = in.ReadTag();
    if (tag == 0) return NotWireFormat(type.full_name());
    if (const Descriptor* inner = OpensMessage(*current, tag)) {
      int length = 0;
      if (!in.ReadVarintSizeAsInt(&length) || length > in.BytesUntilLimit()) {
        return NotWireFormat(type.full_name());
      }
      open.emplace_back(current, in.PushLimit(length));
      current = inner;
      deepest = std::max(deepest, static_cast<int>(open.size()) + 1);
    } else if (!WireFormatLite::SkipField(&in, tag)) {
      return NotWireFormat(type.full_name());
    }
  }
  return deepest;
}

absl::Status ParseWireMessage(std::string_view bytes,
                              google::protobuf::Message& message) {
  message.Clear();
  if (bytes.size() <= INT32_MAX &&
      message.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return absl::OkStatus();
  }
  message.Clear();
  const Descriptor& type = *message.GetDescriptor();
  const int limit = CodedInputStream::GetDefaultRecursionLimit();
  absl::StatusOr<int> depth = WireNestingDepth(bytes, type, limit + 1);
  if (!depth.ok()) return depth.status();
  if (*depth > limit) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the ", type.full_name(), " nests messages more than ", limit,
        " deep, protobuf's limit; a query expression may be at most ",
        kMaxQueryDepth, " levels deep"));
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "the bytes are not a valid ", type.full_name(),
      " (a field has the wrong wire type, or a string is not UTF-8)"));
}

absl::StatusOr<SplitFields> SplitRepeatedField(std::string_view bytes,
                                               int field_number) {
  if (bytes.size() > INT32_MAX) return NotWireFormat("message");
  SplitFields split;
  CodedInputStream in = Stream(bytes);
  while (!AtEnd(in, bytes)) {
    const int start = in.CurrentPosition();
    const uint32_t tag = in.ReadTag();
    if (tag == 0) return NotWireFormat("message");
    if (WireFormatLite::GetTagFieldNumber(tag) == field_number &&
        WireFormatLite::GetTagWireType(tag) ==
            WireFormatLite::WIRETYPE_LENGTH_DELIMITED) {
      int length = 0;
      if (!in.ReadVarintSizeAsInt(&length)) return NotWireFormat("message");
      const int at = in.CurrentPosition();
      if (!in.Skip(length)) return NotWireFormat("message");
      split.elements.push_back(bytes.substr(at, length));
      continue;
    }
    if (!WireFormatLite::SkipField(&in, tag)) return NotWireFormat("message");
    split.rest.append(bytes.substr(start, in.CurrentPosition() - start));
  }
  return split;
}

std::optional<uint64_t> TopLevelVarint(std::string_view bytes,
                                       int field_number) {
  if (bytes.size() > INT32_MAX) return std::nullopt;
  CodedInputStream in = Stream(bytes);
  while (!AtEnd(in, bytes)) {
    const uint32_t tag = in.ReadTag();
    if (tag == 0) return std::nullopt;
    if (WireFormatLite::GetTagFieldNumber(tag) == field_number &&
        WireFormatLite::GetTagWireType(tag) ==
            WireFormatLite::WIRETYPE_VARINT) {
      uint64_t value = 0;
      if (!in.ReadVarint64(&value)) return std::nullopt;
      return value;
    }
    if (!WireFormatLite::SkipField(&in, tag)) return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace ldp
