// Bytes read without protobuf printing; see the header.
#include "client/agent_c/quiet_parse.h"

#include <utility>
#include <vector>

#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/wire_format_lite.h"
#include "proto/convert/wire_message.h"
#include "proto/ldp/v1/agent_service.pb.h"

namespace ldp {
namespace {

using ::google::protobuf::Descriptor;
using ::google::protobuf::FieldDescriptor;
using ::google::protobuf::internal::WireFormatLite;
using ::google::protobuf::io::CodedInputStream;

// A multi-byte sequence's lead byte: how many continuation bytes follow and
// the range the first of them must fall in (RFC 3629, section 4). False
// for a byte that cannot lead.
bool Lead(unsigned char c, int& extra, unsigned char& lo, unsigned char& hi) {
  lo = 0x80;
  hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) {
    extra = 1;
  } else if (c >= 0xE0 && c <= 0xEF) {
    extra = 2;
    if (c == 0xE0) lo = 0xA0;  // no overlong forms
    if (c == 0xED) hi = 0x9F;  // no surrogates
  } else if (c >= 0xF0 && c <= 0xF4) {
    extra = 3;
    if (c == 0xF0) lo = 0x90;  // no overlong forms
    if (c == 0xF4) hi = 0x8F;  // nothing past U+10FFFF
  } else {
    return false;
  }
  return true;
}

// The string field a tag opens with its length-delimited value, or null.
const FieldDescriptor* LengthDelimited(const Descriptor& type, uint32_t tag) {
  if (WireFormatLite::GetTagWireType(tag) !=
      WireFormatLite::WIRETYPE_LENGTH_DELIMITED) {
    return nullptr;
  }
  const FieldDescriptor* field =
      type.FindFieldByNumber(WireFormatLite::GetTagFieldNumber(tag));
  if (field == nullptr || (field->type() != FieldDescriptor::TYPE_STRING &&
                           field->type() != FieldDescriptor::TYPE_MESSAGE)) {
    return nullptr;
  }
  return field;
}

absl::Status NotWire() {
  return absl::InvalidArgumentError("not protobuf wire format");
}

// The enclosing messages of the one being read, and their limits.
using OpenMessages =
    std::vector<std::pair<const Descriptor*, CodedInputStream::Limit>>;

// Reads the length-delimited `field` whose tag `in` just read: enters its
// message (the current one joins `open`) or judges its string. A length
// past the enclosing message is refused: protobuf would still read, and
// judge, such a string before failing.
absl::Status EnterOrCheck(CodedInputStream& in, const FieldDescriptor& field,
                          OpenMessages& open, const Descriptor*& current) {
  int length = 0;
  if (!in.ReadVarintSizeAsInt(&length) || length > in.BytesUntilLimit()) {
    return NotWire();
  }
  if (field.type() == FieldDescriptor::TYPE_MESSAGE) {
    open.emplace_back(current, in.PushLimit(length));
    current = field.message_type();
    return absl::OkStatus();
  }
  std::string value;
  if (!in.ReadString(&value, length) || !IsUtf8(value)) {
    return absl::InvalidArgumentError(
        absl::StrCat("string field ", field.full_name(), " is not UTF-8"));
  }
  return absl::OkStatus();
}

void AppendVarint(uint64_t value, std::string& out) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>((value & 0x7F) | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

}  // namespace

bool IsUtf8(std::string_view text) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  size_t i = 0;
  while (i < n) {
    if (s[i] < 0x80) {
      ++i;
      continue;
    }
    int extra = 0;
    unsigned char lo = 0, hi = 0;
    if (!Lead(s[i], extra, lo, hi) || n - i <= static_cast<size_t>(extra)) {
      return false;
    }
    if (s[i + 1] < lo || s[i + 1] > hi) return false;
    for (int k = 2; k <= extra; ++k) {
      if (s[i + k] < 0x80 || s[i + k] > 0xBF) return false;
    }
    i += static_cast<size_t>(extra) + 1;
  }
  return true;
}

absl::Status CheckWireAndStrings(std::string_view bytes,
                                 const Descriptor& type) {
  if (bytes.size() > INT_MAX) return NotWire();
  CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()),
                      static_cast<int>(bytes.size()));
  in.PushLimit(static_cast<int>(bytes.size()));
  // The enclosing messages and their limits: a loop, so that a hostile
  // depth costs heap (bounded by the input's size), never stack.
  OpenMessages open;
  const Descriptor* current = &type;
  for (;;) {
    if (in.BytesUntilLimit() == 0) {
      if (open.empty()) return absl::OkStatus();
      in.PopLimit(open.back().second);
      current = open.back().first;
      open.pop_back();
      continue;
    }
    const uint32_t tag = in.ReadTag();
    if (tag == 0) return NotWire();
    const FieldDescriptor* field = LengthDelimited(*current, tag);
    if (field == nullptr) {
      if (!WireFormatLite::SkipField(&in, tag)) return NotWire();
    } else if (absl::Status s = EnterOrCheck(in, *field, open, current);
               !s.ok()) {
      return s;
    }
  }
}

absl::StatusOr<std::string> WithoutUnparsableTasks(std::string_view poll,
                                                   int& dropped) {
  dropped = 0;
  absl::StatusOr<SplitFields> split =
      SplitRepeatedField(poll, v1::GetTasksResponse::kTasksFieldNumber);
  // Not wire format: DecodeTaskBatch refuses it the same way, silently.
  if (!split.ok()) return std::string(poll);
  if (absl::Status s =
          CheckWireAndStrings(split->rest, *v1::GetTasksResponse::descriptor());
      !s.ok()) {
    return s;
  }
  std::string kept = std::move(split->rest);
  for (std::string_view task : split->elements) {
    if (!CheckWireAndStrings(task, *v1::Task::descriptor()).ok()) {
      ++dropped;
      continue;
    }
    kept.push_back(static_cast<char>(
        WireFormatLite::MakeTag(v1::GetTasksResponse::kTasksFieldNumber,
                                WireFormatLite::WIRETYPE_LENGTH_DELIMITED)));
    AppendVarint(task.size(), kept);
    kept.append(task);
  }
  return kept;
}

}  // namespace ldp
