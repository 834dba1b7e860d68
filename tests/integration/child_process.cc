// A test's child process; see the header.
#include "tests/integration/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "common/base/file_text.h"

extern char** environ;

namespace ldp::testing {

std::string ReadFileOrEmpty(const std::string& path) {
  return ReadFileText(path, "").value_or("");
}

absl::Status ChildProcess::Spawn(std::vector<std::string> args,
                                 const std::string& log) {
  if (Running()) return absl::FailedPreconditionError(name_ + " still runs");
  name_ = std::filesystem::path(args.front()).filename();
  log_ = log;
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
  const int error =
      posix_spawn(&pid, argv.front(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (error != 0) {
    return absl::InternalError(
        absl::StrCat("posix_spawn ", args.front(), " failed: errno ", error));
  }
  pid_ = pid;
  wait_status_.reset();
  return absl::OkStatus();
}

absl::StatusOr<int> ChildProcess::WaitForPort(const std::string& port_file) {
  for (int i = 0; i < 400; ++i) {
    // The programs write "PORT\n": without its newline the file is not
    // whole yet, and "80" may be the start of "8080".
    const std::string text = ReadFileOrEmpty(port_file);
    int port = 0;
    if (absl::EndsWith(text, "\n") &&
        absl::SimpleAtoi(absl::StripAsciiWhitespace(text), &port) && port > 0) {
      return port;
    }
    if (!Running()) {
      return absl::InternalError(
          absl::StrCat(name_, " exited: ", ReadFileOrEmpty(log_)));
    }
    absl::SleepFor(absl::Milliseconds(50));
  }
  return absl::DeadlineExceededError(
      absl::StrCat(name_, " did not start listening"));
}

bool ChildProcess::Running() {
  if (pid_ <= 0) return false;
  Reap(WNOHANG);
  return pid_ > 0;
}

bool ChildProcess::Alive() const {
  if (pid_ <= 0) return false;
  siginfo_t info{};
  // WNOWAIT: an exited child stays a zombie, for Reap to collect.
  if (waitid(P_PID, pid_, &info, WEXITED | WNOHANG | WNOWAIT) != 0) {
    return false;
  }
  return info.si_pid == 0;  // no state change: still running
}

std::optional<int> ChildProcess::Wait(absl::Duration timeout) {
  const absl::Time until = absl::Now() + timeout;
  while (Running()) {
    if (absl::Now() >= until) return std::nullopt;
    absl::SleepFor(absl::Milliseconds(5));
  }
  return wait_status_;
}

void ChildProcess::Signal(int signal) {
  if (pid_ > 0) kill(pid_, signal);
}

void ChildProcess::Stop() {
  Signal(SIGTERM);
  Reap(0);
}

void ChildProcess::Kill() {
  // A child that failed on its own before the harness killed it crashed
  // or quit mid-test: its log is the only account of why, and the caller's
  // temporary directory (with the log) is about to go.
  if (pid_ > 0 && !Running()) ReportUnexpectedExit();
  Signal(SIGKILL);
  Reap(0);
}

void ChildProcess::ReportUnexpectedExit() const {
  const int status = wait_status_.value_or(0);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return;  // done, fine
  const std::string how = WIFSIGNALED(status)
                              ? absl::StrCat("signal ", WTERMSIG(status))
                              : absl::StrCat("exit code ", WEXITSTATUS(status));
  std::fprintf(stderr, "%s ended by itself (%s); its log:\n%s\n", name_.c_str(),
               how.c_str(), ReadFileOrEmpty(log_).c_str());
}

void ChildProcess::Reap(int options) {
  if (pid_ <= 0) return;
  int status = 0;
  if (waitpid(pid_, &status, options) != pid_) return;
  wait_status_ = status;
  pid_ = -1;
}

}  // namespace ldp::testing
