// What the C library's two ack calls (ldp_agent_record_upload for the
// server's reports, ldp_agent_record_shuffled_upload for sealed ones)
// share: reading the app's bytes as a message, and counting for the app
// what the acks settled.
//
// Why shared: both calls must refuse bad bytes and count a transient
// failure the same way, or an app would see the two paths disagree.
#ifndef LDP_CLIENT_AGENT_C_UPLOAD_ACKS_H_
#define LDP_CLIENT_AGENT_C_UPLOAD_ACKS_H_

#include <cstddef>
#include <cstdint>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"

namespace ldp {

// `size` bytes from the app as a `Message`; InvalidArgument naming `what`
// if they do not parse (or are null with a size).
template <typename Message>
absl::StatusOr<Message> ParseAppBytes(const uint8_t* bytes, size_t size,
                                      const char* what) {
  Message message;
  if ((bytes == nullptr && size > 0) ||
      !message.ParseFromArray(bytes, static_cast<int>(size))) {
    return absl::InvalidArgumentError(
        absl::StrCat("the bytes are not a serialized ", what));
  }
  return message;
}

// Counts the verdicts of (task, ack) pairs for the app: OK as accepted, a
// final refusal as rejected, a transient failure (the report stays
// pending) as neither. Either pointer may be null.
void CountSettled(absl::Span<const std::pair<uint64_t, absl::Status>> settled,
                  int* accepted, int* rejected);

}  // namespace ldp

#endif  // LDP_CLIENT_AGENT_C_UPLOAD_ACKS_H_
