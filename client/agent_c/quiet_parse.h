// Reading the app's and the server's bytes without protobuf printing.
//
// Why: a library inside an app must report only through its statuses, but
// protobuf 3.21 writes "[libprotobuf ERROR ...] String field '...' contains
// invalid UTF-8 data" to the process's stderr whenever a proto3 `string`
// field of the bytes it parses is not UTF-8 (the one thing its parser logs
// on malformed input; the other failures are silent), and it reads such a
// string even when its length runs past the enclosing message, before it
// fails. Installing a global protobuf log handler would silence the host
// app's own protobuf logging too, so instead every message the C library
// parses from outside bytes is first walked here, by its descriptor, and
// refused as InvalidArgument unless it is well-formed wire format whose
// string fields are all UTF-8: protobuf then never meets a string it would
// print about. (Serialized messages inside `bytes` fields, the shuffle
// ticket and the saved sealed reports, have no string fields at all:
// ShuffleTicket, ShuffleSubmission, SignedShuffleTicket, SealedPayload.)
#ifndef LDP_CLIENT_AGENT_C_QUIET_PARSE_H_
#define LDP_CLIENT_AGENT_C_QUIET_PARSE_H_

#include <climits>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/descriptor.h"

namespace ldp {

// Whether `text` is UTF-8 as RFC 3629 defines it (no overlong forms, no
// surrogates, nothing past U+10FFFF): at least as strict as protobuf.
bool IsUtf8(std::string_view text);

// InvalidArgument unless `bytes`, read as a `type` message, are wire
// format with every length inside its enclosing message and every string
// field (at any depth) UTF-8; the message names the first string field
// that is not. Deeper nesting than protobuf reads is not judged here
// (protobuf refuses it without printing).
absl::Status CheckWireAndStrings(std::string_view bytes,
                                 const google::protobuf::Descriptor& type);

// `size` bytes from the app as a `Message`, parsed without printing;
// InvalidArgument naming `what` if they do not parse (or are null with a
// size).
template <typename Message>
absl::StatusOr<Message> ParseAppBytes(const uint8_t* bytes, size_t size,
                                      const char* what) {
  const auto refuse = [what](absl::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat("the bytes are not a serialized ", what, why));
  };
  if (bytes == nullptr && size > 0) return refuse(" (null with a size)");
  if (size > INT_MAX) return refuse(" (over 2 GiB)");
  const std::string_view view(reinterpret_cast<const char*>(bytes), size);
  Message message;
  if (absl::Status wire = CheckWireAndStrings(view, *Message::descriptor());
      !wire.ok()) {
    return refuse(absl::StrCat(" (", wire.message(), ")"));
  }
  if (!message.ParseFromArray(bytes, static_cast<int>(size))) return refuse("");
  return message;
}

// A GetTasksResponse's bytes without the tasks CheckWireAndStrings refuses
// (each counted in `dropped`: the caller refuses them), so that
// DecodeTaskBatch reads the others one by one as before, silently.
// InvalidArgument if the response's own fields are refused.
absl::StatusOr<std::string> WithoutUnparsableTasks(std::string_view poll,
                                                   int& dropped);

}  // namespace ldp

#endif  // LDP_CLIENT_AGENT_C_QUIET_PARSE_H_
