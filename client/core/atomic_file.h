// Durable whole-file writes for the agent's local state.
//
// The agent's budget file is authoritative (DESIGN invariant 4): a crash in
// the middle of an update must leave either the old or the new contents,
// never a torn file that would let the budget silently reset. Hence the
// classic sequence: write a temporary file, fsync it, rename it over the
// target, fsync the directory so the rename itself is durable.
#ifndef LDP_CLIENT_CORE_ATOMIC_FILE_H_
#define LDP_CLIENT_CORE_ATOMIC_FILE_H_

#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace ldp {

// Replaces `path` with `contents` atomically and durably; the file gets mode
// `mode` (owner-only by default: it may hold a credential). On error the old
// file is untouched.
absl::Status WriteFileAtomically(const std::string& path,
                                 absl::string_view contents, int mode = 0600);

// The whole file, or nullopt if it does not exist; other failures as
// ReadFileText (common/base/file_text.h) reports them.
absl::StatusOr<std::optional<std::string>> ReadFileIfExists(
    const std::string& path);

}  // namespace ldp

#endif  // LDP_CLIENT_CORE_ATOMIC_FILE_H_
