// Memory and file-backed agent state stores; see the header.
#include "client/core/agent_state_store.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "client/core/atomic_file.h"
#include "client/core/state_lines.h"
#include "common/base/status_macros.h"

namespace ldp {

absl::StatusOr<AgentState> MemoryAgentStateStore::Load() {
  if (text_.empty()) return AgentState{};
  return ParseAgentState(text_);
}

absl::Status MemoryAgentStateStore::Save(const AgentState& state) {
  text_ = SerializeAgentState(state);
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<FileAgentStateStore>>
FileAgentStateStore::Create(const FileAgentStateStoreOptions& options) {
  struct stat info {};
  if (options.directory.empty() ||
      ::stat(options.directory.c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) {
    return absl::NotFoundError(
        absl::StrCat("agent state directory '", options.directory,
                     "' does not exist; create it (mode 0700) first"));
  }
  const std::string lock_path = absl::StrCat(options.directory, "/lock");
  const int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) {
    return absl::InternalError(
        absl::StrCat("cannot open ", lock_path, ": ", std::strerror(errno)));
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd);
    return absl::FailedPreconditionError(
        absl::StrCat("another agent process is using ", options.directory,
                     "; two agents must never share one budget"));
  }
  return std::unique_ptr<FileAgentStateStore>(new FileAgentStateStore(
      absl::StrCat(options.directory, "/agent_state"), fd));
}

FileAgentStateStore::~FileAgentStateStore() { ::close(lock_fd_); }

absl::StatusOr<AgentState> FileAgentStateStore::Load() {
  ASSIGN_OR_RETURN(const std::optional<std::string> text,
                   ReadFileIfExists(path_));
  if (!text.has_value()) return AgentState{};
  auto state = ParseAgentState(*text);
  if (!state.ok()) {
    return absl::DataLossError(absl::StrCat(
        path_, ": ", state.status().message(),
        ". Refusing to start rather than forget spent budget; restore the "
        "file or remove it only if this device never reported"));
  }
  return state;
}

absl::Status FileAgentStateStore::Save(const AgentState& state) {
  return WriteFileAtomically(path_, SerializeAgentState(state));
}

}  // namespace ldp
