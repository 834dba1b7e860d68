// ldp-agent as a child process; see the header.
#include "tests/integration/agent_process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

#ifndef LDP_AGENT_BINARY
#error "LDP_AGENT_BINARY must name the ldp-agent executable"
#endif

extern char** environ;

namespace ldp::testing {
namespace {

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

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
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    int status = 0;
    waitpid(pid_, &status, 0);
  }
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
  if (pid_ > 0) return absl::FailedPreconditionError("agent already running");
  const std::string record = directory_ + "/record.json";
  {
    std::ofstream out(record, std::ios::binary | std::ios::trunc);
    out << record_json;
    if (!out) return absl::InternalError(absl::StrCat("cannot write ", record));
  }
  const std::string log = directory_ + "/agent.log";
  std::vector<std::string> args = {
      LDP_AGENT_BINARY, absl::StrCat("--server=", server),
      absl::StrCat("--record=", record),
      absl::StrCat("--state_dir=", state_dir_),
      absl::StrCat("--enrollment_token=", enrollment_token)};
  args.insert(args.end(), flags.begin(), flags.end());
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);

  // posix_spawn: nothing but exec runs in the child of this threaded process.
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(),
                                   O_WRONLY | O_CREAT | O_APPEND, 0600);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null",
                                   O_RDONLY, 0);
  pid_t pid = -1;
  const int error = posix_spawn(&pid, LDP_AGENT_BINARY, &actions, nullptr,
                                argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (error != 0) {
    return absl::InternalError(absl::StrCat("posix_spawn ", LDP_AGENT_BINARY,
                                            " failed: errno ", error));
  }
  pid_ = pid;
  exit_status_.reset();
  return absl::OkStatus();
}

bool AgentProcess::Running() {
  if (pid_ <= 0) return false;
  int status = 0;
  if (waitpid(pid_, &status, WNOHANG) == pid_) {
    exit_status_ = DecodeWaitStatus(status);
    pid_ = -1;
    return false;
  }
  return true;
}

std::optional<int> AgentProcess::Wait(absl::Duration timeout) {
  const absl::Time until = absl::Now() + timeout;
  while (Running()) {
    if (absl::Now() >= until) return std::nullopt;
    absl::SleepFor(absl::Milliseconds(5));
  }
  return exit_status_;
}

int AgentProcess::Stop(absl::Duration timeout) {
  if (pid_ <= 0) return exit_status_.value_or(-1);  // never started, or reaped
  kill(pid_, SIGTERM);
  if (std::optional<int> status = Wait(timeout)) return *status;
  if (pid_ <= 0) return exit_status_.value_or(-1);
  kill(pid_, SIGKILL);
  int status = 0;
  waitpid(pid_, &status, 0);
  pid_ = -1;
  exit_status_ = DecodeWaitStatus(status);
  return *exit_status_;
}

std::string AgentProcess::ReadStateFile() const {
  return ReadAll(state_file());
}

int64_t AgentProcess::StateFileBytes() const {
  struct stat info;
  if (stat(state_file().c_str(), &info) != 0) return 0;
  return static_cast<int64_t>(info.st_size);
}

std::string AgentProcess::Log() const {
  return ReadAll(directory_ + "/agent.log");
}

}  // namespace ldp::testing
