// The checksummed state blob; see the header.
#include "client/agent_c/state_blob.h"

#include <string_view>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/crypto/sha256.h"

namespace ldp {
namespace {

constexpr absl::string_view kVersionLine = "ldp-agent-blob 1\n";
constexpr absl::string_view kDigestTag = "sha256 ";
// "sha256 " + 64 hex digits + "\n".
constexpr size_t kDigestLineSize = 7 + 64 + 1;
// How a blob from before the digest starts (agent_state.h's header line,
// any version).
constexpr absl::string_view kBareStatePrefix = "ldp-agent-state ";

absl::Status Damaged(absl::string_view why) {
  return absl::DataLossError(
      absl::StrCat("the agent's saved state is damaged: ", why));
}

}  // namespace

absl::StatusOr<std::string> SealStateBlob(absl::string_view state_text) {
  std::string blob = absl::StrCat(kVersionLine, state_text);
  const absl::StatusOr<Sha256Digest> digest = Sha256Of(blob);
  if (!digest.ok()) return digest.status();
  absl::StrAppend(&blob, kDigestTag, DigestHex(*digest), "\n");
  return blob;
}

absl::StatusOr<absl::string_view> OpenStateBlob(absl::string_view blob) {
  if (absl::StartsWith(blob, kBareStatePrefix)) return blob;  // pre-digest
  if (blob.size() < kVersionLine.size() + kDigestLineSize) {
    return Damaged("too short to be a saved state");
  }
  const absl::string_view body = blob.substr(0, blob.size() - kDigestLineSize);
  const absl::string_view line = blob.substr(body.size());
  const absl::StatusOr<Sha256Digest> digest =
      Sha256Of(std::string_view(body.data(), body.size()));
  if (!digest.ok()) return digest.status();
  // Exact text: an uppercase digit is damage too, not the same digest.
  if (line != absl::StrCat(kDigestTag, DigestHex(*digest), "\n")) {
    return Damaged("its SHA-256 does not match (changed or cut short)");
  }
  if (!absl::StartsWith(body, kVersionLine)) {
    return absl::DataLossError(
        "the agent's saved state is in a format this library does not read "
        "(written by a newer libldp_agent?)");
  }
  return body.substr(kVersionLine.size());
}

}  // namespace ldp
