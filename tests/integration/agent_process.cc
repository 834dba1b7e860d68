// ldp-agent as a child process; see the header.
#include "tests/integration/agent_process.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <system_error>
#include <utility>

#include "absl/strings/str_cat.h"

#ifndef LDP_AGENT_BINARY
#error "LDP_AGENT_BINARY must name the ldp-agent executable"
#endif

namespace ldp::testing {
namespace {

std::string MakeDirectory() {
  for (const char* root : {"/dev/shm", "/tmp"}) {
    std::string pattern = absl::StrCat(root, "/ldp-agent-it-XXXXXX");
    if (mkdtemp(pattern.data()) != nullptr) return pattern;
  }
  return "";
}

int DecodeWaitStatus(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

}  // namespace

AgentProcess::AgentProcess()
    : directory_(MakeDirectory()), state_dir_(directory_ + "/state") {}

AgentProcess::~AgentProcess() {
  process_.Kill();  // before its directory goes
  if (!directory_.empty()) {
    std::error_code ignored;
    std::filesystem::remove_all(directory_, ignored);
  }
}

absl::Status AgentProcess::Start(const std::string& server,
                                 const std::string& enrollment_token,
                                 const std::string& record_json,
                                 const std::vector<std::string>& flags) {
  if (directory_.empty()) return absl::InternalError("no temporary directory");
  if (process_.Running()) {
    return absl::FailedPreconditionError("agent already running");
  }
  const std::string record = directory_ + "/record.json";
  {
    std::ofstream out(record, std::ios::binary | std::ios::trunc);
    out << record_json;
    if (!out) return absl::InternalError(absl::StrCat("cannot write ", record));
  }
  std::vector<std::string> args = {
      LDP_AGENT_BINARY, absl::StrCat("--server=", server),
      absl::StrCat("--record=", record),
      absl::StrCat("--state_dir=", state_dir_),
      absl::StrCat("--enrollment_token=", enrollment_token)};
  args.insert(args.end(), flags.begin(), flags.end());
  return process_.Spawn(std::move(args), directory_ + "/agent.log");
}

bool AgentProcess::Running() { return process_.Running(); }

std::optional<int> AgentProcess::exit_status() const {
  const std::optional<int> status = process_.wait_status();
  if (!status.has_value()) return std::nullopt;
  return DecodeWaitStatus(*status);
}

std::optional<int> AgentProcess::Wait(absl::Duration timeout) {
  if (!process_.Wait(timeout).has_value()) return std::nullopt;
  return exit_status();
}

int AgentProcess::Stop(absl::Duration timeout) {
  process_.Signal(SIGTERM);  // the agent finishes its cycle and exits
  if (!process_.Wait(timeout).has_value()) process_.Kill();
  return exit_status().value_or(-1);
}

std::string AgentProcess::ReadStateFile() const {
  return ReadFileOrEmpty(state_file());
}

int64_t AgentProcess::StateFileBytes() const {
  struct stat info;
  if (stat(state_file().c_str(), &info) != 0) return 0;
  return static_cast<int64_t>(info.st_size);
}

std::string AgentProcess::Log() const {
  return ReadFileOrEmpty(directory_ + "/agent.log");
}

}  // namespace ldp::testing
